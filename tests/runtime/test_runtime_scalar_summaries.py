"""Scalars written by the controller's ``write_scalars``: one event per value, at
its step, holding the ``Summary`` TF 1's scalar summary kernel made of it (a
``simple_value``), as the Estimator's hooks wrote ``loss`` and
``global_step/sec``; never TF 2's tensor summaries."""

import os

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.framework import summary_pb2

from estimator_revival.engine.scalar_summaries import write_scalars


def _events(directory) -> list:
    """Each summary event, in file order (one writer, one file)."""
    (name,) = [name for name in os.listdir(directory) if name.startswith("events.out")]
    return [
        event
        for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name))
        if event.HasField("summary")
    ]


@pytest.mark.parametrize(
    ("tag", "dtype"), [("loss", tf.float32), ("global_step/sec", tf.float64), ("l", tf.float16)]
)
def test_write_scalars_writes_tf1_scalar_summaries(tmp_path, tag, dtype):
    steps = [1, 101, 201, 301, 302, 303, 304, 305, 306, 307, 308, 999]
    values = np.random.RandomState(0).normal(size=len(steps)).astype(dtype.as_numpy_dtype)
    writer = tf.summary.create_file_writer(str(tmp_path))

    with tf.name_scope("outer"):  # the controller's scopes do not prefix the tag
        write_scalars(writer, tag, steps, values)
    writer.flush()

    written = _events(tmp_path)
    assert [event.step for event in written] == steps
    tf1_kernel = [
        summary_pb2.Summary.FromString(tf.raw_ops.ScalarSummary(tags=tag, values=value).numpy())
        for value in values
    ]
    assert [event.summary for event in written] == tf1_kernel
    assert {v.WhichOneof("value") for event in written for v in event.summary.value} == {
        "simple_value"
    }
