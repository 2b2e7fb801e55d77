"""``tf.contrib.opt`` for the legacy side, from TF 1.15's
``contrib/opt/python/training/lazy_adam_optimizer.py`` and
``weight_decay_optimizers.py``: subclasses of TF 1's AdamOptimizer and
MomentumOptimizer (TF 2.15's ``tf.compat.v1.train`` keeps those); and
``lars_optimizer.py``'s LARSOptimizer over TF's momentum kernels."""

import tensorflow as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops import array_ops, control_flow_ops, linalg_ops, math_ops, state_ops
from tensorflow.python.ops import gen_training_ops as training_ops
from tensorflow.python.ops import resource_variable_ops as rvo


def _on_resource(scatter):
    """A resource variable's scatter op, returning the variable's value after it."""

    def apply(var, indices, updates, *unused_use_locking):
        with tf.control_dependencies([scatter(var.handle, indices, updates)]):
            return var.value()

    return apply


_resource_update = _on_resource(rvo.resource_scatter_update)
_resource_sub = _on_resource(rvo.resource_scatter_sub)
_resource_add = _on_resource(rvo.resource_scatter_add)


class LazyAdamOptimizer(tf.compat.v1.train.AdamOptimizer):
    def _apply_sparse(self, grad, var):
        return self._sparse(
            grad.values, var, grad.indices, state_ops.scatter_update, state_ops.scatter_sub
        )

    def _resource_apply_sparse(self, grad, var, indices):
        return self._sparse(grad, var, indices, _resource_update, _resource_sub)

    def _sparse(self, grad, var, indices, scatter_update, scatter_sub):
        t = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = math_ops.cast(beta1_power, t)
        beta2_power = math_ops.cast(beta2_power, t)
        lr_t = math_ops.cast(self._lr_t, t)
        beta1_t = math_ops.cast(self._beta1_t, t)
        beta2_t = math_ops.cast(self._beta2_t, t)
        epsilon_t = math_ops.cast(self._epsilon_t, t)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m = self.get_slot(var, "m")
        m_t = scatter_update(
            m, indices, beta1_t * array_ops.gather(m, indices) + (1 - beta1_t) * grad
        )
        v = self.get_slot(var, "v")
        v_t = scatter_update(
            v,
            indices,
            beta2_t * array_ops.gather(v, indices) + (1 - beta2_t) * math_ops.square(grad),
        )
        m_t_slice = array_ops.gather(m_t, indices)
        v_t_slice = array_ops.gather(v_t, indices)
        var_update = scatter_sub(
            var, indices, lr * m_t_slice / (math_ops.sqrt(v_t_slice) + epsilon_t)
        )
        return control_flow_ops.group(var_update, m_t, v_t)


def extend_with_decoupled_weight_decay(base):
    """TF 1.15's DecoupledWeightDecayExtension over ``base``: ``var -= wd * var``
    before each update; ``decay_var_list`` limits it (reset by every
    apply_gradients call, including the one minimize makes)."""

    class WithDecay(base):
        def __init__(self, weight_decay, **kwargs):
            self._decay_var_list = None
            self._weight_decay = weight_decay
            self._weight_decay_tensor = None
            super().__init__(**kwargs)

        def minimize(self, loss, global_step=None, var_list=None, name=None, decay_var_list=None, **kwargs):  # fmt: skip
            self._decay_var_list = _as_set(decay_var_list)
            return super().minimize(loss, global_step=global_step, var_list=var_list, name=name, **kwargs)  # fmt: skip

        def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):  # fmt: skip
            self._decay_var_list = _as_set(decay_var_list)
            return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

        def _prepare(self):
            weight_decay = self._weight_decay
            if callable(weight_decay):
                weight_decay = weight_decay()
            self._weight_decay_tensor = tf.convert_to_tensor(weight_decay, name="weight_decay")
            super()._prepare()

        def _decayed(self, var):
            return not self._decay_var_list or var.ref() in self._decay_var_list

        def _wd(self, var):
            return math_ops.cast(self._weight_decay_tensor, var.dtype.base_dtype)

        def _dense_decay(self, var):
            if not self._decayed(var):
                return control_flow_ops.no_op()
            return var.assign_sub(self._wd(var) * var, self._use_locking)

        def _sparse_decay(self, var, indices, scatter_add):
            if not self._decayed(var):
                return control_flow_ops.no_op()
            update = -self._wd(var) * array_ops.gather(var, indices)
            return scatter_add(var, indices, update, self._use_locking)

        def _apply_dense(self, grad, var):
            with tf.control_dependencies([self._dense_decay(var)]):
                return super()._apply_dense(grad, var)

        def _resource_apply_dense(self, grad, var):
            with tf.control_dependencies([self._dense_decay(var)]):
                return super()._resource_apply_dense(grad, var)

        def _apply_sparse(self, grad, var):
            decay = self._sparse_decay(var, grad.indices, state_ops.scatter_add)
            with tf.control_dependencies([decay]):
                return super()._apply_sparse(grad, var)

        def _resource_apply_sparse(self, grad, var, indices):
            with tf.control_dependencies([self._sparse_decay(var, indices, _resource_add)]):
                return super()._resource_apply_sparse(grad, var, indices)

    return WithDecay


