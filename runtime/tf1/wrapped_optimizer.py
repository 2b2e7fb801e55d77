"""v1 optimizers that wrap another one, as TF 1 code stacked them
(``NPULossScaleOptimizer(NPUDistributedOptimizer(AdamOptimizer(...)))``)."""

from __future__ import annotations

import tensorflow as tf


class WrappedOptimizer(tf.compat.v1.train.Optimizer):
    """Everything is the wrapped optimizer's: subclasses override what they change."""

    def __init__(self, optimizer, name: str | None = None) -> None:
        if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
            raise TypeError(
                f"{type(self).__name__} wraps a tf.compat.v1.train.Optimizer; got "
                f"{type(optimizer).__name__}."
            )
        super().__init__(use_locking=False, name=name or optimizer.get_name())
        self._optimizer = optimizer

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


class TransformGradients(WrappedOptimizer):
    """Applies ``transform(grads_and_vars)`` between the wrapped optimizer's
    ``compute_gradients`` and ``apply_gradients``."""

    def __init__(self, optimizer, transform, name: str | None = None) -> None:
        super().__init__(optimizer, name)
        self._transform = transform

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        transformed = self._transform(grads_and_vars)
        return self._optimizer.apply_gradients(transformed, global_step, name)


def replicas_in_sync() -> int:
    """Replicas of the current replica context (1 outside one)."""
    context = tf.distribute.get_replica_context()
    return 1 if context is None else context.num_replicas_in_sync
