"""A legacy Estimator model_dir resumes under the runtime, and the other way round."""

import shutil

import numpy as np
import pytest

from helpers.harness import FIXTURES, run_program
from helpers.sides import LEGACY, REFERENCE, RUNTIME, Side

CASES = ["mlp_batchnorm_adam", "partitioned_embedding_keras_metric"]


def _train(case: str, side: Side, model_dir, out, steps: int):
    program = FIXTURES / case / ("legacy.py" if side.runs_legacy_program else "migrated.py")
    args = ("--phase", "train", "--model-dir", str(model_dir), "--steps", str(steps))
    return run_program(program, out, side=side, args=args)


@pytest.mark.equivalence
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("first", [LEGACY, RUNTIME], ids=lambda side: side.name)
def test_model_dir_resumes_on_the_other_side(first, case, tmp_path):
    """``first`` (the Estimator on TF 2.15, or the runtime) trains 10 steps; then the
    Estimator and the runtime, both on TF 2.21, continue 10 steps from copies."""
    start = tmp_path / "start"
    _train(case, first, start, tmp_path / "first", 10)
    shutil.copytree(start, tmp_path / "estimator_side")
    shutil.copytree(start, tmp_path / "runtime_side")

    estimator = _train(case, REFERENCE, tmp_path / "estimator_side", tmp_path / "estimator", 10)
    runtime = _train(case, RUNTIME, tmp_path / "runtime_side", tmp_path / "runtime", 10)

    assert len(estimator.data["losses"]) == 10
    np.testing.assert_array_equal(runtime.data["losses"], estimator.data["losses"])
    assert runtime.data["variables"] == estimator.data["variables"]
    for key, expected in estimator.arrays.items():
        np.testing.assert_array_equal(runtime.arrays[key], expected, key)
    assert int(runtime.arrays["var/global_step"]) == 20