def _as_set(variables):
    return {v.ref() for v in variables} if variables else False


_AdamWithDecay = extend_with_decoupled_weight_decay(tf.compat.v1.train.AdamOptimizer)
_MomentumWithDecay = extend_with_decoupled_weight_decay(tf.compat.v1.train.MomentumOptimizer)


class AdamWOptimizer(_AdamWithDecay):
    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="AdamW"):  # fmt: skip
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon, use_locking=use_locking, name=name)  # fmt: skip


class MomentumWOptimizer(_MomentumWithDecay):
    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False, name="MomentumW", use_nesterov=False):  # fmt: skip
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum, use_locking=use_locking, name=name, use_nesterov=use_nesterov)  # fmt: skip


class LARSOptimizer(tf.compat.v1.train.Optimizer):
    """contrib/opt/python/training/lars_optimizer.py's LARSOptimizer."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001, epsilon=0.0, name="LARSOptimizer", skip_list=None, use_nesterov=False):  # fmt: skip
        if momentum < 0.0:
            raise ValueError(f"momentum should be positive: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"weight_decay should be positive: {weight_decay}")
        super().__init__(use_locking=False, name=name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._weight_decay = weight_decay
        self._eeta = eeta
        self._epsilon = epsilon
        self._name = name
        self._skip_list = skip_list
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def compute_lr(self, grad, var):
        scaled_lr = self._learning_rate
        if self._skip_list is None or not any(v in var.name for v in self._skip_list):
            w_norm = linalg_ops.norm(var, ord=2)
            g_norm = linalg_ops.norm(grad, ord=2)
            trust_ratio = array_ops.where(
                math_ops.greater(w_norm, 0),
                array_ops.where(
                    math_ops.greater(g_norm, 0),
                    (self._eeta * w_norm / (g_norm + self._weight_decay * w_norm + self._epsilon)),
                    1.0),
                1.0)  # fmt: skip
            scaled_lr = self._learning_rate * trust_ratio
            # Add the weight regularization gradient
            grad = grad + self._weight_decay * var
        return scaled_lr, grad

    def _apply_dense(self, grad, var):
        scaled_lr, grad = self.compute_lr(grad, var)
        mom = self.get_slot(var, "momentum")
        return training_ops.apply_momentum(
            var, mom, math_ops.cast(1.0, var.dtype.base_dtype), grad * scaled_lr,
            self._momentum, use_locking=False, use_nesterov=self._use_nesterov)  # fmt: skip

    def _resource_apply_dense(self, grad, var):
        scaled_lr, grad = self.compute_lr(grad, var)
        mom = self.get_slot(var, "momentum")
        return training_ops.resource_apply_momentum(
            var.handle, mom.handle, math_ops.cast(1.0, var.dtype.base_dtype), grad * scaled_lr,
            self._momentum, use_locking=False, use_nesterov=self._use_nesterov)  # fmt: skip

    # Fallback to momentum optimizer for sparse tensors
    def _apply_sparse(self, grad, var):
        mom = self.get_slot(var, "momentum")
        return training_ops.sparse_apply_momentum(
            var, mom, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype),
            grad.values, grad.indices,
            math_ops.cast(self._momentum_tensor, var.dtype.base_dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov).op  # fmt: skip

    def _resource_apply_sparse(self, grad, var, indices):
        mom = self.get_slot(var, "momentum")
        return training_ops.resource_sparse_apply_momentum(
            var.handle, mom.handle, math_ops.cast(self._learning_rate_tensor, grad.dtype),
            grad, indices, math_ops.cast(self._momentum_tensor, grad.dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov)  # fmt: skip

    def _prepare(self):
        learning_rate = self._learning_rate
        if callable(learning_rate):
            learning_rate = learning_rate()
        self._learning_rate_tensor = ops.convert_to_tensor(learning_rate, name="learning_rate")
        momentum = self._momentum
        if callable(momentum):
            momentum = momentum()
        self._momentum_tensor = ops.convert_to_tensor(momentum, name="momentum")
