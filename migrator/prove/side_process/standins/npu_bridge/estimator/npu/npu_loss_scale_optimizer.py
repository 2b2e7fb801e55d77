"""``NPULossScaleOptimizer``: tf.contrib.mixed_precision's LossScaleOptimizer, with
the NPU's float-status register for "some gradient overflowed". Off the device
the register is emulated: it counts the non-finite elements of the gradients."""

import contrib_mixed_precision
import tensorflow as tf


class NPULossScaleOptimizer(contrib_mixed_precision.LossScaleOptimizer):
    def __init__(self, opt, loss_scale_manager, is_distributed=False):
        super().__init__(opt, loss_scale_manager)
        self.is_distributed = is_distributed  # one rank: nothing to all-reduce

    def overflow(self, gradients):
        status = tf.add_n(
            [
                tf.reduce_sum(tf.cast(tf.logical_not(tf.math.is_finite(g)), tf.float32))
                for g in gradients
            ]
        )
        return tf.not_equal(status, 0.0)
