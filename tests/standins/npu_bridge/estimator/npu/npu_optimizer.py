"""``NPUDistributedOptimizer`` on one rank: npu_bridge all-reduced the gradients
only when ``RANK_SIZE`` was above 1, and returned them as they were otherwise."""

import os

import tensorflow as tf


class NPUDistributedOptimizer(tf.compat.v1.train.Optimizer):
    def __init__(self, optimizer, name=None):
        super().__init__(use_locking=False, name=name or f"Distributed{type(optimizer).__name__}")
        self._optimizer = optimizer

    def compute_gradients(self, *args, **kwargs):
        if int(os.environ.get("RANK_SIZE", "1")) > 1:
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
