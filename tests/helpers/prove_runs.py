"""``migrate prove`` as the tests start it: a process of the installed command,
the legacy side on the project's ``.venv-legacy``, the reference side on the
tensorflow-estimator 2.15 that scripts/setup-envs installed, and a program's own
``runtime`` and ``migrator`` packages first on every side's path."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from helpers.project_runs import migrate_command
from helpers.sides import ESTIMATOR_2_15, LEGACY_PYTHON, REPO, USER_PACKAGES


def prove(repository: Path, commands, work: Path, *extra, env=None) -> tuple:
    """Runs ``migrate prove``; returns (the finished process, the JSON report or
    None). ``commands``: argument lists after ``python``, or whole strings."""
    runs = []
    for command in commands:
        text = command if isinstance(command, str) else "python " + shlex.join(command)
        runs += ["--run", text]
    report = work.parent / f"{work.name}-report.html"
    argv = [
        *migrate_command(),
        "prove",
        str(repository),
        *runs,
        "--work",
        str(work),
        "--report",
        str(report),
        "--legacy-python",
        str(LEGACY_PYTHON),
        "--reference-estimator",
        str(ESTIMATOR_2_15),
        *map(str, extra),
    ]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, (USER_PACKAGES, REPO))))
    environment.update(env or {})
    finished = subprocess.run(argv, capture_output=True, text=True, env=environment)
    json_report = report.with_suffix(".json")
    found = json.loads(json_report.read_text()) if json_report.exists() else None
    return finished, found


def tree_bytes(root: Path) -> dict:
    """Every file under ``root`` by relative path, with its bytes: what a run that
    must not write there compares before and after."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
