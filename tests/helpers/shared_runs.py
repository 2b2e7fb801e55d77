"""Results that the test processes of one run share: computed once, by whichever
xdist worker asks first, and read by the others (which wait for it).

For expensive runs that many tests read (each side's run of a chunk of canned
estimators): xdist may hand a module's tests to both workers, and each would
otherwise run what the other already ran."""

from __future__ import annotations

import fcntl
import json
from collections.abc import Callable
from pathlib import Path

import pytest


def shared_directory(request: pytest.FixtureRequest, name: str) -> Path:
    """A directory of this test run that every worker of it sees."""
    factory = request.getfixturevalue("tmp_path_factory")
    if request.getfixturevalue("worker_id") == "master":  # one process: its own temp
        return factory.mktemp(name)
    uid = request.getfixturevalue("testrun_uid")
    directory = factory.getbasetemp().parent / f"{name}-{uid}"
    directory.mkdir(exist_ok=True)
    return directory


_READ: dict[Path, object] = {}  # what this process has read, by file


def computed_once(directory: Path, key: str, compute: Callable[[], object]) -> object:
    """``compute()``'s JSON value, computed by the first process to ask for
    ``key`` in ``directory``; the others wait for it and read it (once)."""
    done = directory / f"{key}.json"
    if done not in _READ:
        with open(directory / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                partial = done.with_suffix(".partial")
                partial.write_text(json.dumps(compute()))
                partial.replace(done)
        _READ[done] = json.loads(done.read_text())
    return _READ[done]
