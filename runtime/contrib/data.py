"""``tf.contrib.data``'s transformations that ``tf.data`` took over with other names."""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf


def batch_and_drop_remainder(batch_size) -> Callable[[tf.data.Dataset], tf.data.Dataset]:
    """For ``dataset.apply(...)``: batches of exactly ``batch_size`` elements, a last
    smaller one dropped (TF 1.15: ``Dataset.batch(batch_size, drop_remainder=True)``)."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(
    batch_size, padded_shapes, padding_values=None
) -> Callable[[tf.data.Dataset], tf.data.Dataset]:
    """``padded_batch`` that drops a last smaller batch."""
    return lambda dataset: dataset.padded_batch(
        batch_size, padded_shapes, padding_values, drop_remainder=True
    )
