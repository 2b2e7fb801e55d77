"""Replicas on GPUs this machine lacks, as TF 1.15 ran them
(runtime/distribute/tf1_cross_device_ops.py, runtime/tf1/session_config.py): with
soft placement, every replica on the CPU and the gradients reduced on one device,
the numbers the Estimator got; without it, the placer's error.

Each program runs as the reference (the legacy Estimator on this TensorFlow) and
as the runtime; CI's machines have no GPU (``CUDA_VISIBLE_DEVICES=""`` here)."""

import numpy as np
import pytest

from helpers.harness import REPO, run_program, side_by_side_records
from helpers.sides import REFERENCE, RUNTIME

ABSENT_GPUS = REPO / "tests" / "programs" / "absent_gpus.py"
XLNET = REPO / "fixtures" / "replicas" / "xlnet_mirrored_absent_gpus"


def test_tf_distribute_mirrored_strategy_on_absent_gpus_trains_as_the_estimator(tmp_path):
    reference, runtime = side_by_side_records(ABSENT_GPUS, tmp_path, args=("soft",))
    assert reference["global_step"] == 6
    assert runtime == reference


def test_a_hook_under_replicas_fetches_the_reported_loss_and_names_variables_by_op(tmp_path):
    # LOSSES[-1] is the loss the Estimator added after reducing the replicas'
    # (their sum: this plain v1 optimizer did not scale them), not a replica's
    reference, runtime = side_by_side_records(ABSENT_GPUS, tmp_path, args=("soft",))
    assert len(reference["hook_losses"]) == 6
    assert reference["hook_variables"] == ["global_step", "w"]
    assert runtime["hook_losses"] == reference["hook_losses"]
    assert runtime["hook_variables"] == reference["hook_variables"]


def test_without_soft_placement_the_placer_refuses_the_absent_gpu(tmp_path):
    reference, runtime = side_by_side_records(ABSENT_GPUS, tmp_path, args=("hard",))
    assert reference["error"] == "InvalidArgumentError"
    assert (
        "was explicitly assigned to /job:localhost/replica:0/task:0/device:GPU:"
        in (reference["message"])
    )
    assert runtime == reference


@pytest.fixture(scope="module")
def xlnet_runs(tmp_path_factory):
    """XLNet's ``--num_core_per_host=2`` (tf.contrib.distribute.MirroredStrategy(num_gpus=2))
    on this GPU-less machine: the legacy program with TF 1.15's contrib strategy
    (the stand-in) and its migrated copy."""
    out = tmp_path_factory.mktemp("xlnet")
    reference = run_program(XLNET / "legacy.py", out / "reference", side=REFERENCE)
    runtime = run_program(XLNET / "migrated.py", out / "runtime", side=RUNTIME)
    return reference, runtime


def test_xlnet_on_absent_gpus_every_variable_and_slot_at_every_step(xlnet_runs):
    reference, runtime = xlnet_runs
    steps = [key for key in reference.arrays if key.startswith("step/")]
    assert len({key.split("/")[1] for key in steps}) == 32
    assert sorted(runtime.arrays) == sorted(reference.arrays)
    # var/: after the hooked training; loopvar/: after a training without hooks
    trained = [key for key in reference.arrays if key.startswith(("var/", "loopvar/"))]
    for key in steps + trained:
        np.testing.assert_array_equal(runtime.arrays[key], reference.arrays[key], key)
    # the loss a hook fetched as LOSSES[-1] after each step: the reported one
    assert len(reference.data["losses"]) == 32
    assert runtime.data["losses"] == reference.data["losses"]
    assert runtime.data["summaries"] == reference.data["summaries"]
    assert runtime.data["loop_summaries"] == reference.data["loop_summaries"]


def test_xlnet_on_absent_gpus_evaluates_and_predicts_as_the_estimator(xlnet_runs):
    reference, runtime = xlnet_runs
    assert reference.data["eval"]["global_step"] == 32
    assert runtime.data["eval"] == reference.data["eval"]
    assert runtime.data["checkpoints"] == reference.data["checkpoints"]
    predictions = [key for key in reference.arrays if key.startswith("pred/")]
    assert predictions
    for key in predictions:
        np.testing.assert_array_equal(runtime.arrays[key], reference.arrays[key], key)
