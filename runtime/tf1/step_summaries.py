"""model_fn's v1 summaries written from a sliced training step.

Under the Estimator, model_fn's ``tf.compat.v1.summary`` ops were pure ops whose
outputs, serialized ``Summary`` protos, the SummarySaverHook fetched with the
step on summary steps only, and wrote as they were. A sliced training step
(graph_slice.py) can do the same with the discovery graph's own summary ops:
the step's slice also returns the step's tensors the summaries read, and on
summary steps a second slice, of the ops only the summaries need, turns those
into the protos, which the step writes raw. The events are then the ones the
Estimator wrote (``simple_value`` scalars, ``histo`` histograms, the same tags).

There is no such pair, and the step is traced as before, when the summaries'
own ops do more than pure computation on the step's tensors and its inputs:
when they update a variable (a metric's update op, run on summary steps), draw
random numbers, or read a variable the step writes (a loss scale, the global
step, a histogram of the weights): TF 1's Session raced such a read with the
update, and the traced step reproduces the order it usually took
(step_reads.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import tensorflow as tf

from runtime.tf1 import graph_slice, unfetched_updates
from runtime.tf1.step_reads import READ_ONLY_OPS


@dataclasses.dataclass(frozen=True)
class StepSummaries:
    """A training step whose slice outputs ``(loss, train_op, [tensors])`` and
    the slice turning the model's inputs and those tensors into the summaries'
    serialized protos."""

    step: graph_slice.GraphSlice
    summaries: graph_slice.GraphSlice


def sliced(
    summaries: Sequence[tf.Tensor],
    step_outputs: tuple,
    model_inputs: Sequence[tf.Tensor],
    *,
    step: graph_slice.GraphSlice,
    random=None,
) -> StepSummaries | None:
    """The slices writing ``summaries`` (the graph's SUMMARIES collection) beside
    the sliced ``step`` of ``step_outputs`` (``(loss, train_op)``), or None."""
    in_step = step.node_names()
    read = _step_tensors_read(summaries, in_step)
    protos = graph_slice.slice_of(list(summaries), [*model_inputs, *read])
    if protos is None:
        return None
    step_ops = [op for op in summaries[0].graph.get_operations() if op.name in in_step]
    written = {name for op in step_ops if op.type not in READ_ONLY_OPS
               for name in unfetched_updates.variables_taken(op)}  # fmt: skip
    if any(variable in written for _, variable in protos.variables):
        return None
    with_read = graph_slice.slice_of(
        (*step_outputs, read), model_inputs, writes=True, random=random
    )
    return StepSummaries(step=with_read, summaries=protos) if with_read is not None else None


def _step_tensors_read(summaries: Sequence[tf.Tensor], in_step: frozenset) -> list[tf.Tensor]:
    """The tensors of the step's ops (``in_step``: their names) that the
    summaries' other ops take, in the order they are first met; a variable's
    value (its ref, handle or an identity of one) is left to the summaries."""
    found: dict = {}
    seen: set = set()
    pending = list(reversed(summaries))
    while pending:
        tensor = pending.pop()
        if tensor.ref() in seen:
            continue
        seen.add(tensor.ref())
        if tensor.op.name in in_step and not _variable_value(tensor):
            found.setdefault(tensor.ref(), tensor)
            continue
        pending.extend(reversed(tensor.op.inputs))
    return list(found.values())


def _variable_value(tensor: tf.Tensor) -> bool:
    if tensor.dtype == tf.resource or tensor.dtype._is_ref_dtype:
        return True
    while tensor.op.type == "Identity":
        tensor = tensor.op.inputs[0]
        if tensor.dtype == tf.resource or tensor.dtype._is_ref_dtype:
            return True
    return False
