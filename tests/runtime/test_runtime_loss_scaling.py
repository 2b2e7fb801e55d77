"""Loss scaling (``tf.contrib.mixed_precision``, npu_bridge's NPULossScaleOptimizer
and managers) and the npu_bridge ops, against TF 1.15's / npu_bridge's documented
rules, computed by hand here."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import npu
from estimator_revival.contrib import mixed_precision
from estimator_revival.npu import (
    DumpConfig,
    ExponentialUpdateLossScaleManager,
    FixedLossScaleManager,
    NPUDistributedOptimizer,
    NPULossScaleOptimizer,
    hccl_ops,
    npu_ops,
)

REPO = Path(__file__).resolve().parents[2]


def _scales_after(manager_args: dict, finite_steps: list[bool]) -> list[float]:
    """The manager's loss scale after each update, fed ``finite_steps``."""
    with tf.Graph().as_default():
        manager = ExponentialUpdateLossScaleManager(**manager_args)
        finite = tf.compat.v1.placeholder(tf.bool, [])
        update = manager.update_loss_scale(finite)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            scales = []
            for step in finite_steps:
                session.run(update, {finite: step})
                scales.append(float(session.run(manager.get_loss_scale())))
    return scales


def test_exponential_manager_follows_tf_1_15_update_rule():
    # Up after 2 consecutive finite steps; down after 2 non-finite ones,
    # consecutive or not (a finite step between them does not reset that count,
    # a non-finite one resets the finite count).
    args = dict(init_loss_scale=8.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=2,
                incr_ratio=2.0, decr_ratio=0.5)  # fmt: skip
    steps = [True, True, False, True, False, False, False, True, True]
    assert _scales_after(args, steps) == [8, 16, 16, 16, 8, 8, 4, 4, 8]


def test_exponential_manager_never_overflows_nor_drops_below_one():
    big = dict(init_loss_scale=2.0**127, incr_every_n_steps=1)
    assert _scales_after(big, [True, True]) == [2.0**127, 2.0**127]
    small = dict(init_loss_scale=1.5, incr_every_n_steps=9, decr_every_n_nan_or_inf=1,
                 decr_ratio=0.5)  # fmt: skip
    assert _scales_after(small, [False, False]) == [1.0, 1.0]


def test_fixed_manager_keeps_its_scale_and_rejects_one_below_one():
    with pytest.raises(ValueError, match="at least 1"):
        FixedLossScaleManager(0.5)
    manager = FixedLossScaleManager(128)
    manager.update_loss_scale(tf.constant(False))
    assert float(manager.get_loss_scale()) == 128.0


def _train_two_steps(inputs: list[float], make_manager, optimizer_class) -> tuple[list, list]:
    """Weight and global step after each ``minimize`` of ``weight * x``."""
    with tf.Graph().as_default():
        weight = tf.compat.v1.Variable(1.0, name="weight")
        global_step = tf.compat.v1.train.get_or_create_global_step()
        x = tf.compat.v1.placeholder(tf.float32, [])
        inner = tf.compat.v1.train.GradientDescentOptimizer(0.25)
        optimizer = optimizer_class(inner, make_manager())
        train_op = optimizer.minimize(weight * x, global_step=global_step)
        weights, steps = [], []
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for value in inputs:
                session.run(train_op, {x: value})
                weights.append(float(session.run(weight)))
                steps.append(int(session.run(global_step)))
    return weights, steps


@pytest.mark.parametrize(
    "optimizer_class", [mixed_precision.LossScaleOptimizer, NPULossScaleOptimizer]
)
@pytest.mark.parametrize(
    "make_manager, non_finite_input",
    [
        # A constant scale: Grappler folds "* scale * (1 / scale)" away, in TF 1
        # as here, so only a non-finite gradient is one.
        (lambda: FixedLossScaleManager(2.0**10), float("inf")),
        # A variable scale: 3e38 * 2**10 overflows float32 in the scaled gradient.
        (lambda: ExponentialUpdateLossScaleManager(2.0**10, incr_every_n_steps=100), 3e38),
    ],
    ids=["fixed", "exponential"],
)
def test_loss_scale_optimizer_skips_non_finite_steps_and_unscales_the_rest(
    optimizer_class, make_manager, non_finite_input
):
    # The non-finite step is skipped: nothing moves, the global step neither.
    # Then x = 2: gradient 2 * 2**10 / 2**10 = 2 exactly, w = 1 - 0.25 * 2.
    weights, steps = _train_two_steps([non_finite_input, 2.0], make_manager, optimizer_class)
    assert weights == [1.0, 0.5]
    assert steps == [0, 1]


