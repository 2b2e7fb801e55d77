"""model_fn's ``tf.compat.v1.summary`` ops, written as the Estimator wrote them.

The Estimator's ``SummarySaverHook`` ran ``merge_all()`` of the graph's SUMMARIES
collection (model_fn's summaries, then the ``loss`` scalar the Estimator added)
and wrote that one ``Summary`` per summary step: scalars as ``simple_value``,
histograms as TF 1's ``HistogramProto`` (the v1 kernel's exponential bucket
limits), images and audio as their protos. Under a default TF 2 writer the v1
ops would write TF 2's tensor summaries instead, which TensorBoard shows but the
tools reading ``simple_value`` from a model_dir read as 0. So while model_fn is
traced they stay TF 1's kernels (:func:`as_tf1_ops`), and the step writes their
merged proto raw (:func:`write`), as the sliced step writes the protos its
slice computes (step_summaries.py). Scalars the runtime writes itself (``loss``
between loop calls, ``global_step/sec``) are ``simple_value`` protos too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import summary_pb2
from tensorflow.python.summary import summary as summary_lib

# The v1 summary kernels (summary.py calls them through this module).
_KERNELS = (
    "scalar_summary",
    "histogram_summary",
    "image_summary",
    "audio_summary_v2",
    "tensor_summary_v2",
)


@contextlib.contextmanager
def as_tf1_ops() -> Iterator[None]:
    """While active, v1 summary ops build TF 1's kernels (each a serialized
    ``Summary``; TensorFlow turns them into TF 2 writes under a default writer),
    each run only where summaries record (an empty ``Summary`` elsewhere), as the
    Estimator ran them only on the steps its SummarySaverHook fetched them."""
    kernels = summary_lib._gen_logging_ops
    originals = {name: getattr(kernels, name) for name in _KERNELS}
    invokes_v2 = summary_lib._should_invoke_v2_op
    summary_lib._should_invoke_v2_op = lambda: False
    for name, kernel in originals.items():
        setattr(kernels, name, _when_recording(kernel))
    try:
        yield
    finally:
        summary_lib._should_invoke_v2_op = invokes_v2
        for name, kernel in originals.items():
            setattr(kernels, name, kernel)


def _when_recording(kernel):
    def recorded(*args, **kwargs):
        return tf.cond(
            tf.summary.should_record_summaries(),
            lambda: kernel(*args, **kwargs),
            lambda: tf.constant(b""),
        )

    return recorded


def merged_collection() -> tf.Tensor:
    """``merge_all()`` of the current graph's SUMMARIES (an empty ``Summary``
    when there are none)."""
    protos = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    return merged(protos)


def merged(protos: Sequence[tf.Tensor], loss_tag: str | None = None, loss=None) -> tf.Tensor:
    """``protos`` merged into one ``Summary``, with the Estimator's ``loss`` scalar
    last when ``loss_tag`` is given."""
    protos = list(protos)
    if loss_tag is not None:
        protos.append(tf.raw_ops.ScalarSummary(tags=loss_tag, values=loss))
    if not protos:
        return tf.constant(b"")
    return tf.raw_ops.MergeSummary(inputs=protos)


def write(writer, step, proto) -> tf.Operation:
    """``proto`` (a serialized ``Summary``) in ``writer``'s events at ``step``."""
    return tf.raw_ops.WriteRawProtoSummary(writer=writer._resource, step=step, tensor=proto)


def scalar(tag: str, value) -> bytes:
    """A serialized ``Summary`` of one ``simple_value`` (float32, as TF 1's)."""
    value_proto = summary_pb2.Summary.Value(tag=tag, simple_value=float(np.float32(value)))
    return summary_pb2.Summary(value=[value_proto]).SerializeToString()
