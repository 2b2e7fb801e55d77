"""The checks a head puts on logits, labels and example weights: static shapes
raise at once, dynamic ones become assertions the step runs (as the heads of
tensorflow-estimator 2.15 built them, in graph mode)."""

import inspect

import tensorflow as tf
import tf_keras
from tensorflow.python.feature_column import feature_column_v2 as fc

LABEL_NONE = (
    "You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: "
    "Check that your data contains your label feature. Check that your input_fn "
    "properly parses and returns labels."
)
SPARSE_LABEL = (
    "SparseTensor labels are not supported. Labels must be a Tensor of shape "
    "[D0, D1, ..., DN, {0}], e.g. [batch_size, {0}].Suggested Fix (1): Check the "
    "label feature in your data. Each example must contain {0} value(s). If not, "
    "your choice of label was probably incorrect. Suggested Fix (2): In your "
    "input_fn, use tf.sparse_tensor_to_dense() to turn labels into a Tensor."
)
MISMATCHED_LABEL_DIM = (
    "Mismatched label shape. Expected labels dimension={}.  Received {}. Suggested "
    "Fix: If your classifier expects one-hot encoding label, check your n_classes "
    "argument to the estimator and/or the shape of your label. Otherwise, check "
    "the shape of your label."
)
LABEL_SHAPE = (
    "labels shape must be [D0, D1, ... DN, {}]. Suggested Fix: check your n_classes "
    "argument to the head and/or the shape of your label."
)
LOGITS_SHAPE = "logits shape must be [D0, D1, ... DN, logits_dimension]"


def logits_with_final_dim(logits, expected_dimension: int):
    """``logits`` as float32, checked to be ``[D0, ..., DN, expected_dimension]``."""
    with tf.compat.v1.name_scope("logits", values=(logits,)) as scope:
        logits = tf.cast(logits, tf.float32)
        logits_shape = tf.compat.v1.shape(logits)
        assert_rank = tf.compat.v1.debugging.assert_rank_at_least(
            logits, 2, data=[logits_shape], message=LOGITS_SHAPE
        )
        with tf.control_dependencies([assert_rank]):
            static_shape = logits.shape
            if static_shape.ndims is not None and static_shape[-1] is not None:
                if static_shape[-1] != expected_dimension:
                    raise ValueError(f"{LOGITS_SHAPE}, got {static_shape}.")
                return logits
            assert_dimension = tf.compat.v1.debugging.assert_equal(
                expected_dimension, logits_shape[-1], data=[logits_shape], message=LOGITS_SHAPE
            )
            with tf.control_dependencies([assert_dimension]):
                return tf.identity(logits, name=scope)


def dense_labels(labels, logits, expected_dimension: int):
    """``labels`` reshaped to ``[D0, ..., DN, expected_dimension]`` to match logits."""
    if labels is None:
        raise ValueError(LABEL_NONE)
    with tf.compat.v1.name_scope("labels", values=(labels, logits)) as scope:
        labels = tf.compat.v1.convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, tf.sparse.SparseTensor):
            raise ValueError(SPARSE_LABEL.format(expected_dimension))
        if (
            labels.shape.ndims is not None
            and logits.shape.ndims is not None
            and labels.shape.ndims == logits.shape.ndims - 1
        ):
            labels = tf.compat.v1.expand_dims(labels, -1)
        message = LABEL_SHAPE.format(expected_dimension)
        assert_rank = tf.compat.v1.debugging.assert_rank_at_least(labels, 2, message=message)
        with tf.control_dependencies([assert_rank]):
            static_shape = labels.shape
            if static_shape.ndims is not None:
                final_dim = static_shape[-1]
                if final_dim is not None and final_dim != expected_dimension:
                    raise ValueError(MISMATCHED_LABEL_DIM.format(expected_dimension, final_dim))
            logits_shape = tf.compat.v1.shape(logits)
            expected_shape = tf.concat([logits_shape[:-1], [expected_dimension]], axis=0)
            labels_shape = tf.compat.v1.shape(labels)
            assert_dimension = tf.compat.v1.debugging.assert_equal(
                expected_shape,
                labels_shape,
                message=message,
                data=["expected_labels_shape: ", expected_shape, "labels_shape: ", labels_shape],
            )
            with tf.control_dependencies([assert_dimension]):
                return tf.identity(labels, name=scope)


def labels_in_range(labels, n_classes: int, message: str | None = None):
    """``labels``, asserted to lie in ``[0, n_classes)``."""
    with tf.compat.v1.name_scope("check_label_range", values=(labels,)):
        assert_less = tf.compat.v1.debugging.assert_less_equal(
            labels,
            tf.convert_to_tensor(n_classes - 1, dtype=labels.dtype),
            message=message or "Labels must be <= n_classes - 1",
        )
        assert_greater = tf.compat.v1.debugging.assert_non_negative(
            labels, message=message or "Labels must be >= 0"
        )
        with tf.control_dependencies((assert_less, assert_greater)):
            return tf.identity(labels)