def test_replicas_skip_the_same_steps_and_hccl_reduces_across_them():
    result = subprocess.run(
        [sys.executable, str(REPO / "tests" / "programs" / "loss_scale_replicas.py")],
        env=dict(
            os.environ, PYTHONPATH=str(REPO), CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2"
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    # Replica 1's gradient is infinite, replica 0's finite: both skip.
    assert report["steps"][0] == {"weights": [1.0, 1.0], "global_step": 0}
    # Then gradients 1 and 3 are summed (no Estimator loss scaling here): 1 - 0.5 * 4.
    assert report["steps"][1] == {"weights": [-1.0, -1.0], "global_step": 1}
    # Ranks 1 and 2 (replica id + 1) in every replica; npu_bridge's allreduce of
    # [rank, 10 * rank] over ranks 0 and 1 is their mean, [0.5, 5]; a sparse
    # gradient gathers both ranks' rows (values 1 and 2, both at index 0), halved.
    assert report["allreduce"] == {
        "sum": [3.0, 3.0], "max": [2.0, 2.0], "min": [1.0, 1.0], "prod": [2.0, 2.0],
        "gradient_mean": [[0.5, 5.0], [0.5, 5.0]],
        "sparse_values": [[0.5, 1.0], [0.5, 1.0]],
        "sparse_indices": [[0.0, 0.0], [0.0, 0.0]],
        "gradient_sum": [3.0, 3.0],
    }  # fmt: skip


def test_npu_allreduce_on_one_device_is_the_gradient_divided_by_one():
    gradient = tf.constant([0.1, -3.7e-8, 12345.678])
    np.testing.assert_array_equal(npu.allreduce(gradient, None).numpy(), gradient.numpy())
    sparse = npu.allreduce(tf.IndexedSlices(tf.constant([[2.5]]), tf.constant([3])), None)
    assert sparse.values.numpy().tolist() == [[2.5]] and sparse.indices.numpy().tolist() == [3]


def test_hccl_allreduce_on_one_device_is_the_tensor_and_rejects_what_it_cannot_do():
    assert float(hccl_ops.allreduce(tf.constant(3.0), "sum")) == 3.0
    with pytest.raises(ValueError, match="reduction='mean'"):
        hccl_ops.allreduce(tf.constant(3.0), "mean")
    with pytest.raises(NotImplementedError, match="group='ranks_0_1'"):
        hccl_ops.allreduce(tf.constant(3.0), "sum", group="ranks_0_1")


def test_npu_dropout_keeps_with_probability_keep_prob_and_scales_by_its_inverse():
    x = tf.ones([100_000])
    assert npu_ops.dropout(x, 1.0) is x
    kept = npu_ops.dropout(x, 0.8, seed=3).numpy()
    assert set(np.unique(kept)) == {0.0, np.float32(1 / 0.8)}
    assert abs(np.mean(kept != 0) - 0.8) < 0.005  # 0.8 +- 4 standard deviations
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="keep_prob"):
            npu_ops.dropout(x, bad)


def test_npu_system_ops_are_no_ops():
    with tf.Graph().as_default():
        assert npu_ops.initialize_system().type == "NoOp"
        assert npu_ops.shutdown_system().type == "NoOp"


def test_npu_distributed_optimizer_is_the_wrapped_optimizer_under_npu_bridge_name(caplog):
    adam = tf.compat.v1.train.AdamOptimizer(0.1)
    with caplog.at_level(logging.WARNING):
        optimizer = NPUDistributedOptimizer(adam, is_weight_update_sharding=True)
    assert optimizer.get_name() == "DistributedAdamOptimizer"
    assert "is_weight_update_sharding" in caplog.text
    with tf.Graph().as_default():
        weight = tf.compat.v1.Variable(1.0, name="w")
        optimizer.minimize(weight * 2.0)
        assert optimizer.get_slot_names() == adam.get_slot_names() == ["m", "v"]
        assert optimizer.get_slot(weight, "m") is adam.get_slot(weight, "m")
    with pytest.raises(TypeError, match="NPUDistributedOptimizer wraps a tf.compat.v1"):
        NPUDistributedOptimizer(tf.keras.optimizers.Adam())


def test_dump_config_keeps_its_options_and_says_they_do_nothing_here(caplog):
    with caplog.at_level(logging.WARNING):
        config = DumpConfig(enable_dump=True, dump_path="/tmp/dump", dump_step="0|5")
    assert (config.enable_dump, config.dump_path, config.dump_step) == (True, "/tmp/dump", "0|5")
    assert "DumpConfig: Ascend-only options dump_path, dump_step, enable_dump" in caplog.text
