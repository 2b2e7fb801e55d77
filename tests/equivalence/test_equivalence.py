"""Legacy program vs. its migrated twin (fixtures/equivalence/), three runs each
(tests/helpers/sides.py):

  legacy     legacy.py on TF 2.15 + tensorflow-estimator 2.15
  reference  the same legacy.py on TF 2.21, tensorflow-estimator 2.15 put back
  runtime    migrated.py on TF 2.21 + the runtime

The runtime equals the reference bit for bit: every per-step loss, summary and
checkpoint of a hooked and a hook-free training, every variable and optimizer
slot after each of 30+ steps, the evaluate dict, predictions,
every variable and every served export output. The reference equals the legacy
run bit for bit too, but for the kernels KERNEL_DRIFT names (tests/helpers/kernel_drift.py:
every kernel found changed on the fixture's own graph is named, and every named one
is an op of it).
"""

import pytest
import tensorflow as tf

from helpers.harness import (
    FIXTURES,
    assert_equals_a_run_of_its_side,
    assert_versions_agree,
    recorded_steps,
    run_sides,
)
from helpers.kernel_drift import (
    CONTROL_FLOW,
    CONTROL_FLOW_OPS,
    assert_named,
    changed_kernels,
    graph_ops_in_events,
    showing_here,
)
from helpers.saved_model_compare import assert_exports_equal
from helpers.sides import LEGACY, REFERENCE, REFERENCE_CONTROL_FLOW_V2, RUNTIME

CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "legacy.py").exists())

# The kernels that changed between TF 2.15 and 2.21 on each fixture's graph, on
# some CPU (kernel_drift.KERNEL_CHANGES says what changed in each, and where).
KERNEL_DRIFT = {
    "cnn_dropout_v1_metrics": {"Conv2D", "Softmax"},  # one input channel; AUC's input
    "clipping_exponential_decay": {"Pow", "Tanh"},  # the decay; the model
    "custom_v1_head": {"Reciprocal", "Sigmoid"},  # sigmoid cross-entropy's gradient, AUC's input
    "early_stopping_train_and_evaluate": {"Softmax"},  # the probabilities
    "init_from_checkpoint_finetune": {"Erf"},  # tf.nn.gelu
    "input_fn_iterators": {"Tanh"},
    "mlp_batchnorm_adam": {"Softmax"},
    "npu_loss_scaled_adam": {"Reciprocal"},  # 1 / the loss scale
    "serving_signatures": {"Softmax", "Tanh"},
    "tf1_bilstm_crf": {"BlockLSTM", "Reciprocal"},
    "tf1_lars_large_batch": {"Pow", "Softmax"},  # the polynomial decay; the probabilities
    "tf1_contrib_opt_embeddings": {"Reciprocal", "Sigmoid"},  # as custom_v1_head
    "tf1_contrib_optimize_loss_metrics": {"Pow", "Reciprocal"},  # the decay
    "tf1_feed_fn_hook_input": {"Tanh"},
    "tf1_input_after_get_next": {"Softmax"},  # the probabilities (AUC's input)
    # the decay; the cells' gates and states
    "tf1_melody_rnn_cells": {"Pow", "Sigmoid", "Tanh", "GRUBlockCell"},
    "tf1_replicate_model_fn_towers": {"Conv2D", "Softmax"},  # each tower's; the probabilities
    "tf1_session_hooks": {"Tanh"},
    "tf1_xlnet_relative_attention": {"Pow", "Softmax", "Tanh"},  # gelu, attention, summary
    "tpu_bert_classifier_cpu": {"Pow", "Tanh"},  # the polynomial decay; the pooler
    "unet_reset_counters": {"Conv2D", "Reciprocal", "Sigmoid"},  # the masks' probabilities
    "train_and_evaluate_exporters": {"Softmax"},
    "v1_summaries": {"Reciprocal", "Sigmoid"},
    "variable_scope_reuse": {"Reciprocal"},
}

# Programs written for TF 1 whose graphs hold TF 1 loops (kernel_drift.CONTROL_FLOW):
# their bit-for-bit reference is the legacy program with TF 2's control flow.
CONTROL_FLOW_V1 = {"tf1_bilstm_crf", "tf1_melody_rnn_cells"}

# Fixtures whose loss-scale optimizer skips steps: their summaries' step labels
# differ on the skipped runs only (harness.assert_skipped_step_labels).
SKIPPED_STEPS = {"npu_loss_scaled_adam"}


@pytest.mark.equivalence
@pytest.mark.parametrize("case", CASES)
def test_migrated_program_reproduces_legacy(case, tmp_path):
    control_flow_v1 = case in CONTROL_FLOW_V1
    sides = (LEGACY, REFERENCE, RUNTIME, *([REFERENCE_CONTROL_FLOW_V2] if control_flow_v1 else []))
    traces = run_sides(case, tmp_path, {side.name: (side, ()) for side in sides})
    legacy, reference, runtime = (traces[side] for side in ("legacy", "reference", "runtime"))
    exact_side = REFERENCE_CONTROL_FLOW_V2 if control_flow_v1 else REFERENCE
    exact = traces[exact_side.name]

    assert len(recorded_steps(exact)) >= 30, "every variable read after each of 30+ steps"
    exact = assert_equals_a_run_of_its_side(
        exact,
        runtime,
        rerun=lambda: run_sides(case, tmp_path / "again", {exact_side.name: (exact_side, ())})[
            exact_side.name
        ],
        skipped_steps=case in SKIPPED_STEPS,
    )
    if exact.data["exports"]:
        assert_exports_equal(exact, runtime)

    kernels = KERNEL_DRIFT.get(case, set())
    checkpoint = tf.train.latest_checkpoint(str(legacy.out / "model"))
    found = changed_kernels(f"{checkpoint}.meta", checkpoint, tmp_path / "kernels")
    evaluation = graph_ops_in_events(legacy.out / "model")
    assert_named([found], kernels, what=case, other_ops=evaluation)
    assert control_flow_v1 == bool(CONTROL_FLOW_OPS & set(found["ops"])), (
        f"{case}: listed as holding TF 1 loops: {control_flow_v1}; its graph's "
        f"loop ops: {sorted(CONTROL_FLOW_OPS & set(found['ops']))}"
    )
    if control_flow_v1:
        # the same TensorFlow, TF 1's control flow against TF 2's; and two runs of
        # TF 1's loops may differ in their last bits, on either version
        assert_versions_agree(reference, exact, {CONTROL_FLOW})
        kernels = kernels | {CONTROL_FLOW}
    assert_versions_agree(legacy, reference, kernels)
    if legacy.data["exports"]:
        assert_exports_equal(legacy, reference, values=not showing_here(kernels))


def test_there_are_enough_fixture_programs():
    assert len(CASES) >= 8, CASES
