"""``tf.contrib.layers.optimize_loss`` for the legacy side, written from what TF
1.15's ``contrib/layers/python/layers/optimizers.py`` did (migrator/prove/side_process/standins/README.md).
The runtime side uses ``tf_slim.optimize_loss``."""

import tensorflow as tf

v1 = tf.compat.v1

SUMMARY_KINDS = ("learning_rate", "loss", "gradients", "gradient_norm", "global_gradient_norm")
BY_NAME = {
    "Adagrad": v1.train.AdagradOptimizer,
    "Adam": v1.train.AdamOptimizer,
    "Ftrl": v1.train.FtrlOptimizer,
    "Momentum": lambda learning_rate: v1.train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": v1.train.RMSPropOptimizer,
    "SGD": v1.train.GradientDescentOptimizer,
}


def optimize_loss(
    loss,
    global_step,
    learning_rate,
    optimizer,
    gradient_noise_scale=None,
    gradient_multipliers=None,
    clip_gradients=None,
    learning_rate_decay_fn=None,
    update_ops=None,
    variables=None,
    name=None,
    summaries=None,
    colocate_gradients_with_ops=False,
    increment_global_step=True,
):
    loss = tf.convert_to_tensor(loss)
    if loss.shape.ndims != 0:
        raise ValueError(f"Expected scalar shape for {loss.name}, saw shape: {loss.shape}.")
    if global_step is None:
        global_step = v1.train.get_global_step()
    with v1.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        pending = (
            set(v1.get_collection(v1.GraphKeys.UPDATE_OPS)) if update_ops is None else update_ops
        )
        if pending:
            with tf.control_dependencies(list(pending)):
                loss = tf.identity(loss)
        rate = _rate_of(learning_rate)
        kinds = (
            ["loss", "learning_rate", "global_gradient_norm"] if summaries is None else summaries
        )
        for kind in kinds:
            if kind not in SUMMARY_KINDS:
                raise ValueError(
                    f"Summaries should be one of [{', '.join(SUMMARY_KINDS)}], you provided {kind}."
                )
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            rate = learning_rate_decay_fn(rate, global_step)
            if "learning_rate" in kinds:
                v1.summary.scalar("learning_rate", rate)
        opt = _optimizer_of(optimizer, rate, learning_rate)
        pairs = opt.compute_gradients(
            loss,
            v1.trainable_variables() if variables is None else variables,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
        )
        if gradient_noise_scale is not None:
            pairs = [(_noisy(g, gradient_noise_scale), v) for g, v in pairs]
        if gradient_multipliers is not None:
            pairs = [(_multiplied(g, v, gradient_multipliers), v) for g, v in pairs]
            if not pairs:
                raise ValueError("Empty list of (gradient, var) pairs encountered.")
        norms_wanted = "global_gradient_norm" in kinds or "gradient_norm" in kinds
        if norms_wanted:
            v1.summary.scalar(
                "global_norm/gradient_norm", tf.linalg.global_norm([g for g, _ in pairs])
            )
        if isinstance(clip_gradients, float):
            clipped, _ = tf.clip_by_global_norm([g for g, _ in pairs], clip_gradients)
            pairs = list(zip(clipped, [v for _, v in pairs], strict=True))
        elif callable(clip_gradients):
            pairs = clip_gradients(pairs)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in kinds:
            v1.summary.scalar("loss", loss)
        for gradient, variable in pairs:
            values = gradient.values if isinstance(gradient, tf.IndexedSlices) else gradient
            if values is None:
                continue
            label = variable.name.replace(":", "_")
            if "gradients" in kinds:
                v1.summary.histogram(f"gradients/{label}", values)
            if "gradient_norm" in kinds:
                v1.summary.scalar(f"gradient_norm/{label}", tf.linalg.global_norm([values]))
        if clip_gradients is not None and norms_wanted:
            v1.summary.scalar(
                "global_norm/clipped_gradient_norm", tf.linalg.global_norm([g for g, _ in pairs])
            )
        step = global_step if increment_global_step else None
        update = opt.apply_gradients(pairs, global_step=step, name="train")
        with tf.control_dependencies([update]):
            return tf.identity(loss)


def _rate_of(learning_rate):
    """A scalar tensor as it is; a float as the variable ``learning_rate``."""
    if learning_rate is None:
        return None
    if isinstance(learning_rate, tf.Tensor) and learning_rate.shape.ndims == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate {learning_rate}.")
        return v1.get_variable(
            "learning_rate", [], trainable=False, initializer=v1.constant_initializer(learning_rate)
        )
    raise ValueError(f"Learning rate should be 0d Tensor or float. Got {learning_rate}")


def _optimizer_of(optimizer, rate, learning_rate):
    if isinstance(optimizer, str):
        if rate is None or optimizer not in BY_NAME:
            raise ValueError(f"Cannot make optimizer {optimizer!r} with learning rate {rate}.")
        return BY_NAME[optimizer](learning_rate=rate)
    if isinstance(optimizer, type) and issubclass(optimizer, v1.train.Optimizer):
        if rate is None:
            raise ValueError(f"Learning rate is None for optimizer class {optimizer}.")
        return optimizer(learning_rate=rate)
    if isinstance(optimizer, v1.train.Optimizer):
        return optimizer
    if callable(optimizer):
        made = optimizer(rate) if learning_rate is not None else optimizer()
        if not isinstance(made, v1.train.Optimizer):
            raise ValueError(f"Unrecognized optimizer: function returned {made}.")
        return made
    raise ValueError(f"Unrecognized optimizer: {optimizer}.")


def _noisy(gradient, scale):
    if gradient is None:
        return None
    shape = gradient.dense_shape if isinstance(gradient, tf.IndexedSlices) else gradient.shape
    return gradient + tf.random.truncated_normal(shape) * scale


def _multiplied(gradient, variable, multipliers):
    key = variable if variable in multipliers else variable.name
    if gradient is None or key not in multipliers:
        return gradient
    if isinstance(gradient, tf.IndexedSlices):
        return tf.IndexedSlices(
            gradient.values * multipliers[key], gradient.indices, gradient.dense_shape
        )
    return gradient * tf.cast(multipliers[key], gradient.dtype)
