"""EstimatorSpec and RunConfig behave row for row as tf.estimator 2.15 did (on the
runtime's TensorFlow, sides.REFERENCE): same outcome, same exception type, same
message."""

import json
import subprocess

import pytest

from helpers.sides import REFERENCE, REPO, RUNTIME

TABLE = REPO / "tests" / "programs" / "validation_table.py"


def _table(side):
    result = subprocess.run(
        [*side.interpreter, str(TABLE), side.program_argument],
        capture_output=True,
        text=True,
        env=side.env(TF_CPP_MIN_LOG_LEVEL="3"),
        check=True,
    )
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def tables():
    return _table(REFERENCE), _table(RUNTIME)


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
