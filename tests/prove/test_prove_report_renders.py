"""The report of a real proof, opened in a real headless browser (Chromium): the
verdict's banner and the loss plot's three lines are on the screenshot."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.migrator.prove.plot import COLORS
from helpers.project_runs import PROJECTS
from helpers.prove_runs import prove, tree_bytes
from helpers.sides import LEGACY_PYTHON

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# as the machine's notes say Chromium must start here: no sandbox as root, and no
# background connections to a network that refuses them
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
PASSED = "#2e7d32"  # the banner of an identical or explained verdict (templates/prove.html.j2)


def chromium(profile_parent, *arguments: str) -> str:
    """Runs headless Chromium with a fresh profile; what it printed."""
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile_parent / 'profile'}", *arguments],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


def pixels_of(image: np.ndarray, color: str) -> int:
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return int(np.all(np.abs(image[:, :, :3].astype(int) - rgb) <= 8, axis=-1).sum())


@pytest.fixture(scope="module")
def proven_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prove")
    commands = (
        ("prepare_data.py", "--data_dir", "{out}/data"),
        ("abalone.py", "--data_dir={out}/data", "--model_dir={out}/model"),
    )
    # the legacy interpreter named as a user in the repository would name it: a
    # relative path to a venv's python (a symbolic link, kept)
    legacy = os.path.relpath(LEGACY_PYTHON)
    repository = PROJECTS / "abalone_numpy_input_fn"
    before = tree_bytes(repository)
    finished, report = prove(
        repository, commands, tmp / "work",
        "--steps", "25", "--legacy-python", legacy,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert tree_bytes(repository) == before  # every side ran in a copy of its own
    return tmp / "work-report.html", report


def test_the_report_renders_with_its_verdict_and_plot(proven_report, tmp_path):
    assert CHROMIUM, "Chromium is not installed (.ci/run installs it)"
    html, report = proven_report
    assert report["verdict"] == "identical"
    assert report["plot"]["steps"] == list(range(1, 26))
    screenshot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={screenshot}", "--window-size=1100,1400", html.as_uri())
    image = tf.io.decode_png(screenshot.read_bytes(), channels=3).numpy()
    assert pixels_of(image, PASSED) > 20_000  # the verdict's banner, across the page
    for side in ("legacy", "runtime"):
        assert pixels_of(image, COLORS[side]) > 200, side  # its line in the plots
    dom = chromium(tmp_path, "--dump-dom", html.as_uri())
    assert 'id="verdict"' in dom and "IDENTICAL" in dom
    loss_plot = dom[dom.index('id="loss-plot"') : dom.index('id="difference-plot"')]
    assert loss_plot.count("<polyline") == 3  # legacy, reference, runtime
