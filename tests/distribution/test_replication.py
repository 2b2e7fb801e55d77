"""Replication equivalence: the runtime on MirroredStrategy over 2 and 4 logical
CPU devices against the legacy Estimator with ``train_distribute`` and
``eval_distribute`` set to the same MirroredStrategy (tensorflow-estimator 2.15 on
TF 2.21, sides.REFERENCE), and against the runtime on one device.

Against the legacy Estimator: bit for bit (per-step losses, every metric, every
variable). What these runs pin down of the legacy distributed graph:
- unseeded initializers draw from the op count of the distributed graph (input_fn
  first, then the global step, mirrored variables), not the one-device graph's,
  and partitioners are off under the strategy (runtime/tf1/replicated_discovery.py);
- each replica's dropout draws its own op seeds, and each replica's model_fn call
  moves Python's generator on (tf_keras seeds unseeded initializers from it);
- evaluation ends at the first step some replica has no batch for (the batches
  the other replicas got are not evaluated; the legacy Estimator raced that end,
  see test_evaluation_ends_at_the_first_step_a_replica_has_no_batch_for);
- a v1 optimizer's ``minimize`` scales the loss by 1 / replicas and sums the
  gradients; the reported loss is the mean across replicas;
- gradients taken with ``tf.gradients`` bypass that scaling and the reported
  loss is the sum across replicas (``_get_loss_reduce_op_for_reporting``);
- a train_op that bumps the global step by hand advances it once per step.

Against one device (what the semantics above mean in numbers), each value within
1e-6 of its own magnitude, or within 1e-7 where it is float32 rounding noise
(harness.assert_relatively_close): sums over replicas add in a different order
than one device's reductions. One exception, for optimizer slots that accumulate
a gradient which is a near-cancelling sum (Adam's first moment of the 2-class
classifier bias: the rows' p - y terms are ~100x larger than their mean): the
rounding of those terms is relative to the terms, not the result, so slots are
held to 1e-5 of their own values; the weights they update are held to 1e-6, and
in the BERT-style program to 2e-6 absolute where Adam's epsilon, not the
gradient, sets the update (ADAM_EPSILON_FLOOR).

TPUEstimator(use_tpu=True) on the replicas runs with TPUEstimator's TPU
semantics (the legacy Estimator cannot run them on CPU), checked against the
same program on one device (CPU semantics): model_fn gets the per-shard
params["batch_size"] while input_fn gets the per-host one; host_call and
metric_fn receive their tensors concatenated across replicas; hooks see the
global step jump by iterations_per_loop; the evaluate ``loss`` is replica 0's
mean loss (TPUEstimator's), the metric_fn's metrics are the whole batch's;
predict pads the last partial batch and drops the padded rows.
"""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers.harness import NOISE_FLOOR, assert_relatively_close
from helpers.sides import REFERENCE, RUNTIME, Side

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "programs" / "replicated_training.py"
RELATIVE_TOLERANCE = 1e-6
SLOT_RELATIVE_TOLERANCE = 1e-5
# The BERT-style optimizer moves each weight by lr * m / (sqrt(v) + 1e-6) (lr 0.02).
# A gradient element that is a cancelling sum (~1e-8, all rounding) has an update
# set by the 1e-6 epsilon, not by the gradient, so the summation order across
# replicas moves such a weight by up to ~1e-6 absolute over 25 steps (observed
# 1.4e-6) whatever its size; every other weight value is held to 1e-6 of itself.
ADAM_EPSILON_FLOOR = 2e-6
STEPS = 12


TPU_FIXTURE = "tpu_bert_classifier_cpu"
TPU_STEPS, ITERATIONS_PER_LOOP = 25, 10
EVAL_BATCH, EVAL_STEPS = 32, 6


