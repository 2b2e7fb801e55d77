"""The distribution as users install it (issue 50): a wheel built from the
repository, installed with its runtime extra (not editable) into a fresh virtual
environment. Only ``estimator_revival`` lands at the top of site-packages; a
program's own ``runtime`` and ``migrator`` packages keep their names; ``migrate``
finds its report templates; and the README's demo (migrate the BERT-style project,
train, evaluate, predict, export) runs with that environment."""

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(*command, **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=1200, **options)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh environment with the built wheel installed: its interpreter's folder."""
    root = tmp_path_factory.mktemp("wheel")
    built = _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(root), str(REPO)
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = root.glob("estimator_revival-*.whl")
    venv.create(root / "venv", with_pip=True)
    bin_dir = root / "venv" / "bin"
    constraints = REPO / "constraints" / "main.txt"
    install = _run(
        bin_dir / "python", "-m", "pip", "install", "--quiet", "-c", constraints,
        f"{wheel}[runtime]",
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-3000:]
    return bin_dir


def test_only_the_distinctive_name_is_installed(installed, tmp_path):
    listing = _run(installed / "python", "-m", "pip", "show", "-f", "estimator-revival")
    files = [line.strip() for line in listing.stdout.splitlines() if line.startswith("  ")]
    tops = {path.split("/")[0] for path in files if not path.startswith("..")}
    assert any(path.startswith("estimator_revival/migrator/templates/") for path in files)
    # what `migrate prove` starts in each side's interpreter, and its report
    prove = "estimator_revival/migrator/prove/"
    for shipped in (
        "legacy_environment.txt",
        "side_process/run_side.py",
        "side_process/proving.py",
        "side_process/legacy_on_tf_2_21/sitecustomize.py",
        "side_process/standins/tensorflow_contrib.py",
        "side_process/standins/npu_bridge/estimator/npu/npu_config.py",
    ):
        assert prove + shipped in files, shipped
    assert "estimator_revival/migrator/templates/prove.html.j2" in files
    assert {top for top in tops if not top.endswith(".dist-info")} == {"estimator_revival"}
    for bare in ("runtime", "migrator"):
        failed = _run(installed / "python", "-c", f"import {bare}", cwd=tmp_path)
        assert "ModuleNotFoundError" in failed.stderr, bare
    imported = _run(installed / "python", "-c", "import estimator_revival.estimator", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr[-2000:]


def test_the_demo_runs_on_the_installed_wheel(installed, tmp_path):
    out = tmp_path / "demo"
    run = _run(
        "bash",
        REPO / "scripts" / "demo",
        env=dict(os.environ, DEMO_VENV=str(installed.parent), DEMO_OUT=str(out)),
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    metrics = dict(line.split(" = ") for line in run.stdout.strip().splitlines()[-4:])
    assert metrics["global_step"] == "60"
    report = (out / "migration-report.html").read_text()
    assert "<h1>Migration report</h1>" in report and "run_classifier.py" in report
