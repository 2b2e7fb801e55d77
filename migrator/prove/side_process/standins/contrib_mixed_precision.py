"""``tf.contrib.mixed_precision`` for the legacy side, written from what TF 1.15's
``contrib/mixed_precision/python/loss_scale_{manager,optimizer}.py`` did
(migrator/prove/side_process/standins/README.md). The runtime side uses runtime/contrib/mixed_precision.py."""

import tensorflow as tf

v1 = tf.compat.v1


class LossScaleManager:
    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, finite_grads):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    def __init__(self, loss_scale):
        if loss_scale < 1:
            raise ValueError("loss scale must be at least 1.")
        self.scale = tf.constant(loss_scale, tf.float32)

    def get_loss_scale(self):
        return self.scale

    def update_loss_scale(self, finite_grads):
        return tf.no_op()


class ExponentialUpdateLossScaleManager(LossScaleManager):
    def __init__(
        self,
        init_loss_scale,
        incr_every_n_steps,
        decr_every_n_nan_or_inf=2,
        incr_ratio=2,
        decr_ratio=0.8,
    ):
        self.every_good, self.every_bad = incr_every_n_steps, decr_every_n_nan_or_inf
        self.up, self.down = incr_ratio, decr_ratio
        self.scale = v1.Variable(
            float(init_loss_scale), name="loss_scale", dtype=tf.float32, trainable=False
        )
        self.good = v1.Variable(0, name="good_steps", dtype=tf.int32, trainable=False)
        self.bad = v1.Variable(0, name="bad_steps", dtype=tf.int32, trainable=False)

    def get_loss_scale(self):
        return self.scale

    def _rescale(self, new_scale):
        # a new scale starts both counts again
        return tf.group(
            v1.assign(self.scale, new_scale), v1.assign(self.good, 0), v1.assign(self.bad, 0)
        )

    def update_loss_scale(self, finite_grads):
        def finite_step():
            def grow():
                doubled = self.scale * self.up
                return self._rescale(
                    v1.cond(tf.math.is_finite(doubled), lambda: doubled, self.scale.read_value)
                )

            ready = self.good + 1 >= self.every_good
            return v1.cond(ready, grow, lambda: v1.assign_add(self.good, 1).op)

        def overflow_step():
            def shrink():
                return self._rescale(tf.maximum(1.0, self.scale * self.down))

            def count():
                return tf.group(v1.assign_add(self.bad, 1), v1.assign(self.good, 0))

            return v1.cond(self.bad + 1 >= self.every_bad, shrink, count)

        return v1.cond(finite_grads, finite_step, overflow_step)


class LossScaleOptimizer(v1.train.Optimizer):
    """Scales the loss up, the gradients back down by the reciprocal, and applies
    them only when all are finite; ``overflow(gradients)`` says when they are not."""

    def __init__(self, opt, loss_scale_manager):
        super().__init__(use_locking=False, name=opt.get_name())
        self.opt, self.manager = opt, loss_scale_manager

    def overflow(self, gradients):
        return tf.logical_not(
            tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g in gradients])
        )

    def compute_gradients(self, loss, var_list=None, **kwargs):
        scale = self.manager.get_loss_scale()
        value = loss() if callable(loss) else loss
        pairs = self.opt.compute_gradients(
            value * tf.cast(scale, value.dtype.base_dtype), var_list=var_list, **kwargs
        )
        down = tf.math.reciprocal(scale)
        return [(g if g is None else g * tf.cast(down, g.dtype.base_dtype), v) for g, v in pairs]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        finite = tf.logical_not(self.overflow([g for g, _ in grads_and_vars]))
        applied = v1.cond(
            finite,
            lambda: tf.group(self.opt.apply_gradients(grads_and_vars, global_step, name)),
            tf.no_op,
        )
        return tf.group(applied, self.manager.update_loss_scale(finite))
