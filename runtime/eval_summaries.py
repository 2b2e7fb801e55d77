"""Evaluation results written for TensorBoard under ``eval/`` or ``eval_<name>/``."""

from __future__ import annotations

import numpy as np
import tensorflow as tf


def write_eval_summaries(eval_dir: str, values: dict, step: int, checkpoint_path) -> None:
    writer = tf.summary.create_file_writer(eval_dir)
    with writer.as_default(step=step):
        for key, value in values.items():
            if key == "global_step":
                continue
            if np.ndim(value) == 0 and np.issubdtype(np.asarray(value).dtype, np.number):
                tf.summary.scalar(key, value)
            else:
                tf.summary.write(key, tf.convert_to_tensor(value))
        if checkpoint_path:
            tf.summary.text("checkpoint_path", tf.constant(checkpoint_path))
    writer.flush()
    writer.close()
