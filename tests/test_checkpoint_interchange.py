"""A legacy Estimator model_dir resumes under the runtime, and the other way round."""

import shutil

import numpy as np
import pytest
from harness import FIXTURES, run_program

CASES = ["mlp_batchnorm_adam", "partitioned_embedding_keras_metric"]


def _train(case: str, side: str, model_dir, out, steps: int):
    program = FIXTURES / case / ("legacy.py" if side == "legacy" else "migrated.py")
    args = ("--phase", "train", "--model-dir", str(model_dir), "--steps", str(steps))
    return run_program(program, out, legacy=side == "legacy", args=args)


@pytest.mark.equivalence
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("first", ["legacy", "migrated"])
def test_model_dir_resumes_on_the_other_side(first, case, tmp_path):
    """``first`` trains 10 steps; then both sides continue 10 steps from copies."""
    other = "migrated" if first == "legacy" else "legacy"
    start = tmp_path / "start"
    _train(case, first, start, tmp_path / "first", 10)
    shutil.copytree(start, tmp_path / "same_side")
    shutil.copytree(start, tmp_path / "other_side")

    same = _train(case, first, tmp_path / "same_side", tmp_path / "same", 10)
    crossed = _train(case, other, tmp_path / "other_side", tmp_path / "crossed", 10)

    assert len(same.data["losses"]) == 10
    np.testing.assert_array_equal(crossed.data["losses"], same.data["losses"])
    assert crossed.data["variables"] == same.data["variables"]
    for key, expected in same.arrays.items():
        np.testing.assert_array_equal(crossed.arrays[key], expected, key)
    assert int(crossed.arrays["var/global_step"]) == 20
