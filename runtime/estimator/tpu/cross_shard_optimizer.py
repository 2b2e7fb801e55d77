"""``CrossShardOptimizer`` on ``tf.distribute`` replicas.

On TPU it scaled the loss by ``1 / num_shards`` (reduction MEAN) in
``compute_gradients`` and summed the gradients across shards in
``apply_gradients``. Under a strategy the wrapped v1 optimizer's
``compute_gradients`` already scales the loss (Estimator's loss scaling), and a
standard v1 ``apply_gradients`` already sums across replicas; a custom
``apply_gradients`` (BERT's AdamWeightDecayOptimizer) does not, so the sum is
taken here and the update applied once, in cross-replica context. With one
replica it is the wrapped optimizer unchanged.

In the discovery graph of TPUEstimator on replicas (:func:`one_replica_of`) it
builds one core's graph as the TPU did: the loss scaled as on the replicas, each
gradient's sum across replicas standing as an identity (runtime/tf1/tpu_slices.py).
"""

from __future__ import annotations

import contextlib
import contextvars

import tensorflow as tf

from estimator_revival.tf1 import tpu_slices
from estimator_revival.tf1.wrapped_optimizer import WrappedOptimizer, replicas_in_sync

_BASE_APPLY = tf.compat.v1.train.Optimizer.apply_gradients
_REDUCTIONS = (tf.compat.v1.losses.Reduction.MEAN, tf.compat.v1.losses.Reduction.SUM)
# The replicas whose one core's graph is being built (1: none is)
_CORE_GRAPH_OF = contextvars.ContextVar("core_graph_of", default=1)


@contextlib.contextmanager
def one_replica_of(num_replicas: int):
    """CrossShardOptimizers build one core's graph of ``num_replicas`` meanwhile."""
    token = _CORE_GRAPH_OF.set(num_replicas)
    try:
        yield
    finally:
        _CORE_GRAPH_OF.reset(token)


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
                "supported by the runtime (docs/runtime.md, 'What the runtime refuses')."
            )
        super().__init__(opt, name=name)
        self._reduction = reduction

    def compute_gradients(self, loss, var_list=None, **kwargs):
        replicas = max(replicas_in_sync(), _CORE_GRAPH_OF.get())
        if replicas > 1 and self._reduction == tf.compat.v1.losses.Reduction.SUM:
            loss *= replicas  # undo the mean scaling the wrapped optimizer applies
        with _loss_scaled_as_on_replicas(self._optimizer, _CORE_GRAPH_OF.get()):
            return self._optimizer.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        if _CORE_GRAPH_OF.get() > 1:
            summed = tpu_slices.summed_across_replicas(grads_and_vars)
            return self._optimizer.apply_gradients(summed, global_step, name)
        if replicas_in_sync() == 1 or type(self._optimizer).apply_gradients is _BASE_APPLY:
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

        def apply_once(strategy, grads_and_vars):
            summed = strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, grads_and_vars)
            local = [strategy.experimental_local_results(grad)[0] for grad in summed]
            pairs = [(grad, var) for grad, (_, var) in zip(local, grads_and_vars, strict=True)]
            return self._optimizer.apply_gradients(pairs, global_step, name)

        context = tf.distribute.get_replica_context()
        return context.merge_call(apply_once, args=(grads_and_vars,))


@contextlib.contextmanager
def _loss_scaled_as_on_replicas(optimizer, num_replicas: int):
    """``optimizer`` scales the loss as a v1 optimizer's ``_scale_loss`` did under
    a strategy of ``num_replicas`` with Estimator's loss scaling (by ``1 / N``,
    unless the last v1 loss reduced by SUM), in a graph with no strategy."""
    if num_replicas == 1:
        yield
        return

    def scale(loss_value):
        graph = tf.compat.v1.get_default_graph()
        graph._is_loss_scaled_by_optimizer = False
        if graph._last_loss_reduction not in (tf.compat.v1.losses.Reduction.SUM, "sum"):
            loss_value *= 1.0 / num_replicas
            graph._is_loss_scaled_by_optimizer = True
        return loss_value

    optimizer._scale_loss = scale
    try:
        yield
    finally:
        del optimizer._scale_loss
