"""Scalars written by the controller's ``write_scalars``: the same events, in the
same order, as one eager ``tf.summary.scalar`` per value."""

import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.engine.scalar_summaries import write_scalars


def _events(directory) -> list:
    """Each event with its wall time zeroed, in file order (one writer, one file)."""
    (name,) = [name for name in os.listdir(directory) if name.startswith("events.out")]
    found = []
    for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name)):
        if event.HasField("summary"):
            event.wall_time = 0
            found.append(event)
    return found


@pytest.mark.parametrize(
    ("tag", "dtype"), [("loss", tf.float32), ("global_step/sec", tf.float64), ("l", tf.float16)]
)
def test_write_scalars_writes_the_events_of_one_eager_scalar_per_value(tmp_path, tag, dtype):
    steps = [1, 101, 201, 301, 302, 303, 304, 305, 306, 307, 308, 999]
    values = np.random.RandomState(0).normal(size=len(steps)).astype(dtype.as_numpy_dtype)
    series_writer = tf.summary.create_file_writer(str(tmp_path / "series"))
    eager_writer = tf.summary.create_file_writer(str(tmp_path / "eager"))

    with tf.name_scope("outer"):  # the controller's scopes do not prefix the tag
        write_scalars(series_writer, tag, steps, values)
    with eager_writer.as_default():
        for step, value in zip(steps, values, strict=True):
            tf.summary.scalar(tag, value, step=step)
    series_writer.flush()
    eager_writer.flush()

    written = _events(tmp_path / "series")
    assert [event.step for event in written] == steps
    assert [value.tag for event in written for value in event.summary.value] == [tag] * len(steps)
    assert written == _events(tmp_path / "eager")
