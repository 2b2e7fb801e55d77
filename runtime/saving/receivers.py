"""Serving input receivers (``tf.estimator.export``): what ``export_saved_model``
feeds the model and which tensors the SavedModel's signatures take.

Validation and error texts follow ``tensorflow_estimator`` 2.15
(docs/estimator_contract.md §1.7).
"""

from __future__ import annotations

import collections

import tensorflow as tf

SINGLE_FEATURE_KEY = "feature"
SINGLE_RECEIVER_KEY = "input"
SINGLE_LABEL_KEY = "label"

# The key a single tensor gets when a field is given a tensor instead of a dict.
_SINGLE_TENSOR_KEYS = {
    "feature": SINGLE_FEATURE_KEY,
    "label": SINGLE_LABEL_KEY,
    "receiver_tensor": SINGLE_RECEIVER_KEY,
    "receiver_tensors_alternative": SINGLE_RECEIVER_KEY,
}

_TENSOR_TYPES = (tf.Tensor, tf.sparse.SparseTensor, tf.RaggedTensor)


def wrap_and_check_input_tensors(tensors, field_name: str, allow_int_keys: bool = False) -> dict:
    """``tensors`` as a dict of name to tensor (a single tensor gets the field's
    default key); raises ValueError naming the field for anything else."""
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_SINGLE_TENSOR_KEYS[field_name]: tensors}
    for name, tensor in tensors.items():
        _check_key(name, field_name, allow_int_keys)
        _check_tensor(tensor, name, field_name)
    return tensors


def _check_key(name, field_name: str, allow_int_keys: bool) -> None:
    if isinstance(name, str):
        return
    if not allow_int_keys:
        raise ValueError(f"{field_name} keys must be strings: {name}.")
    if not isinstance(name, int):
        raise ValueError(f"{field_name} keys must be strings or ints: {name}.")


def _check_tensor(tensor, name, field_name: str) -> None:
    if isinstance(tensor, _TENSOR_TYPES):
        return
    label = f" {name}" if name else ""
    error = ValueError(f"{field_name}{label} must be a Tensor, SparseTensor, or RaggedTensor.")
    # TF's carve-out for LabeledTensor (tf.contrib.labeled_tensor): an object with
    # a ``tensor`` attribute that converts to a tensor.
    if not hasattr(tensor, "tensor"):
        raise error
    try:
        tf.convert_to_tensor(tensor)
    except TypeError:
        raise error from None


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"]
    )
):
    """Features for model_fn (a dict; a single tensor is keyed ``'feature'``) and the
    tensors a serving request feeds (``'input'`` when single)."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError(
                    "receiver_tensors_alternatives must be a dict: "
                    f"{receiver_tensors_alternatives}."
                )
            receiver_tensors_alternatives = {
                name: wrap_and_check_input_tensors(tensors, "receiver_tensors_alternative")
                for name, tensors in receiver_tensors_alternatives.items()
            }
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """Like :class:`ServingInputReceiver`, but model_fn gets the single feature
    tensor itself rather than a dict."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        _check_tensor(features, None, "feature")
        receiver = ServingInputReceiver(features, receiver_tensors, receiver_tensors_alternatives)
        return super().__new__(
            cls,
            receiver.features[SINGLE_FEATURE_KEY],
            receiver.receiver_tensors,
            receiver.receiver_tensors_alternatives,
        )


class SupervisedInputReceiver(
    collections.namedtuple("SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])
):
    """Features and labels for exporting the TRAIN or EVAL graph."""

    def __new__(cls, features, labels, receiver_tensors):
        wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        wrap_and_check_input_tensors(labels, "label", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        return super().__new__(cls, features, labels, receiver_tensors)


class UnsupervisedInputReceiver(ServingInputReceiver):
    """Features without labels for exporting the TRAIN or EVAL graph."""

    def __new__(cls, features, receiver_tensors):
        return super().__new__(cls, features, receiver_tensors, None)


def build_parsing_serving_input_receiver_fn(feature_spec: dict, default_batch_size=None):
    """A receiver fn fed serialized ``tf.Example``s (``'examples'``), parsed with
    ``feature_spec``; the only receiver that gives classify/regress signatures."""

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor"
        )
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features: dict, default_batch_size=None):
    """A receiver fn fed the features themselves: one placeholder per feature, with
    the example tensor's dtype and shape after the batch dimension."""

    def serving_input_receiver_fn():
        placeholders = _placeholders_like(features, default_batch_size)
        return ServingInputReceiver(placeholders, placeholders)

    return serving_input_receiver_fn


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """A receiver fn fed features and labels as model_fn expects them (TRAIN/EVAL export)."""
    feature_keys = features.keys() if isinstance(features, dict) else [SINGLE_RECEIVER_KEY]
    label_keys = labels.keys() if isinstance(labels, dict) else [SINGLE_LABEL_KEY]
    overlap = set(feature_keys) & set(label_keys)
    if overlap:
        raise ValueError(
            f"Features and labels must have distinct keys. Found overlapping keys: {overlap}"
        )

    def supervised_input_receiver_fn():
        feature_tensors, feature_receivers = _fed_like(
            features, SINGLE_RECEIVER_KEY, default_batch_size
        )
        label_tensors, label_receivers = _fed_like(labels, SINGLE_LABEL_KEY, default_batch_size)
        return SupervisedInputReceiver(
            feature_tensors, label_tensors, {**feature_receivers, **label_receivers}
        )

    return supervised_input_receiver_fn


def _fed_like(example, single_key: str, default_batch_size):
    """Placeholders shaped like ``example`` (a tensor or a dict) and their receiver dict."""
    if isinstance(example, dict):
        placeholders = _placeholders_like(example, default_batch_size)
        return placeholders, placeholders
    placeholder = _placeholder_like(example, default_batch_size)
    return placeholder, {single_key: placeholder}


def _placeholders_like(tensors: dict, default_batch_size) -> dict:
    return {name: _placeholder_like(t, default_batch_size) for name, t in tensors.items()}


def _placeholder_like(tensor, default_batch_size):
    shape = tf.TensorShape([default_batch_size]).concatenate(tensor.get_shape()[1:])
    try:
        name = tensor.op.name
    except AttributeError:  # an eager tensor: no op; the name only helps reading the graph
        name = None
    return tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)
