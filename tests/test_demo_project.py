"""README's demo: the bundled TF 1.x project migrates cleanly, idempotently, and
the migrated copy trains, evaluates and predicts on TF 2.21."""

import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from migrator.cli import main as migrate

REPO = Path(__file__).resolve().parents[1]


def test_demo_project_migrates_and_trains(tmp_path):
    out = tmp_path / "out"
    report = tmp_path / "report.html"
    result = CliRunner().invoke(
        migrate,
        [str(REPO / "fixtures" / "demo_project"), "--out", str(out), "--report", str(report)],
    )
    assert result.exit_code == 1, result.output  # changed, no errors
    assert "MIG1" not in result.output, "the demo migrates without diagnostics"
    assert "<h1>Migration report</h1>" in report.read_text()
    again = CliRunner().invoke(migrate, ["--check", str(out / "demo_project")])
    assert again.exit_code == 0, again.output

    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO))
    run = subprocess.run(
        [sys.executable, "train.py", "--model_dir", str(tmp_path / "model"), "--train_steps", "60"],
        cwd=out / "demo_project",
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    accuracy = float(re.search(r"accuracy = ([0-9.]+)", run.stdout).group(1))
    assert "global_step = 60" in run.stdout
    assert 0.5 < accuracy <= 1.0, run.stdout
