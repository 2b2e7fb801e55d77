"""A long training, where a runtime difference too small to see in a few steps would
have grown: the BERT-style TPUEstimator program (fixtures/equivalence/
tpu_bert_classifier_cpu: AdamWeightDecay bumping the global step by hand, a
host_call, eval_metrics, scaffold_fn, iterations_per_loop 10) trains 200 steps,
evaluates, predicts and exports, then trains 2,000 more steps from its model_dir.
The runtime equals the legacy program on TF 2.21 (sides.REFERENCE) bit for bit in
all of it: every loss of the 2,200 steps, every summary, the evaluation, the
predictions, the exports and every variable at the end."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from helpers.harness import FIXTURES, assert_bit_identical, run_program
from helpers.saved_model_compare import assert_exports_equal
from helpers.sides import REFERENCE, RUNTIME

CASE = "tpu_bert_classifier_cpu"
FIRST_CALL_STEPS, MORE_STEPS = 200, 2000


def _train_long(side, out):
    program = FIXTURES / CASE / ("legacy.py" if side.runs_legacy_program else "migrated.py")
    first = run_program(program, out / "first", side=side, args=("--steps", str(FIRST_CALL_STEPS)))
    more = ("--phase", "train", "--model-dir", str(out / "first" / "model"))
    continued = run_program(
        program, out / "more", side=side, args=(*more, "--steps", str(MORE_STEPS)), timeout=1800
    )
    return first, continued


@pytest.mark.equivalence
def test_a_tpu_estimator_trained_2000_steps_after_its_first_call_equals_the_estimator(tmp_path):
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {
            side.name: pool.submit(_train_long, side, tmp_path / side.name)
            for side in (REFERENCE, RUNTIME)
        }
        (reference, reference_more), (runtime, runtime_more) = (
            runs[name].result() for name in ("reference", "runtime")
        )
    assert_bit_identical(reference, runtime)
    assert_exports_equal(reference, runtime)
    assert len(reference_more.data["losses"]) == MORE_STEPS
    np.testing.assert_array_equal(runtime_more.data["losses"], reference_more.data["losses"])
    assert runtime_more.data["variables"] == reference_more.data["variables"]
    for name, expected in reference_more.arrays.items():
        np.testing.assert_array_equal(runtime_more.arrays[name], expected, name)
    assert int(reference_more.arrays["var/global_step"]) == FIRST_CALL_STEPS + MORE_STEPS
