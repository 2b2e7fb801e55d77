"""``npu_bridge.estimator.npu_ops`` on the legacy side (no Ascend device)."""

import numbers

import tensorflow as tf


def dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """npu_bridge returned ``x`` for a Python ``keep_prob`` of 1; anything else ran
    the NPU's DropOutGenMask/DropOutDoMask kernels, which have no CPU kernel."""
    if isinstance(keep_prob, numbers.Real) and keep_prob == 1:
        return x
    raise NotImplementedError("npu_ops.dropout with keep_prob < 1 needs an Ascend NPU")


def initialize_system(name=None):
    return tf.no_op(name=name)


def shutdown_system(name=None):
    return tf.no_op(name=name)
