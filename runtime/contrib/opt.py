"""``tf.contrib.opt``'s optimizers that Estimator code used, as TF 1.15 defined
them (docs/contrib.md): ``LazyAdamOptimizer``, the decoupled weight decay of
``AdamWOptimizer``/``MomentumWOptimizer``, and ``LARSOptimizer``
(runtime/contrib/lars_optimizer.py).

Both are TF 1 optimizers (``tf.compat.v1.train``): the runtime runs their graph code
inside its traced step as the Estimator's Session ran it.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops

from estimator_revival.contrib.lars_optimizer import LARSOptimizer as LARSOptimizer

_Optimizer = tf.compat.v1.train.Optimizer


class LazyAdamOptimizer(tf.compat.v1.train.AdamOptimizer):
    """Adam that updates, for a sparse gradient (an embedding lookup's), only the
    rows the batch touched: their moments and their values; the other rows keep
    theirs. Dense gradients are Adam's."""

    def _apply_sparse(self, grad, var):
        return self._lazy_update(
            grad.values, var, grad.indices, tf.compat.v1.scatter_update, tf.compat.v1.scatter_sub
        )

    def _resource_apply_sparse(self, grad, var, indices):
        return self._lazy_update(
            grad, var, indices, _resource_scatter_update, _resource_scatter_sub
        )

    def _lazy_update(self, grad, var, indices, scatter_update, scatter_sub):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = (tf.cast(p, dtype) for p in self._get_beta_accumulators())
        beta1 = tf.cast(self._beta1_t, dtype)
        beta2 = tf.cast(self._beta2_t, dtype)
        epsilon = tf.cast(self._epsilon_t, dtype)
        rate = tf.cast(self._lr_t, dtype) * tf.sqrt(1 - beta2_power) / (1 - beta1_power)

        m = self.get_slot(var, "m")
        new_m_rows = beta1 * tf.gather(m, indices) + (1 - beta1) * grad
        m_t = scatter_update(m, indices, new_m_rows)
        v = self.get_slot(var, "v")
        new_v_rows = beta2 * tf.gather(v, indices) + (1 - beta2) * tf.square(grad)
        v_t = scatter_update(v, indices, new_v_rows)

        m_rows, v_rows = tf.gather(m_t, indices), tf.gather(v_t, indices)
        step = rate * m_rows / (tf.sqrt(v_rows) + epsilon)
        return tf.group(scatter_sub(var, indices, step), m_t, v_t)


class DecoupledWeightDecayExtension:
    """Mixed in before a TF 1 optimizer: each variable (or those of
    ``decay_var_list``) first shrinks by ``weight_decay * var`` — not scaled by the
    learning rate — then gets the optimizer's update (Loshchilov & Hutter)."""

    def __init__(self, weight_decay, **kwargs) -> None:
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        self._decay_refs: set | None = None  # None: every variable decays
        super().__init__(**kwargs)

    def minimize(
        self,
        loss,
        global_step=None,
        var_list=None,
        gate_gradients=_Optimizer.GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
        decay_var_list=None,
    ):
        self._decay_refs = _refs(decay_var_list)
        return super().minimize(
            loss,
            global_step=global_step,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            name=name,
            grad_loss=grad_loss,
        )

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        self._decay_refs = _refs(decay_var_list)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self):
        weight_decay = self._weight_decay() if callable(self._weight_decay) else self._weight_decay
        self._weight_decay_tensor = tf.convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var) -> bool:
        return self._decay_refs is None or var.ref() in self._decay_refs

    def _decay(self, var):
        if not self._decays(var):
            return tf.no_op()
        return var.assign_sub(self._decay_factor(var) * var, self._use_locking)

    def _decay_rows(self, var, indices, scatter_add):
        if not self._decays(var):
            return tf.no_op()
        return scatter_add(var, indices, -self._decay_factor(var) * tf.gather(var, indices))

    def _decay_factor(self, var):
        return tf.cast(self._weight_decay_tensor, var.dtype.base_dtype)

    def _apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay(var)]):
            return super()._apply_dense(grad, var)

    def _resource_apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay(var)]):
            return super()._resource_apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        with tf.control_dependencies(
            [self._decay_rows(var, grad.indices, tf.compat.v1.scatter_add)]
        ):
            return super()._apply_sparse(grad, var)

    def _resource_apply_sparse(self, grad, var, indices):
        with tf.control_dependencies([self._decay_rows(var, indices, _resource_scatter_add)]):
            return super()._resource_apply_sparse(grad, var, indices)


def extend_with_decoupled_weight_decay(base_optimizer):
    """``base_optimizer`` (a TF 1 optimizer class) with decoupled weight decay: its
    constructor takes ``weight_decay`` first."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        pass

    return OptimizerWithDecoupledWeightDecay


class AdamWOptimizer(DecoupledWeightDecayExtension, tf.compat.v1.train.AdamOptimizer):
    def __init__(
        self,
        weight_decay,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="AdamW",
    ) -> None:
        super().__init__(
            weight_decay,
            learning_rate=learning_rate,
            beta1=beta1,
            beta2=beta2,
            epsilon=epsilon,
            use_locking=use_locking,
            name=name,
        )


class MomentumWOptimizer(DecoupledWeightDecayExtension, tf.compat.v1.train.MomentumOptimizer):
    def __init__(
        self,
        weight_decay,
        learning_rate,
        momentum,
        use_locking=False,
        name="MomentumW",
        use_nesterov=False,
    ) -> None:
        super().__init__(
            weight_decay,
            learning_rate=learning_rate,
            momentum=momentum,
            use_locking=use_locking,
            name=name,
            use_nesterov=use_nesterov,
        )


def _refs(variables) -> set | None:
    # refs, not variables: a TF 2 variable is unhashable where a trace builds the step
    return {variable.ref() for variable in variables} if variables else None


def _on_resource_variable(scatter_op):
    """A TF 1 scatter function (``tf.compat.v1.scatter_*``'s signature) over
    ``scatter_op`` for a resource variable: the variable's value after the write."""

    def scatter(var, indices, updates):
        with tf.control_dependencies([scatter_op(var.handle, indices, updates)]):
            return var.value()

    return scatter


_resource_scatter_update = _on_resource_variable(resource_variable_ops.resource_scatter_update)
_resource_scatter_sub = _on_resource_variable(resource_variable_ops.resource_scatter_sub)
_resource_scatter_add = _on_resource_variable(resource_variable_ops.resource_scatter_add)
