"""``tf.contrib.layers`` and ``tf.contrib.estimator`` names for the legacy side, each
written from what TF 1.15's source did (migrator/prove/side_process/standins/README.md says, per name,
what that was). Written here independently of the runtime side, which uses the
tf_slim package and runtime/contrib/."""

import math
import numbers

import tensorflow as tf


def variance_scaling_initializer(
    factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=tf.float32
):
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")

    def initializer(shape, dtype=dtype, partition_info=None):
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for dimension in shape[:-2]:
            fan_in *= float(dimension)
            fan_out *= float(dimension)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return tf.random.uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return tf.random.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)

    return initializer


def xavier_initializer(uniform=True, seed=None, dtype=tf.float32):
    return variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)


def l2_regularizer(scale, scope=None):
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if scale < 0.0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")
    if scale == 0.0:
        return lambda _: None

    def l2(weights):
        with tf.name_scope(scope or "l2_regularizer") as name:
            factor = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(factor, tf.nn.l2_loss(weights), name=name)

    return l2


def layer_norm(
    inputs,
    center=True,
    scale=True,
    activation_fn=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable=True,
    begin_norm_axis=1,
    begin_params_axis=-1,
    scope=None,
):
    with tf.compat.v1.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        shape = inputs.shape
        rank = shape.ndims
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        params_shape = shape[begin_params_axis:]
        collections = [
            tf.compat.v1.GraphKeys.GLOBAL_VARIABLES,
            tf.compat.v1.GraphKeys.MODEL_VARIABLES,
        ]

        def parameter(name, initializer):
            return tf.compat.v1.get_variable(
                name,
                params_shape,
                inputs.dtype.base_dtype,
                initializer=initializer,
                collections=collections,
                trainable=trainable,
            )

        beta = parameter("beta", tf.compat.v1.zeros_initializer()) if center else None
        gamma = parameter("gamma", tf.compat.v1.ones_initializer()) if scale else None
        axes = list(range(begin_norm_axis, rank))
        mean, variance = tf.nn.moments(inputs, axes, keepdims=True)
        epsilon = 1e-12 if inputs.dtype != tf.float16 else 1e-3
        outputs = tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
        outputs.set_shape(shape)
        return activation_fn(outputs) if activation_fn is not None else outputs


def clip_gradients_by_norm(optimizer, clip_norm):
    """An optimizer that clips its gradients by their global norm, then applies them
    with ``optimizer``."""

    class ClipByNorm(tf.compat.v1.train.Optimizer):
        def __init__(self):
            super().__init__(False, "ClipByNorm" + optimizer.get_name())

        def compute_gradients(self, *args, **kwargs):
            return optimizer.compute_gradients(*args, **kwargs)

        def apply_gradients(self, grads_and_vars, global_step=None, name=None):
            gradients, variables = zip(*grads_and_vars, strict=True)
            gradients = tf.clip_by_global_norm(gradients, clip_norm)[0]
            pairs = list(zip(gradients, variables, strict=True))
            return optimizer.apply_gradients(pairs, global_step, name)

    return ClipByNorm()


ZEROS = tf.compat.v1.zeros_initializer()


def fully_connected(
    inputs,
    num_outputs,
    activation_fn=tf.nn.relu,
    normalizer_fn=None,
    normalizer_params=None,
    weights_initializer=None,
    weights_regularizer=None,
    biases_initializer=ZEROS,
    biases_regularizer=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable=True,
    scope=None,
):
    # A v1 Dense layer in the variable scope, its kernel and bias renamed weights
    # and biases (and added to MODEL_VARIABLES) by a custom getter.
    weights_initializer = weights_initializer or xavier_initializer()
    renamed = {"kernel": "weights", "bias": "biases"}

    def model_variable_getter(getter, name, *args, collections=None, **kwargs):
        parts = name.split("/")
        parts[-1] = renamed.get(parts[-1], parts[-1])
        collections = [
            *(collections or []),
            tf.compat.v1.GraphKeys.GLOBAL_VARIABLES,
            tf.compat.v1.GraphKeys.MODEL_VARIABLES,
        ]
        return getter("/".join(parts), *args, collections=collections, **kwargs)

    with tf.compat.v1.variable_scope(
        scope, "fully_connected", [inputs], reuse=reuse, custom_getter=model_variable_getter
    ) as sc:
        inputs = tf.convert_to_tensor(inputs)
        layer = tf.compat.v1.layers.Dense(
            units=num_outputs,
            activation=None,
            use_bias=not normalizer_fn and biases_initializer,
            kernel_initializer=weights_initializer,
            bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer,
            bias_regularizer=biases_regularizer,
            trainable=trainable,
            name=sc.name,
            dtype=inputs.dtype.base_dtype,
            _scope=sc,
            _reuse=reuse,
        )
        outputs = layer.apply(inputs)
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return outputs
