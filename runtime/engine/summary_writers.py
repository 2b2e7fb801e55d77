"""One summary writer per directory in a process, as the Estimator's
``SummaryWriterCache`` (TF 1's ``FileWriterCache``) kept: every training call and
every evaluation, of any Estimator in the process, appends to the one events file
of its directory."""

from __future__ import annotations

import tensorflow as tf

_WRITERS: dict[str, tf.summary.SummaryWriter] = {}


def writer_for(directory: str) -> tf.summary.SummaryWriter:
    """This process's writer for ``directory`` (a new one if the directory went away)."""
    if directory not in _WRITERS or not tf.io.gfile.isdir(directory):
        _WRITERS[directory] = tf.summary.create_file_writer(directory)
    return _WRITERS[directory]
