"""``tf.contrib.mixed_precision``: loss scaling for a v1 optimizer, with TF 1.15's
update rules (TensorFlow 2's ``DynamicLossScale`` has another one: it lowers the
scale at the first non-finite step and never below 1 by the same factor it raises
it; these managers count non-finite steps and lower by their own ratio).

The optimizer multiplies the loss by the scale, divides the gradients by it
(times its reciprocal), and applies them only when every gradient is finite; the
manager then updates the scale. Under a replicated strategy the gradients are
checked once summed across replicas, so that every replica skips the same steps.
"""

from __future__ import annotations

import abc

import tensorflow as tf

from estimator_revival.tf1.wrapped_optimizer import WrappedOptimizer, replicas_in_sync


class LossScaleManager(abc.ABC):
    """What a LossScaleOptimizer asks of its loss scale."""

    @abc.abstractmethod
    def get_loss_scale(self):
        """The current loss scale (a float32 scalar)."""

    @abc.abstractmethod
    def update_loss_scale(self, finite_grads):
        """An op updating the scale after a step whose gradients were all finite
        (``finite_grads`` True) or not."""


class FixedLossScaleManager(LossScaleManager):
    """The same loss scale at every step."""

    def __init__(self, loss_scale) -> None:
        if loss_scale < 1:
            raise ValueError("loss scale must be at least 1.")
        self._loss_scale = tf.convert_to_tensor(loss_scale, dtype=tf.float32)

    def get_loss_scale(self):
        return self._loss_scale

    def update_loss_scale(self, finite_grads):
        return tf.no_op()


class ExponentialUpdateLossScaleManager(LossScaleManager):
    """Multiplies the scale by ``incr_ratio`` after ``incr_every_n_steps``
    consecutive finite steps (unless the result would overflow float32), and by
    ``decr_ratio`` (not below 1) after ``decr_every_n_nan_or_inf`` non-finite steps,
    consecutive or not; both counts restart whenever the scale changes, and a
    non-finite step restarts the finite count. Its state is three global,
    non-trainable variables: ``loss_scale``, ``good_steps``, ``bad_steps``."""

    def __init__(
        self,
        init_loss_scale,
        incr_every_n_steps,
        decr_every_n_nan_or_inf=2,
        incr_ratio=2,
        decr_ratio=0.8,
    ) -> None:
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        self._loss_scale = tf.compat.v1.Variable(
            tf.convert_to_tensor(init_loss_scale, tf.float32),
            name="loss_scale",
            dtype=tf.float32,
            trainable=False,
        )
        self._good_steps = tf.compat.v1.Variable(
            0, name="good_steps", dtype=tf.int32, trainable=False
        )
        self._bad_steps = tf.compat.v1.Variable(
            0, name="bad_steps", dtype=tf.int32, trainable=False
        )

    def get_loss_scale(self):
        return self._loss_scale

    def update_loss_scale(self, finite_grads):
        return tf.compat.v1.cond(finite_grads, self._after_finite_step, self._after_nonfinite_step)

    def _after_finite_step(self):
        def raise_scale():
            raised = self._loss_scale * self._incr_ratio
            kept = tf.compat.v1.cond(
                tf.math.is_finite(raised), lambda: raised, lambda: tf.identity(self._loss_scale)
            )
            return self._set_scale(kept)

        return tf.compat.v1.cond(
            self._good_steps + 1 >= self._incr_every_n_steps,
            raise_scale,
            lambda: tf.group(self._good_steps.assign_add(1)),
        )

    def _after_nonfinite_step(self):
        def lower_scale():
            return self._set_scale(tf.maximum(1.0, self._loss_scale * self._decr_ratio))

        def count_it():
            return tf.group(self._bad_steps.assign_add(1), self._good_steps.assign(0))

        return tf.compat.v1.cond(
            self._bad_steps + 1 >= self._decr_every_n_nan_or_inf, lower_scale, count_it
        )

    def _set_scale(self, value):
        return tf.group(
            self._loss_scale.assign(value), self._good_steps.assign(0), self._bad_steps.assign(0)
        )


class LossScaleOptimizer(WrappedOptimizer):
    """``opt`` with its loss scaled by ``loss_scale_manager``'s scale."""

    def __init__(self, opt, loss_scale_manager: LossScaleManager) -> None:
        super().__init__(opt)
        self._loss_scale_manager = loss_scale_manager

    def compute_gradients(self, loss, var_list=None, **kwargs):
        scale = self._loss_scale_manager.get_loss_scale()
        loss_value = loss() if callable(loss) else loss
        scaled_loss = loss_value * tf.cast(scale, loss_value.dtype.base_dtype)
        grads_and_vars = self._optimizer.compute_gradients(scaled_loss, var_list=var_list, **kwargs)
        inverse = tf.math.reciprocal(scale)
        return [
            (None if grad is None else grad * tf.cast(inverse, grad.dtype.base_dtype), var)
            for grad, var in grads_and_vars
        ]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        if replicas_in_sync() > 1:
            return tf.distribute.get_replica_context().merge_call(
                self._apply_across_replicas, args=(grads_and_vars, global_step, name)
            )
        finite = _all_finite(grad for grad, _ in grads_and_vars)
        return self._apply_if_finite(
            finite, lambda: self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        )

    def _apply_across_replicas(self, strategy, grads_and_vars, global_step, name):
        """In cross-replica context: checked once summed, applied in every replica."""
        present = [(grad, var) for grad, var in grads_and_vars if grad is not None]
        summed = strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, present)
        finite = _all_finite(strategy.experimental_local_results(grad)[0] for grad in summed)
        return self._apply_if_finite(
            finite,
            lambda: strategy.extended.call_for_each_replica(
                self._optimizer.apply_gradients, args=(grads_and_vars, global_step, name)
            ),
        )

    def _apply_if_finite(self, finite, apply):
        applied = tf.compat.v1.cond(finite, lambda: tf.group(apply()), tf.no_op)
        return tf.group(applied, self._loss_scale_manager.update_loss_scale(finite))


def _all_finite(gradients) -> tf.Tensor:
    """Whether every element of every gradient is finite."""
    checks = [
        tf.reduce_all(
            tf.math.is_finite(grad.values if isinstance(grad, tf.IndexedSlices) else grad)
        )
        for grad in gradients
        if grad is not None
    ]
    return tf.reduce_all(checks)
