"""The training step as a slice of the discovery graph, alone or with what hooks
fetch.

Under the Estimator a training step was one Session run of ``train_op`` and
``loss``, and on a hooked step of the hooks' fetches too: tensors and ops of
model_fn's graph, asked for by name in ``before_run``. The discovery graph is
model_fn's graph, so both runs have a slice there (graph_slice.py): the ops that
Session run ran, imported into the step function, with no model_fn call, and
one more slice per new set of fetches. Where a run has no slice (a fetch the
discovery graph does not hold, an op no slice replays, a variable read after an
update of it), the step calls model_fn in its trace, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import tensorflow as tf

from estimator_revival.tf1 import graph_slice, ref_variables, step_reads, step_summaries


def step_slice(
    outputs: tuple, model_inputs: Sequence[tf.Tensor], model_ops: Sequence, random: Mapping
) -> graph_slice.GraphSlice | None:
    """The slice of the step's ``outputs`` (``loss``, ``train_op`` and more; its
    random ops drawing from the call's streams), unless one of its ops reads a
    variable after one of its ops that may write it: a function would order
    that read after the update, a TF 1 Session did not (step_reads.py). Writers
    the step does not run (a Saver's restore ops) do not count."""
    step = graph_slice.slice_of(outputs, model_inputs, writes=True, random=random)
    if step is None:
        return None
    in_step = step.node_names()
    if read_after_written([op for op in model_ops if op.name in in_step]):
        return None
    return step


def read_after_written(ops) -> frozenset:
    """The variables ``ops`` read after one of them may write them, without
    waiting for it: resource variables' reads (step_reads.py) and reference
    variables' (ref_variables.py)."""
    return step_reads.read_after_written(ops) | ref_variables.read_after_written(ops)


@dataclasses.dataclass(frozen=True)
class FetchingSlices:
    """A hooked step's slices: ``step`` outputs ``(loss, train_op, fetched)``
    (``fetched``: the elements fetched, in the order of their names); with
    model_fn's v1 summaries, ``summarized`` outputs them and the tensors its
    summaries read (None: they have no slice beside it)."""

    step: graph_slice.GraphSlice
    summarized: step_summaries.StepSummaries | None


class FetchingStep:
    """The discovery graph's training step with the fetches of hooked steps."""

    def __init__(
        self,
        *,
        loss: tf.Tensor,
        train_op: tf.Operation,
        model_inputs: Sequence[tf.Tensor],
        model_ops: Sequence[tf.Operation],
        random: Mapping[str, int],
    ) -> None:
        self._outputs = (loss, train_op)
        self._model_inputs = tuple(model_inputs)
        self._model_ops = tuple(model_ops)
        self._random = random
        self._slices: dict[tuple[str, ...], FetchingSlices | None] = {}

    def slices(self, names: tuple[str, ...]) -> FetchingSlices | None:
        """The slices of a step fetching ``names`` (made once per set of names),
        or None where there are none."""
        if names not in self._slices:
            self._slices[names] = self._sliced(names)
        return self._slices[names]

    def _sliced(self, names: tuple[str, ...]) -> FetchingSlices | None:
        graph = self._outputs[0].graph
        try:
            fetched = tuple(graph.as_graph_element(name) for name in names)
        except (KeyError, ValueError):
            return None  # not model_fn's: what the trace finds, or its error
        outputs = (*self._outputs, fetched)
        step = step_slice(outputs, self._model_inputs, self._model_ops, self._random)
        if step is None:
            return None
        summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
        summarized = None
        if summaries:
            summarized = step_summaries.sliced(
                summaries, outputs, self._model_inputs, step=step, random=self._random
            )
        return FetchingSlices(step=step, summarized=summarized)
