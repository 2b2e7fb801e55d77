"""``npu_bridge.estimator.npu.npu_optimizer`` on one rank: npu_bridge all-reduced the
gradients only when ``RANK_SIZE`` was above 1, and returned them as they were
otherwise; ``allreduce`` summed a gradient over the ranks (HCCL) and divided it
by their number."""

import os

import tensorflow as tf

from npu_bridge.hccl import hccl_ops


def _rank_size():
    return int(os.environ.get("RANK_SIZE", "1"))


class NPUDistributedOptimizer(tf.compat.v1.train.Optimizer):
    def __init__(self, optimizer, name=None):
        super().__init__(use_locking=False, name=name or f"Distributed{type(optimizer).__name__}")
        self._optimizer = optimizer

    def compute_gradients(self, *args, **kwargs):
        if _rank_size() > 1:
            raise NotImplementedError("more than one Ascend rank needs HCCL")
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, *args, **kwargs):
        return self._optimizer.apply_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


def allreduce(tensor, var, average=True):
    """As npu_bridge's: IndexedSlices gathered (values and indices), a dense tensor
    summed with HCCL's all-reduce; divided by the rank size when ``average``."""
    size = _rank_size()
    if size > 1:
        raise NotImplementedError("more than one Ascend rank needs HCCL")
    if isinstance(tensor, tf.IndexedSlices):
        values = hccl_ops.allgather(tensor.values, size)
        indices = hccl_ops.allgather(tensor.indices, size)
        rank_size = tf.cast(size, tensor.values.dtype)
        new_values = tf.compat.v1.div(values, rank_size) if average else values
        return tf.IndexedSlices(new_values, indices, dense_shape=tensor.dense_shape)
    summed_tensor = hccl_ops.allreduce(tensor, "sum")
    rank_size = tf.cast(size, dtype=tensor.dtype)
    return tf.compat.v1.div(summed_tensor, rank_size) if average else summed_tensor
