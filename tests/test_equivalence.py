"""Legacy program on TF 2.15 + tf.estimator vs. its migrated twin on the runtime.

Three runs per fixture:
  legacy     legacy.py under TF 2.15 + tensorflow-estimator 2.15
  migrated   migrated.py under the runtime on TF 2.21
  reference  the same model_fn, graph built as tf.estimator built it, run in a
             plain tf.compat.v1.Session on TF 2.21 ("legacy graph, new kernels")

The runtime must equal the reference bit for bit, always. It must equal the
legacy run bit for bit too, except where TensorFlow's own kernels changed
between 2.15 and 2.21: those cases are listed in KERNEL_DRIFT with the reason
and compared value by value within 1e-6 of each value's own magnitude (losses,
metrics, summaries, predictions and every variable element), with an absolute
floor of 1e-7 for values that are float32 rounding noise (harness.NOISE_FLOOR).
The drift itself is asserted (the same graph in a TF 2.15 Session and a TF 2.21
Session gives different losses), so an exception that stops being needed fails.
"""

import numpy as np
import pytest
from harness import FIXTURES, assert_bit_identical, assert_close, run_sides
from saved_model_compare import assert_exports_equal

CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "legacy.py").exists())

KERNEL_DRIFT_RTOL = 1e-6
KERNEL_DRIFT = {
    "custom_v1_head": "sigmoid cross-entropy / Adagrad kernels of TF 2.21 round differently from TF 2.15's",
    "cnn_dropout_v1_metrics": "oneDNN Conv2D backprop kernels of TF 2.21 round differently from TF 2.15's",
    "v1_summaries": "sigmoid cross-entropy / Adagrad kernels of TF 2.21 round differently from TF 2.15's",
    "variable_scope_reuse": "RMSProp / matmul gradient kernels of TF 2.21 round differently from TF 2.15's",
    "init_from_checkpoint_finetune": "the Erf kernel under tf.nn.gelu rounds differently in TF 2.21",
}

# Fixtures whose hook requests a stop: the global step it stops at, where the
# reference Session stops too.
EARLY_STOP = {"hooks_with_fetches": 17}

# Fixtures whose loss-scale optimizer skips steps: their summaries' step labels
# differ on the skipped runs only (harness.assert_skipped_step_labels).
SKIPPED_STEPS = {"npu_loss_scaled_adam"}


@pytest.mark.equivalence
@pytest.mark.parametrize("case", CASES)
def test_migrated_program_reproduces_legacy(case, tmp_path):
    session = ("--phase", "session")
    if case in EARLY_STOP:
        session += ("--steps", str(EARLY_STOP[case]))
    runs = {
        "legacy": (True, ()),
        "migrated": (False, ()),
        "reference": (False, session),
    }
    if case in KERNEL_DRIFT:
        runs["legacy_reference"] = (True, session)
    traces = run_sides(case, tmp_path, runs)
    legacy, migrated, reference = traces["legacy"], traces["migrated"], traces["reference"]

    np.testing.assert_array_equal(
        migrated.data["losses"],
        reference.data["losses"],
        "runtime vs. the legacy graph in a TF 2.21 Session",
    )
    final = {k: v for k, v in migrated.arrays.items() if k.startswith("var/")}
    assert sorted(final) == sorted(reference.arrays)
    for key, expected in reference.arrays.items():
        np.testing.assert_array_equal(final[key], expected, f"runtime vs. reference: {key}")
    if case not in KERNEL_DRIFT:
        assert_bit_identical(legacy, migrated, skipped_steps=case in SKIPPED_STEPS)
        if legacy.data["exports"]:
            assert_exports_equal(legacy, migrated)
        return
    assert traces["legacy_reference"].data["losses"] != reference.data["losses"], (
        f"{case} no longer shows kernel drift between TF 2.15 and 2.21; remove it from KERNEL_DRIFT"
    )
    assert_close(legacy, migrated, rtol=KERNEL_DRIFT_RTOL)
    if legacy.data["exports"]:
        assert_exports_equal(legacy, migrated, rtol=KERNEL_DRIFT_RTOL)


def test_there_are_enough_fixture_programs():
    assert len(CASES) >= 8, CASES
