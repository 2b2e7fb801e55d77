"""``tf.contrib.opt.LARSOptimizer`` as TF 1.15 defined it: momentum SGD whose rate
is scaled per variable by its trust ratio (You, Gitman & Ginsburg 2017, "Large
Batch Training of Convolutional Networks"), the optimizer of large-batch TPU
ResNet training.

For a dense gradient ``g`` of a variable ``w`` (not matched by ``skip_list``):

    trust = eeta * |w| / (|g| + weight_decay * |w| + epsilon)  (1 where |w| or |g| is 0)
    g    += weight_decay * w
    TF's momentum update of w with rate 1 and gradient learning_rate * trust * g

(``|.|`` the L2 norm over all of the variable's values). A variable matched by
``skip_list`` (a substring of its name, e.g. ``"batch_normalization"``) gets plain
momentum with ``learning_rate``, without weight decay; so does every sparse
gradient. The momentum slot is ``<variable>/<name>`` (``.../LARSOptimizer``), as
TF 1.15 checkpoints hold it.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import gen_training_ops


class LARSOptimizer(tf.compat.v1.train.Optimizer):
    def __init__(
        self,
        learning_rate,
        momentum=0.9,
        weight_decay=0.0001,
        eeta=0.001,
        epsilon=0.0,
        name="LARSOptimizer",
        skip_list=None,
        use_nesterov=False,
    ) -> None:
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
        for variable in var_list:
            self._zeros_slot(variable, "momentum", self._name)

    def _prepare(self):
        learning_rate = self._learning_rate
        if callable(learning_rate):
            learning_rate = learning_rate()
        self._learning_rate_tensor = tf.convert_to_tensor(learning_rate, name="learning_rate")
        momentum = self._momentum
        if callable(momentum):
            momentum = momentum()
        self._momentum_tensor = tf.convert_to_tensor(momentum, name="momentum")

    def compute_lr(self, grad, var):
        """``(rate, gradient)`` of a dense update of ``var``: the trust-scaled rate
        and the gradient with the weight decay added, unless ``var`` is skipped."""
        if self._skip_list is not None and any(name in var.name for name in self._skip_list):
            return self._learning_rate, grad
        w_norm = tf.norm(var, ord=2)
        g_norm = tf.norm(grad, ord=2)
        trust_ratio = tf.where(
            tf.greater(w_norm, 0),
            tf.where(
                tf.greater(g_norm, 0),
                self._eeta * w_norm / (g_norm + self._weight_decay * w_norm + self._epsilon),
                1.0,
            ),
            1.0,
        )
        return self._learning_rate * trust_ratio, grad + self._weight_decay * var

    def _apply_dense(self, grad, var):
        rate, grad = self.compute_lr(grad, var)
        return gen_training_ops.apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            tf.cast(1.0, var.dtype.base_dtype),
            grad * rate,
            self._momentum,
            use_locking=False,
            use_nesterov=self._use_nesterov,
        )

    def _resource_apply_dense(self, grad, var):
        rate, grad = self.compute_lr(grad, var)
        return gen_training_ops.resource_apply_momentum(
            var.handle,
            self.get_slot(var, "momentum").handle,
            tf.cast(1.0, var.dtype.base_dtype),
            grad * rate,
            self._momentum,
            use_locking=False,
            use_nesterov=self._use_nesterov,
        )

    def _apply_sparse(self, grad, var):
        return gen_training_ops.sparse_apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            tf.cast(self._learning_rate_tensor, var.dtype.base_dtype),
            grad.values,
            grad.indices,
            tf.cast(self._momentum_tensor, var.dtype.base_dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        ).op

    def _resource_apply_sparse(self, grad, var, indices):
        return gen_training_ops.resource_sparse_apply_momentum(
            var.handle,
            self.get_slot(var, "momentum").handle,
            tf.cast(self._learning_rate_tensor, grad.dtype),
            grad,
            indices,
            tf.cast(self._momentum_tensor, grad.dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        )
