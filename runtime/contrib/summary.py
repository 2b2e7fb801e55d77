"""``tf.contrib.summary`` with TF 1.15's behaviour.

TF 1.15's ``tf.contrib.summary`` was TensorFlow's ``summary_ops_v2`` module, whose
functions TensorFlow 2 still ships (privately) next to the ``tf.summary`` ones it
made public with other rules. These are those functions, so that contrib code
keeps what it meant:

- a summary is written only inside ``always_record_summaries()`` or
  ``record_summaries_every_n_global_steps(n)`` (``tf.summary`` writes by default);
- ``step`` defaults to the global step (``tf.summary`` needs one set);
- the tag is the summary's name scope, made unique in the graph (a second
  ``loss`` is ``loss_1``), with ``family`` as its prefix (``family/family/name``);
  ``tf.summary`` has no family and does not make tags unique;
- ``image`` takes ``max_images`` and ``bad_color``.

``create_file_writer`` is TF 2's writer (the same event-file kernels), created
where a traced step keeps it alive; TF 1 ran the legacy writer's initializer
once per Session, which has no place in a ``tf.function``. ``create_db_writer``
(SQLite) is gone from TensorFlow 2 and not here.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2

audio = summary_ops_v2.audio
generic = summary_ops_v2.generic
histogram = summary_ops_v2.histogram
image = summary_ops_v2.image
scalar = summary_ops_v2.scalar
graph = summary_ops_v2.graph_v1
import_event = summary_ops_v2.import_event

always_record_summaries = summary_ops_v2.always_record_summaries
never_record_summaries = summary_ops_v2.never_record_summaries
record_summaries_every_n_global_steps = summary_ops_v2.record_summaries_every_n_global_steps
should_record_summaries = summary_ops_v2._legacy_contrib_should_record_summaries

all_summary_ops = summary_ops_v2.all_v2_summary_ops
summary_writer_initializer_op = summary_ops_v2.summary_writer_initializer_op
initialize = summary_ops_v2.initialize
flush = summary_ops_v2.flush
eval_dir = summary_ops_v2.eval_dir
SummaryWriter = summary_ops_v2.SummaryWriter


def create_file_writer(
    logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None
) -> SummaryWriter:
    """A summary writer for ``logdir`` (contrib's arguments; None: a no-op writer)."""
    if logdir is None:
        return summary_ops_v2.create_noop_writer()
    return tf.summary.create_file_writer(
        str(logdir),
        max_queue=max_queue,
        flush_millis=flush_millis,
        filename_suffix=filename_suffix,
        name=name,
    )


create_summary_file_writer = create_file_writer