def example_weights(features, weight_column, logits, *, per_logit: bool = False):
    """The weight column's values shaped like ``logits`` (1. without a column)."""
    if per_logit:
        message = (
            "weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or "
            "[D0, D1, ... DN, logits_dimension]"
        )
    else:
        message = "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]"
    with tf.compat.v1.name_scope("weights", values=(*features.values(), logits)) as scope:
        if weight_column is None:
            return 1.0
        if isinstance(weight_column, str):
            weight_column = tf.feature_column.numeric_column(key=weight_column, shape=(1,))
        if not isinstance(weight_column, fc.NumericColumn):
            raise TypeError(
                "Weight column must be either a string or NumericColumn. "
                f"Given type: {type(weight_column)}."
            )
        weights = weight_column.get_dense_tensor(fc.FeatureTransformationCache(features), None)
        if not (weights.dtype.is_floating or weights.dtype.is_integer):
            raise ValueError(
                f"Weight column should be castable to float. Given dtype: {weights.dtype}"
            )
        weights = tf.cast(weights, name="weights", dtype=tf.float32)
        weights_shape = tf.compat.v1.shape(weights, name="weights_shape")
        logits_shape = tf.compat.v1.shape(logits, name="logits_shape")
        data = ["logits_shape: ", logits_shape, "weights_shape: ", weights_shape]
        if (
            weights.shape.ndims is not None
            and logits.shape.ndims is not None
            and weights.shape.ndims == logits.shape.ndims - 1
        ):
            assert_dimension = tf.compat.v1.debugging.assert_equal(
                logits_shape[:-1], weights_shape, message=message, data=data
            )
            with tf.control_dependencies([assert_dimension]):
                return tf.compat.v1.expand_dims(weights, -1, name=scope)
        supported_shape = tf.concat([logits_shape[:-1], [1]], axis=0)
        if per_logit:
            condition = tf.math.reduce_any(
                [
                    tf.reduce_all(tf.math.equal(logits_shape, weights_shape)),
                    tf.reduce_all(tf.math.equal(supported_shape, weights_shape)),
                ]
            )
            assert_dimension = tf.debugging.Assert(condition=condition, data=[message, *data])
        else:
            assert_dimension = tf.compat.v1.debugging.assert_equal(
                supported_shape, weights_shape, message=message, data=data
            )
        with tf.control_dependencies([assert_dimension]):
            return tf.identity(weights, name=scope)


def custom_loss(loss_fn, labels, logits, features, expected_dimension: int):
    """``loss_fn``'s unreduced loss, checked to be ``[D0, ..., DN, expected_dimension]``."""
    arguments = {"features": features} if "features" in _parameters(loss_fn) else {}
    with tf.compat.v1.name_scope("call_loss_fn", values=[labels, logits, *features.values()]):
        loss = loss_fn(labels=labels, logits=logits, **arguments)
        logits_shape = tf.compat.v1.shape(logits, name="logits_shape")
        expected_shape = tf.concat(
            [logits_shape[:-1], [expected_dimension]], axis=0, name="expected_loss_shape"
        )
        loss_shape = tf.compat.v1.shape(loss, name="loss_shape")
        check = tf.debugging.Assert(
            tf.reduce_all(tf.math.equal(loss_shape, expected_shape)),
            data=[
                f"loss_fn must return Tensor of shape [D0, D1, ... DN, {expected_dimension}]. ",
                "logits_shape: ",
                logits_shape,
                "loss_shape: ",
                loss_shape,
            ],
            name="check_loss_shape",
        )
        with tf.control_dependencies([check]):
            return tf.identity(loss)


def validate_loss_fn(loss_fn) -> None:
    """A custom loss takes ``labels`` and ``logits`` and, optionally, ``features``."""
    parameters = _parameters(loss_fn)
    for required in ("labels", "logits"):
        if required not in parameters:
            raise ValueError(
                f"loss_fn must contain argument: {required}. Given arguments: {parameters}"
            )
    invalid = set(parameters) - {"labels", "logits", "features", "loss_reduction"}
    if invalid:
        raise ValueError(f"loss_fn has unexpected args: {sorted(invalid)}")


def validate_loss_reduction(loss_reduction) -> None:
    reduction = tf_keras.losses.Reduction
    if loss_reduction not in reduction.all() or loss_reduction == reduction.NONE:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for valid options."
        )


def _parameters(function) -> tuple[str, ...]:
    return tuple(inspect.signature(function).parameters)