def _run(
    fixture: str, replicas: int, global_batch: int, out: Path, side: Side, eval_steps: int | None
) -> tuple[dict, dict]:
    command = [*side.interpreter, str(PROGRAM), "--fixture", fixture]
    command += ["--replicas", str(replicas), "--global-batch", str(global_batch), "--out", str(out)]
    if side.runs_legacy_program:
        command.append("--legacy")
    if eval_steps is not None:
        command += ["--eval-steps", str(eval_steps)]
    if fixture == TPU_FIXTURE:
        command += ["--tpu", "--steps", str(TPU_STEPS)]
    else:
        command += ["--steps", str(STEPS)]
    result = subprocess.run(command, env=side.env(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    trace = json.loads((out / "trace.json").read_text())
    variables = dict(np.load(out / "variables.npz"))
    if (out / "probabilities.npy").exists():
        trace["probabilities"] = np.load(out / "probabilities.npy")
    return trace, variables


def _assert_close(
    actual, expected, what: str, tolerance: float = RELATIVE_TOLERANCE, floor: float = NOISE_FLOOR
) -> None:
    assert_relatively_close(actual, expected, rtol=tolerance, what=what, floor=floor)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = {}

    def run(fixture: str, replicas: int, global_batch: int, side=RUNTIME, eval_steps=None):
        if fixture == TPU_FIXTURE:
            eval_steps = EVAL_STEPS
        key = (fixture, replicas, side.name, eval_steps)
        if key not in cache:
            out = tmp_path_factory.mktemp(f"{fixture}-{replicas}")
            cache[key] = _run(fixture, replicas, global_batch, out, side, eval_steps)
        return cache[key]

    return run


# The CNN's 90 eval rows are 11 batches of 8 on 2 replicas: 5 whole steps.
CNN, CNN_WHOLE_EVAL_STEPS = "cnn_dropout_v1_metrics", 5


@pytest.mark.parametrize(
    ("fixture", "global_batch", "replicas", "eval_steps"),
    [
        # unseeded partitioned embedding + Adagrad minimize, a v1 and a Keras metric
        ("partitioned_embedding_keras_metric", 20, 4, None),
        # tf.gradients + a custom v1 optimizer + a hand-written global-step bump
        ("custom_optimizer_manual_step", 32, 2, None),
        # the train_op returned in EVAL too
        ("train_op_in_every_mode", 16, 4, None),
        # dropout in every replica
        (CNN, 16, 2, CNN_WHOLE_EVAL_STEPS),
    ],
)
def test_replicas_equal_the_legacy_estimator_on_mirrored_strategy(
    runs, fixture, global_batch, replicas, eval_steps
):
    trace, variables = runs(fixture, replicas, global_batch, RUNTIME, eval_steps)
    legacy_trace, legacy_vars = runs(fixture, replicas, global_batch, REFERENCE, eval_steps)

    assert trace["input_batch_sizes"] == legacy_trace["input_batch_sizes"]
    assert trace["model_batch_sizes"] == [global_batch // replicas]
    assert len(trace["losses"]) == STEPS
    assert trace["loss_steps"] == legacy_trace["loss_steps"]
    assert trace["losses"] == legacy_trace["losses"], "reported per-step loss"
    assert trace["metrics"] == legacy_trace["metrics"]
    assert trace["next_python_draw"] == legacy_trace["next_python_draw"]
    assert sorted(variables) == sorted(legacy_vars)
    for name, value in legacy_vars.items():
        assert np.array_equal(variables[name], value), f"variable {name}"


def test_evaluation_ends_at_the_first_step_a_replica_has_no_batch_for(runs):
    """On the CNN's 11 eval batches and 2 replicas, evaluate() to the end of the
    input equals evaluate(steps=5): the 6th step, which only replica 0 has a batch
    for, is not evaluated. The legacy Estimator ended there too, at the
    OutOfRangeError of replica 1's iterator, but raced it: in some runs replica 0's
    metric updates of that step had run first and were counted (observed in 4 of 6
    runs), in others not; that batch is never counted here (and is not replaced by
    an empty one, whose zero loss the mean loss would count)."""
    to_the_end, _ = runs(CNN, 2, 16)
    whole_steps, _ = runs(CNN, 2, 16, RUNTIME, CNN_WHOLE_EVAL_STEPS)
    assert to_the_end["metrics"] == whole_steps["metrics"]


@pytest.mark.parametrize("replicas", [2, 4])
def test_hand_written_gradients_sum_across_replicas(runs, replicas):
    """``tf.gradients`` + a custom v1 optimizer + a hand-written global-step bump."""
    fixture, global_batch = "custom_optimizer_manual_step", 32
    one_trace, one_vars = runs(fixture, 1, global_batch)
    trace, variables = runs(fixture, replicas, global_batch)

    assert trace["model_batch_sizes"] == [global_batch // replicas]
    assert trace["loss_steps"] == list(range(1, STEPS + 1)), "one global step per step"
    scaled = [loss / replicas for loss in trace["losses"]]
    _assert_close(scaled, one_trace["losses"], "reported per-step loss (sum) / replicas")
    for name in ("weights", "bias", "global_step"):
        _assert_close(variables[name], one_vars[name], f"variable {name}")
    for name in ("weights/MomentumSign", "bias/MomentumSign"):
        _assert_close(variables[name] / replicas, one_vars[name], f"slot {name} / replicas")
    for name in ("loss", "rmse"):
        _assert_close(trace["metrics"][name], one_trace["metrics"][name], f"metric {name}")


@pytest.mark.parametrize("replicas", [2, 4])
def test_tpu_estimator_on_replicas_equals_one_device(runs, replicas):
    """BERT-style TPUEstimator: CrossShardOptimizer around a custom optimizer,
    host_call summaries, eval_metrics, scaffold_fn warm start."""
    global_batch = 16
    one_trace, one_vars = runs(TPU_FIXTURE, 1, global_batch)
    trace, variables = runs(TPU_FIXTURE, replicas, global_batch)

    # Batch sizes: input_fn per host (PER_HOST_V1, one host), model_fn per shard.
    assert trace["input_batch_sizes"] == [global_batch, EVAL_BATCH]
    assert trace["model_batch_sizes"] == [global_batch // replicas, EVAL_BATCH // replicas]
    assert one_trace["model_batch_sizes"] == [global_batch, EVAL_BATCH]
    # Host calls get one row per replica (host_call) or the whole batch (metric_fn).
    # host_call's first entry is discovery's graph of one replica; discovery calls
    # metric_fn as the host did, on the whole batch (runtime/tf1/tpu_slices.py).
    assert trace["host_call_rows"] == [1, replicas]
    assert trace["metric_fn_rows"] == [EVAL_BATCH]
    # iterations_per_loop: hooks run once per loop of 10 steps (the last one 5).
    assert trace["steps_after_runs"] == [0, ITERATIONS_PER_LOOP, 2 * ITERATIONS_PER_LOOP]
    assert one_trace["steps_after_runs"] == list(range(TPU_STEPS))
    # The host_call wrote every step's loss (the mean of the replicas' losses).
    assert trace["host_call_steps"] == one_trace["host_call_steps"] == list(range(TPU_STEPS))
    _assert_close(trace["host_call_losses"], one_trace["host_call_losses"], "host_call loss")
    for name in ("eval_accuracy", "eval_loss"):
        _assert_close(trace["metrics"][name], one_trace["metrics"][name], f"metric {name}")
    assert trace["metrics"]["global_step"] == TPU_STEPS
    # predict: 12 rows in batches of 8 on the replicas, the last one padded from 4;
    # the padded rows are dropped.
    assert trace["probabilities"].shape == one_trace["probabilities"].shape == (12, 2)
    # computed from the weights below, so held to their floor
    _assert_close(
        trace["probabilities"],
        one_trace["probabilities"],
        "predictions",
        floor=ADAM_EPSILON_FLOOR,
    )
    assert sorted(variables) == sorted(one_vars)
    slots = {name for name in one_vars if name.endswith(("/adam_m", "/adam_v"))}
    assert len(slots) == 8
    for name, value in one_vars.items():
        if name in slots:
            _assert_close(variables[name], value, f"slot {name}", SLOT_RELATIVE_TOLERANCE)
        else:
            _assert_close(variables[name], value, f"weight {name}", floor=ADAM_EPSILON_FLOOR)


def test_evaluation_on_replicas_skips_the_train_op_it_was_given(runs):
    """The tutorial model_fn returns its train_op in EVAL too; no replica runs it."""
    fixture, global_batch = "train_op_in_every_mode", 16
    one_trace, _ = runs(fixture, 1, global_batch)
    trace, _ = runs(fixture, 2, global_batch)
    assert trace["metrics"]["global_step"] == one_trace["metrics"]["global_step"] == STEPS
    for name in ("loss", "rmse"):
        _assert_close(trace["metrics"][name], one_trace["metrics"][name], f"metric {name}")
