"""``tf.contrib.estimator``'s optimizer extender that Estimator code used."""

from __future__ import annotations

import tensorflow as tf


def clip_gradients_by_norm(optimizer, clip_norm) -> tf.compat.v1.train.Optimizer:
    """``optimizer`` with its gradients clipped by their global norm before they are
    applied (TF 1.15: ``tf.clip_by_global_norm(gradients, clip_norm)``)."""

    def clip(grads_and_vars):
        gradients, variables = zip(*grads_and_vars, strict=True)
        clipped, _ = tf.clip_by_global_norm(gradients, clip_norm)
        return list(zip(clipped, variables, strict=True))

    return TransformGradients(optimizer, clip, name="ClipByNorm" + optimizer.get_name())


class TransformGradients(tf.compat.v1.train.Optimizer):
    """Applies ``transform(grads_and_vars)`` between the wrapped optimizer's
    ``compute_gradients`` and ``apply_gradients``; everything else is the wrapped
    optimizer's."""

    def __init__(self, optimizer, transform, name=None) -> None:
        super().__init__(use_locking=False, name=name or optimizer.get_name())
        self._optimizer = optimizer
        self._transform = transform

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        transformed = self._transform(grads_and_vars)
        return self._optimizer.apply_gradients(transformed, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()
