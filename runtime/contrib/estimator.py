"""``tf.contrib.estimator``'s optimizer extender that Estimator code used."""

from __future__ import annotations

import tensorflow as tf

from runtime.tf1.wrapped_optimizer import TransformGradients


def clip_gradients_by_norm(optimizer, clip_norm) -> tf.compat.v1.train.Optimizer:
    """``optimizer`` with its gradients clipped by their global norm before they are
    applied (TF 1.15: ``tf.clip_by_global_norm(gradients, clip_norm)``)."""

    def clip(grads_and_vars):
        gradients, variables = zip(*grads_and_vars, strict=True)
        clipped, _ = tf.clip_by_global_norm(gradients, clip_norm)
        return list(zip(clipped, variables, strict=True))

    return TransformGradients(optimizer, clip, name="ClipByNorm" + optimizer.get_name())
