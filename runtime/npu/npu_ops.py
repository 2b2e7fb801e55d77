"""``npu_bridge.estimator.npu_ops``: the Ascend ops TF 1 Estimator code called,
on TensorFlow's own kernels."""

from __future__ import annotations

import numbers

import tensorflow as tf


def dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Keeps each element with probability ``keep_prob`` and scales it by
    ``1 / keep_prob`` (TF 1's ``tf.nn.dropout``); ``keep_prob`` 1.0 returns ``x``
    itself, as npu_bridge's did. The mask comes from TensorFlow's random kernels,
    not the NPU's mask generator: the same distribution, other draws."""
    if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
        raise ValueError(f"keep_prob must be a scalar tensor or a float in (0, 1], got {keep_prob}")
    if isinstance(keep_prob, numbers.Real) and keep_prob == 1:
        return x
    return tf.compat.v1.nn.dropout(
        x, keep_prob=keep_prob, noise_shape=noise_shape, seed=seed, name=name
    )


def initialize_system(name=None):
    """Opened the Ascend device for a Session; nothing to open here."""
    return tf.no_op(name=name or "initialize_system")


def shutdown_system(name=None):
    """Closed the Ascend device; nothing to close here."""
    return tf.no_op(name=name or "shutdown_system")
