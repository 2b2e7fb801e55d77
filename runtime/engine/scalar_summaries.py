"""Many values of one scalar summary, written as the Estimator's hooks wrote them.

The controller replays the default hooks' summaries after each loop call: a
``loss`` every ``save_summary_steps`` and a ``global_step/sec`` every
``log_step_count_steps``. The Estimator's hooks wrote each as a TF 1 ``Summary``
with a ``simple_value`` (runtime/tf1/v1_summaries.py); so does this, one raw
write per value, without ``tf.summary.scalar``'s Python (about half a
millisecond per value, a few percent of a short ``train()``).
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from estimator_revival.tf1 import v1_summaries


def write_scalars(writer, tag: str, steps: Sequence[int], values: Sequence) -> None:
    """``tag`` at each of ``steps`` with the matching value, in order."""
    for step, value in zip(steps, values, strict=True):
        tf.raw_ops.WriteRawProtoSummary(
            writer=writer._resource,  # the file writer's resource, as tf.summary.write uses it
            step=step,
            tensor=v1_summaries.scalar(tag, value),
        )
