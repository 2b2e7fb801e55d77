"""``CrossShardOptimizer`` on ``tf.distribute`` replicas.

On TPU it scaled the loss by ``1 / num_shards`` (reduction MEAN) in
``compute_gradients`` and summed the gradients across shards in
``apply_gradients``. Under a strategy the wrapped v1 optimizer's
``compute_gradients`` already scales the loss (Estimator's loss scaling), and a
standard v1 ``apply_gradients`` already sums across replicas; a custom
``apply_gradients`` (BERT's AdamWeightDecayOptimizer) does not, so the sum is
taken here and the update applied once, in cross-replica context. With one
replica it is the wrapped optimizer unchanged.
"""

from __future__ import annotations

import tensorflow as tf

from runtime.tf1.wrapped_optimizer import WrappedOptimizer, replicas_in_sync

_BASE_APPLY = tf.compat.v1.train.Optimizer.apply_gradients
_REDUCTIONS = (tf.compat.v1.losses.Reduction.MEAN, tf.compat.v1.losses.Reduction.SUM)


class CrossShardOptimizer(WrappedOptimizer):
    """Wraps a v1 optimizer (``tf.compat.v1.tpu.CrossShardOptimizer``)."""

    def __init__(
        self,
        opt,
        reduction=tf.compat.v1.losses.Reduction.MEAN,
        name="CrossShardOptimizer",
        group_assignment=None,
    ):
        if reduction not in _REDUCTIONS:
            raise ValueError(
                f"Argument `reduction` should be one of {_REDUCTIONS}. Received: {reduction}"
            )
        if not isinstance(opt, tf.compat.v1.train.Optimizer):
            raise TypeError(
                "CrossShardOptimizer only works with tf.training.Optimizer and not "
                f"Keras Optimizer. Received: {opt}."
            )
        if group_assignment is not None:
            raise NotImplementedError(
                "CrossShardOptimizer(group_assignment=...) (sub-group all-reduce) is not "
                "supported by the runtime; gradients are summed over all replicas."
            )
        super().__init__(opt, name=name)
        self._reduction = reduction

    def compute_gradients(self, loss, var_list=None, **kwargs):
        replicas = replicas_in_sync()
        if replicas > 1 and self._reduction == tf.compat.v1.losses.Reduction.SUM:
            loss *= replicas  # undo the mean scaling the wrapped optimizer applies
        return self._optimizer.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        if replicas_in_sync() == 1 or type(self._optimizer).apply_gradients is _BASE_APPLY:
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

        def apply_once(strategy, grads_and_vars):
            summed = strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, grads_and_vars)
            local = [strategy.experimental_local_results(grad)[0] for grad in summed]
            pairs = [(grad, var) for grad, (_, var) in zip(local, grads_and_vars, strict=True)]
            return self._optimizer.apply_gradients(pairs, global_step, name)

        context = tf.distribute.get_replica_context()
        return context.merge_call(apply_once, args=(grads_and_vars,))
