"""Evaluation results written for TensorBoard under ``eval/`` or ``eval_<name>/``.

The events carry the very ``Summary`` protos Estimator wrote (``simple_value``
scalars, tensor protos for arrays, the ``checkpoint_path`` string), because tools
read them back by that shape: ``BestExporter`` compares ``simple_value``s.
Each directory gets one events file per process (summary_writers.py): the
evaluations of a ``continuous_train_and_eval`` follow one another in it.
"""

from __future__ import annotations

import logging

import numpy as np
import tensorflow as tf
from google.protobuf import message
from tensorflow.core.framework import summary_pb2

from estimator_revival.engine.summary_writers import writer_for

log = logging.getLogger("tensorflow")


def write_eval_summaries(eval_dir: str, values: dict, step: int, checkpoint_path) -> None:
    summaries = [_values_summary(values)]
    if checkpoint_path:
        summary = summary_pb2.Summary()
        summary.value.add(
            tag="checkpoint_path",
            tensor=tf.make_tensor_proto(checkpoint_path, dtype=tf.string),
        )
        summaries.append(summary)
    writer = writer_for(eval_dir)
    with writer.as_default(step=step):
        for summary in summaries:
            tf.summary.experimental.write_raw_pb(summary.SerializeToString())
    writer.flush()


def _values_summary(values: dict) -> summary_pb2.Summary:
    summary = summary_pb2.Summary()
    for key, value in values.items():
        if value is None or key == "global_step":
            continue
        if isinstance(value, (float, np.floating)):
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, (int, np.integer)):
            summary.value.add(tag=key, simple_value=int(value))
        elif isinstance(value, bytes):
            summary.value.extend(_serialized_summary_values(key, value))
        elif isinstance(value, np.ndarray):
            summary.value.add(tag=key, node_name=key, tensor=tf.make_tensor_proto(value))
        else:
            log.warning(
                "Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 "
                "or int or np.ndarray or a serialized string of Summary.",
                key,
            )
    return summary


def _serialized_summary_values(key: str, serialized: bytes) -> list:
    """A metric whose value is a serialized Summary (e.g. an image): its values,
    tagged ``<key>/<index>``."""
    try:
        parsed = summary_pb2.Summary.FromString(serialized)
    except message.DecodeError:
        log.warning("Skipping summary for %s, cannot parse string to Summary.", key)
        return []
    for index, value in enumerate(parsed.value):
        value.tag = f"{key}/{index}"
    return list(parsed.value)
