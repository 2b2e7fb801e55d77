"""``npu_bridge``'s optimizer wrappers, on ``tf.distribute``.

``NPUDistributedOptimizer`` averaged the gradients across the Ascend ranks (HCCL
all-reduce, divided by ``RANK_SIZE``). Under a replicated strategy the wrapped v1
optimizer already does that: its ``compute_gradients`` scales the loss by
``1 / replicas`` and its ``apply_gradients`` sums across replicas. With one
replica it changed nothing, and neither does this.

``NPULossScaleOptimizer`` is ``tf.contrib.mixed_precision``'s LossScaleOptimizer
with the NPU's overflow flag for "a gradient is not finite"; here that is read
from the gradients themselves, summed across replicas (what ``is_distributed``
asked for: every rank skips the same steps).
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.contrib.mixed_precision import LossScaleManager, LossScaleOptimizer
from estimator_revival.npu import hccl_ops
from estimator_revival.npu.npu_config import warn_ascend_only
from estimator_revival.tf1.wrapped_optimizer import WrappedOptimizer


class NPUDistributedOptimizer(WrappedOptimizer):
    """The wrapped optimizer: gradients are averaged across replicas by it."""

    def __init__(
        self,
        optimizer,
        name=None,
        is_weight_update_sharding=False,
        is_tailing_optimization=False,
    ) -> None:
        super().__init__(optimizer, name or "Distributed" + type(optimizer).__name__)
        options = {
            "is_weight_update_sharding": is_weight_update_sharding,
            "is_tailing_optimization": is_tailing_optimization,
        }
        warn_ascend_only("NPUDistributedOptimizer", [name for name, on in options.items() if on])


class NPULossScaleOptimizer(LossScaleOptimizer):
    """Loss scaling with ``loss_scale_manager``; replicas skip the same steps."""

    def __init__(self, opt, loss_scale_manager: LossScaleManager, is_distributed=False) -> None:
        del is_distributed  # replicas always skip the same steps here
        super().__init__(opt, loss_scale_manager)


def allreduce(tensor, var, average=True):
    """npu_bridge's all-reduce of one gradient across the Ascend ranks: the sum over
    the ranks (``hccl_ops.allreduce``), divided by their number when ``average``;
    an ``IndexedSlices`` gradient has its values and indices gathered instead
    (``hccl_ops.allgather``), its values divided likewise. The ranks are the
    strategy's replicas: on one device the tensor divided by 1, which is the tensor.
    ``var`` is unused, as in npu_bridge.

    Under a replicated strategy, a v1 optimizer's ``compute_gradients`` already
    scaled each replica's loss by ``1 / replicas`` and its ``apply_gradients`` sums
    the gradients across them: the mean this gives every replica is summed there,
    and the update is the one npu_bridge's ranks made (docs/npu.md)."""
    del var
    context = tf.distribute.get_replica_context()
    size = context.num_replicas_in_sync if context is not None else 1
    if isinstance(tensor, tf.IndexedSlices):
        values = hccl_ops.allgather(tensor.values, size)
        indices = hccl_ops.allgather(tensor.indices, size)
        rank_size = tf.cast(size, tensor.values.dtype)
        new_values = tf.compat.v1.div(values, rank_size) if average else values
        return tf.IndexedSlices(new_values, indices, dense_shape=tensor.dense_shape)
    summed_tensor = hccl_ops.allreduce(tensor, "sum")
    rank_size = tf.cast(size, dtype=tensor.dtype)
    return tf.compat.v1.div(summed_tensor, rank_size) if average else summed_tensor
