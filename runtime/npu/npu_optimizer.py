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

from runtime.contrib.mixed_precision import LossScaleManager, LossScaleOptimizer
from runtime.npu.npu_config import warn_ascend_only
from runtime.tf1.wrapped_optimizer import WrappedOptimizer


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
