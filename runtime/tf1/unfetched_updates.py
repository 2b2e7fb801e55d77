"""Variable updates that model_fn builds but Estimator never ran.

A TF1 Session ran only what Estimator fetched: train_op and the loss in TRAIN
(and the summaries, on summary steps), the metric updates and the loss in EVAL,
the predictions in PREDICT, plus whatever hooks asked for. An update built
beside them never happened: batch norm's UPDATE_OPS left out of train_op's
dependencies, or a train_op built in every mode and returned in EVAL too.
``tf.function`` runs every stateful op it traces, so discovery finds, in the
legacy graph, the variables that only unfetched ops write; while model_fn is
traced, writes to those variables are created as no-ops. Updates that only the
summaries depend on (a metric's update op summarized in TRAIN mode) ran on
summary steps alone: their writes are created inside a condition on whether the
step records summaries. A hook that fetches one of those ops, or anything
computed after it, by name or tensor, gets it run as in TF1: the step is traced
knowing the hooks' fetches.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator

import tensorflow as tf

from estimator_revival.distribute.replication import components

# Op types that write a variable (ref and resource kinds): Assign, AssignAdd,
# AssignVariableOp, ApplyAdam, ResourceApplyAdam, ScatterAdd, ...
WRITE_PREFIXES = (
    "Assign",
    "Apply",
    "SparseApply",
    "Scatter",
    "ResourceApply",
    "ResourceSparseApply",
    "ResourceScatter",
    "ResourceStridedSliceAssign",
    "StridedSliceAssign",
    "CountUpTo",
    "ResourceCountUpTo",
)
_VARIABLE_OPS = ("VarHandleOp", "VariableV2", "Variable")
log = logging.getLogger("tensorflow")


def writes_nothing_fetched(model_ops: Iterable[tf.Operation], fetches) -> frozenset:
    """Names of the variables that, in a legacy graph, only ops outside the
    ancestry of ``fetches`` write (pass ``model_ops`` without initializers)."""
    needed = ancestors(fetches)
    fetched, unfetched = set(), set()
    for op in model_ops:
        (fetched if op in needed else unfetched).update(_written_variables(op))
    return frozenset(unfetched - fetched)


def writes_feeding(model_ops: Iterable[tf.Operation], variables: frozenset) -> dict:
    """For each op of a legacy graph that is, or depends on, a write of one of
    ``variables`` (their unfetched writes): the variables those writes update,
    by op name. A hook that fetched such an op made TF1 run the writes."""
    feeding: dict[str, frozenset] = {}
    if not variables:  # the usual case: no pass over a large graph for nothing
        return feeding
    for op in model_ops:  # creation order: inputs come first
        written = frozenset(_written_variables(op) & variables)
        for dependency in [*(tensor.op for tensor in op.inputs), *op.control_inputs]:
            written |= feeding.get(dependency.name, frozenset())
        if written:
            feeding[op.name] = written
    return feeding


def log_skipped(names: frozenset, mode: str) -> None:
    if names:
        log.info(
            "model_fn builds updates of %s that tf.estimator never ran in %s mode "
            "(nothing it fetched depends on them, e.g. batch norm UPDATE_OPS outside "
            "train_op's control dependencies); they are not run here either, unless a hook "
            "fetches them.",
            ", ".join(sorted(names)),
            mode,
        )


@contextlib.contextmanager
def rewritten(variables, *, skipped: frozenset, on_summary_steps: frozenset) -> Iterator[None]:
    """While active, ops created in the default graph that write only variables
    named in ``skipped`` (of the ``{name: variable}`` mapping ``variables``, e.g.
    the VariableStore) are created as ``NoOp``, and those that write only
    variables named in ``on_summary_steps`` run only where summaries record
    (``tf.summary.should_record_summaries()``).

    Resource writes have no outputs, so nothing downstream can tell the
    difference, except that the write does not happen (or happens only then).
    """
    if not skipped and not on_summary_steps:
        yield
        return
    graph = tf.compat.v1.get_default_graph()
    skipped_handles = _handles(variables, skipped)
    summary_handles = _handles(variables, on_summary_steps)
    create = graph._create_op_internal  # the one entry every op creation goes through

    def create_rewritten(op_type, inputs, dtypes=None, input_types=None, name=None, **kw):
        if op_type.startswith(WRITE_PREFIXES):
            if _only_in(inputs, skipped_handles):
                return create("NoOp", [], [], name=name)
            if _only_in(inputs, summary_handles):
                return _when_summaries_record(op_type, inputs, dtypes, input_types, name, kw)
        return create(op_type, inputs, dtypes, input_types, name, **kw)

    graph._create_op_internal = create_rewritten
    try:
        yield
    finally:
        del graph._create_op_internal


def _when_summaries_record(op_type, inputs, dtypes, input_types, name, kw) -> tf.Operation:
    """The write, inside a ``tf.cond`` on whether summaries record in this step:
    an update only the summaries fetched ran on summary steps alone."""

    def write():
        graph = tf.compat.v1.get_default_graph()  # the branch's: it captures the inputs
        graph._create_op_internal(op_type, inputs, dtypes, input_types, name, **kw)
        return tf.constant(True)

    written = tf.cond(tf.summary.should_record_summaries(), write, lambda: tf.constant(False))
    return written.op


def _handles(variables, names: frozenset) -> set[int]:
    return {
        id(component.handle)
        for name, variable in variables.items()
        if name in names
        for component in components(variable)
    }


def _only_in(inputs, handles: set) -> bool:
    resources = [tensor for tensor in inputs if tensor.dtype == tf.resource]
    return bool(resources) and all(id(_outermost(tensor)) in handles for tensor in resources)


def _outermost(tensor):
    """The eager handle (or outermost tensor) that function-graph captures stand for."""
    while True:
        graph = getattr(tensor, "graph", None)  # eager tensors have none
        captures = getattr(graph, "captures", ())
        external = {id(internal): outer for outer, internal in captures}.get(id(tensor))
        if external is None:
            return tensor
        tensor = external


def _written_variables(op: tf.Operation) -> set[str]:
    if not op.type.startswith(WRITE_PREFIXES):
        return set()
    return variables_taken(op)


def variables_taken(op: tf.Operation) -> set[str]:
    """Names of the variables whose handle (or ref) ``op`` takes as an input."""
    names = set()
    for tensor in op.inputs:
        if tensor.dtype == tf.resource or tensor.dtype._is_ref_dtype:
            while tensor.op.type == "Identity":
                tensor = tensor.op.inputs[0]
            if tensor.op.type in _VARIABLE_OPS:
                names.add(tensor.op.name)
    return names


def ancestors(fetches) -> set[tf.Operation]:
    """The ops that running ``fetches`` (a nest of tensors, operations and
    variables) runs: theirs, and those they wait for through inputs and control
    inputs."""
    # A fetched variable is the one ``variable.assign(...)`` returns (e.g. a
    # metric's update op): its ``op`` is the assignment.
    pending = [
        item if isinstance(item, tf.Operation) else item.op
        for item in tf.nest.flatten(fetches)
        if isinstance(item, (tf.Tensor, tf.Operation, tf.Variable))
    ]
    seen: set[tf.Operation] = set()
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        pending.extend(tensor.op for tensor in op.inputs)
        pending.extend(op.control_inputs)
    return seen
