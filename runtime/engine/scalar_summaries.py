"""Many values of one scalar summary, written as ``tf.summary.scalar`` writes them.

The controller replays the default hooks' summaries after each loop call: a
``loss`` every ``save_summary_steps`` and a ``global_step/sec`` every
``log_step_count_steps``. An eager ``tf.summary.scalar`` spends about half a
millisecond in Python per value (name scopes, metadata, conditions), a few
percent of a short ``train()``; the op it ends in, ``WriteSummary``, takes a
tenth of that. The events are the same: the value cast to float32, the scalars
plugin's metadata, the tag as given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import tensorflow as tf
from tensorboard.plugins.scalar import metadata as scalar_metadata

_SCALAR_METADATA = scalar_metadata.create_summary_metadata(
    display_name=None, description=None
).SerializeToString()


def write_scalars(writer, tag: str, steps: Sequence[int], values: Sequence) -> None:
    """``tag`` at each of ``steps`` with the matching value, in order."""
    for step, value in zip(steps, values, strict=True):
        tf.raw_ops.WriteSummary(
            writer=writer._resource,  # the file writer's resource, as tf.summary.write uses it
            step=step,
            tensor=np.float32(value),
            tag=tag,
            summary_metadata=_SCALAR_METADATA,
        )
