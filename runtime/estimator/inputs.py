"""``tf.estimator.inputs``: input_fns over in-memory numpy arrays and pandas frames.

TF1 fed these through queues; here they are ``tf.data`` pipelines with the same
batches: in order when ``shuffle=False`` (so the same numbers as the legacy
queue), every batch full when ``num_epochs=None``, a last partial batch when a
number of epochs is set. Argument checks and messages follow TF 2.15.
"""

from __future__ import annotations

import collections

import numpy as np
import tensorflow as tf


def numpy_input_fn(
    x,
    y=None,
    batch_size=128,
    num_epochs=1,
    shuffle=None,
    queue_capacity=1000,
    num_threads=1,
):
    """Returns an input_fn feeding dicts of numpy arrays (``tf.estimator.inputs.numpy_input_fn``)."""
    _check_shuffle(shuffle)

    def input_fn():
        features = _features(x)
        targets = _targets(y, features)
        _check_lengths(features, targets, y)
        return _pipeline(
            features["__direct_np_input__"] if isinstance(x, np.ndarray) else dict(features),
            targets,
            batch_size=batch_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            buffer=queue_capacity,
        )

    return input_fn


def pandas_input_fn(
    x,
    y=None,
    batch_size=128,
    num_epochs=1,
    shuffle=None,
    queue_capacity=1000,
    num_threads=1,
    target_column="target",
):
    """Returns an input_fn feeding a pandas DataFrame (``tf.estimator.inputs.pandas_input_fn``)."""
    _check_shuffle(shuffle)
    if not isinstance(target_column, str):
        raise TypeError("target_column must be a string type")
    if y is not None:
        if target_column in x:
            raise ValueError(
                f"Cannot use name {target_column} for target column: DataFrame already "
                f"has a column with that name: {x.columns}"
            )
        if not np.array_equal(x.index, y.index):
            raise ValueError(
                f"Index for x and y are mismatched.\nIndex for x: {x.index}\nIndex for y: {y.index}\n"
            )
    features = {name: x[name].values for name in x.columns}
    targets = _frame_targets(y)
    if queue_capacity is None:
        # pandas_input_fn's documented default: the whole frame, four times when shuffled.
        queue_capacity = 4 * len(x) if shuffle else len(x)

    def input_fn():
        return _pipeline(
            features,
            targets,
            batch_size=batch_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            buffer=queue_capacity,
        )

    return input_fn


def _frame_targets(y):
    """A Series as one array; a DataFrame as ``{column: array}``, as the Estimator's labels.

    The Estimator appended y's columns to x under fresh names, so a y column may
    share its name with an x column: features keep x's, labels y's.
    """
    if y is None:
        return None
    if hasattr(y, "columns"):
        return {column: y[column].values for column in y.columns}
    return np.asarray(y.values)


def _check_shuffle(shuffle) -> None:
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended "
            f"to set it as True for training); got {shuffle}"
        )


def _features(x) -> collections.OrderedDict:
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda item: item[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict({"__direct_np_input__": x})
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")


def _targets(y, features):
    if y is None or not isinstance(y, dict):
        return y
    if not y:
        raise ValueError("y cannot be empty dict, use None instead.")
    duplicates = set(features) & set(y)
    if duplicates:
        raise ValueError(
            f"{len(duplicates)} duplicate keys are found in both x and y: {duplicates}"
        )
    return collections.OrderedDict(sorted(y.items(), key=lambda item: item[0]))


def _check_lengths(features, targets, y) -> None:
    arrays = list(features.values()) + (
        list(targets.values())
        if isinstance(targets, dict)
        else []
        if targets is None
        else [targets]
    )
    if len({array.shape[0] for array in arrays}) != 1:
        shape_of_y = None
        if isinstance(targets, dict):
            shape_of_y = {k: v.shape for k, v in targets.items()}
        elif targets is not None:
            shape_of_y = y.shape
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y must have "
            "the same length.\n"
            f"Shapes in x: { {k: v.shape for k, v in features.items()} }\n"
            f"Shapes in y: {shape_of_y}\n"
        )


def _pipeline(features, targets, *, batch_size, num_epochs, shuffle, buffer) -> tf.data.Dataset:
    elements = features if targets is None else (features, targets)
    dataset = tf.data.Dataset.from_tensor_slices(elements)
    if shuffle:
        dataset = dataset.shuffle(buffer)
    dataset = dataset.repeat(num_epochs)
    # TF1 dequeued full batches when it repeated forever, and "up to" a batch otherwise.
    return dataset.batch(batch_size, drop_remainder=num_epochs is None)
