"""EstimatorSpec and RunConfig behave row for row as tf.estimator 2.15 did:
same outcome, same exception type, same message."""

import json
import os
import subprocess

import pytest
from harness import LEGACY_PYTHON, MAIN_PYTHON, REPO

TABLE = REPO / "tests" / "validation_table.py"


def _table(python, side):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO))
    env.pop("TF_CONFIG", None)
    if side == "legacy":
        env.pop("TF_USE_LEGACY_KERAS", None)
    result = subprocess.run(
        [str(python), str(TABLE), side], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def tables():
    return _table(LEGACY_PYTHON, "legacy"), _table(MAIN_PYTHON, "runtime")


def test_every_row_was_evaluated_on_both_sides(tables):
    legacy, runtime = tables
    assert sorted(legacy) == sorted(runtime)
    assert len(legacy) >= 60
    failing = [name for name, (kind, _) in legacy.items() if kind != "ok"]
    assert len(failing) >= 35, "the table must exercise the error rows"


def test_rows_match_the_legacy_side(tables):
    legacy, runtime = tables
    mismatches = {
        name: {"legacy": legacy[name], "runtime": runtime[name]}
        for name in legacy
        if legacy[name] != runtime[name]
    }
    assert not mismatches, json.dumps(mismatches, indent=1)
