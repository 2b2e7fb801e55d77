"""``CrossShardOptimizer``: on TPU it averaged gradients across shards; with one
replica (or a tf.distribute strategy, which aggregates itself) it is the wrapped
optimizer unchanged."""

from __future__ import annotations

import tensorflow as tf


class CrossShardOptimizer(tf.compat.v1.train.Optimizer):
    """Wraps a v1 optimizer (``tf.compat.v1.tpu.CrossShardOptimizer``)."""

    def __init__(self, opt, reduction="mean", name="CrossShardOptimizer", group_assignment=None):
        if reduction not in ("sum", "mean"):
            raise ValueError(f"Unsupported reduction: {reduction}.")
        super().__init__(use_locking=False, name=name)
        self._opt = opt
        self._reduction = reduction

    def compute_gradients(self, loss, var_list=None, **kwargs):
        return self._opt.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._opt.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()
