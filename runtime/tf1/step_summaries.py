"""model_fn's v1 summaries written from a sliced training step.

Under the Estimator, model_fn's ``tf.compat.v1.summary`` ops made serialized
``Summary`` protos, which the SummarySaverHook fetched with the step on summary
steps only (running what they needed: a metric's update op summarized ran on
those steps alone), and wrote as they were. A sliced training step
(graph_slice.py) can do the same with the discovery graph's own summary ops:
the step's slice also returns the step's tensors the summaries read, and on
summary steps a second slice, of the ops only the summaries need, turns those
into the protos, which the step writes raw. The events are then the ones the
Estimator wrote (``simple_value`` scalars, ``histo`` histograms, the same tags).

A summary of a variable (a histogram of the weights, the global step) reads it
as it was before the step: nothing ordered that read after the step's update,
and TF 1's Session ran such a read first, as the traced step reads it
(step_reads.py). There is no such pair, and the step is traced as before, when
the summaries' own ops draw random numbers, read a variable the step writes
after waiting for something, or write a variable the step reads or writes, or
one they also read before the step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import tensorflow as tf

from estimator_revival.tf1 import graph_slice, ref_variables
from estimator_revival.tf1.step_reads import variables_it_may_write


@dataclasses.dataclass(frozen=True)
class StepSummaries:
    """A training step whose slice outputs ``(loss, train_op, [tensors])``, and
    the slice turning the model's inputs, those tensors and the values of the
    variables ``read_before`` (read before the step) into the summaries'
    serialized protos."""

    step: graph_slice.GraphSlice
    summaries: graph_slice.GraphSlice
    read_before: tuple[str, ...]


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
    from_step, variable_values = _inputs_of(summaries, in_step)
    protos = graph_slice.slice_of(
        list(summaries),
        [*model_inputs, *from_step, *(value for value, _ in variable_values)],
        writes=True,
        ran_before=in_step,  # the step's ops have run when its summaries do
    )
    read_before = tuple(name for _, name in variable_values)
    if protos is None or _interferes(summaries[0].graph, in_step, step, protos, read_before):
        return None
    with_read = graph_slice.slice_of(
        (*step_outputs, from_step), model_inputs, writes=True, random=random
    )
    if with_read is None:
        return None
    return StepSummaries(step=with_read, summaries=protos, read_before=read_before)


def _interferes(
    graph: tf.Graph,
    in_step: frozenset,
    step: graph_slice.GraphSlice,
    protos: graph_slice.GraphSlice,
    read_before: tuple[str, ...],
) -> bool:
    """Whether the summaries' slice (``protos``) touches a variable the step
    (its ops named ``in_step``) writes, or writes one the step uses or one they
    read before the step: run after the step, it would then not see or leave
    what TF 1's run did."""
    written_by_step = _written(graph, in_step)
    written_by_summaries = _written(graph, protos.node_names())
    used_by_step = {name for _, name in step.variables}
    return any(variable in written_by_step for _, variable in protos.variables) or bool(
        written_by_summaries & (used_by_step | set(read_before))
    )


def _written(graph: tf.Graph, op_names: frozenset) -> set[str]:
    """The variables that the ops named ``op_names`` may write."""
    return {name for op in graph.get_operations() if op.name in op_names
            for name in variables_it_may_write(op)}  # fmt: skip


def _inputs_of(summaries: Sequence[tf.Tensor], in_step: frozenset) -> tuple[list, list]:
    """What the summaries' own ops take from elsewhere, through inputs and
    control inputs: the tensors of the step's ops (``in_step``: their names), and
    ``(value, variable name)`` for the plain reads of a variable, in the order
    they are first met."""
    from_step: dict = {}
    variable_values: dict = {}
    seen: set = set()
    for summary in summaries:  # a summary the step itself runs
        if summary.op.name in in_step:
            from_step.setdefault(summary.ref(), summary)
    pending = [summary.op for summary in reversed(summaries)]
    while pending:
        op = pending.pop()
        if op in seen or op.name in in_step:
            continue
        seen.add(op)
        updated = ref_variables.ref_positions(op) if ref_variables.takes_refs(op) else ()
        for index, tensor in reversed(list(enumerate(op.inputs))):
            variable = None if index in updated else _variable_read(tensor)
            if variable is not None:
                variable_values.setdefault(tensor.ref(), (tensor, variable))
            elif tensor.op.name in in_step and not _is_handle(tensor):
                from_step.setdefault(tensor.ref(), tensor)
            else:
                pending.append(tensor.op)
        pending.extend(op.control_inputs)
    return list(from_step.values()), list(variable_values.values())


def _variable_read(tensor: tf.Tensor) -> str | None:
    """The variable ``tensor`` is the plain value of (a ``ReadVariableOp`` waiting
    for nothing, a reference variable or an identity of one), if it is."""
    if tensor.dtype == tf.resource:
        return None
    if tensor.op.type == "ReadVariableOp":
        if tensor.op.control_inputs:
            return None
        tensor = tensor.op.inputs[0]
    while tensor.op.type == "Identity":
        tensor = tensor.op.inputs[0]
    is_variable = tensor.op.type == "VarHandleOp" or ref_variables.is_variable(tensor.op)
    return tensor.op.name if is_variable else None


def _is_handle(tensor: tf.Tensor) -> bool:
    return tensor.dtype == tf.resource or tensor.dtype._is_ref_dtype
