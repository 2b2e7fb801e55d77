"""Variable writes that model_fn builds: which of them a TF1 Session ran.

A TF1 Session ran only what Estimator fetched: train_op and the loss in TRAIN
(and the summaries, on summary steps), the metric updates and the loss in EVAL,
the predictions in PREDICT, plus whatever hooks asked for. A write built beside
them never happened: batch norm's UPDATE_OPS left out of train_op's
dependencies, a train_op built in every mode and returned in EVAL too, or a
metric's own update op when the program updates the metric's variables itself.
``tf.function`` runs every stateful op it traces, so discovery classifies, in
the legacy graph, each write op model_fn built, named by the variable it writes
and its place among the writes of that variable (:data:`Write`): run on every
step, only where the summaries need it, or never. While model_fn is traced,
each write is created as that write ran: as is, as a no-op, or inside a
condition on whether the step records summaries. A hook that fetches one of
those ops, or anything computed after it, by name or tensor, gets it run as in
TF1: the step is traced knowing the hooks' fetches.

A variable's initializer is a write too. The Estimator's Session ran it once,
at its creation, unless a step fetched it: a program that resets its metric
counters each step (``tf.compat.v1.initializers.variables(...)`` under the
control dependencies of what it summarizes) ran the initial assignments in
every such step. The store's variables are created outside the trace and have
no initializer op (session_setup.py makes it an op that does nothing); where a
step of the legacy graph ran one, the traced ``variable.initializer`` assigns
the variable's recorded initial value in the step, as that step ran it. (TF 1's
initializer ran the initial value's ops again; a random initial value drew
anew, where the runtime assigns the first draw.)
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
from collections.abc import Iterator, Mapping, Sequence

import tensorflow as tf

from estimator_revival.distribute.replication import components
from estimator_revival.tf1 import built_initializers

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

# A write op of model_fn: (the variable's name, its index among the writes of
# that variable model_fn built, in creation order). Both graphs model_fn builds
# create them in the same order, whatever their op types (ref or resource).
Write = tuple[str, int]


@dataclasses.dataclass(frozen=True)
class StepWrites:
    """The writes of model_fn's graph that a step of one mode did not run on every
    step, and the initializers it did run."""

    skipped: frozenset[Write] = frozenset()  # never ran
    on_summary_steps: frozenset[Write] = frozenset()  # ran where summaries recorded
    # {op name: the writes above that the op depends on}: a hook fetching the op
    # made TF1 run them
    feeding: Mapping[str, frozenset[Write]] = dataclasses.field(default_factory=dict)
    # variables whose initializer ran in every step, and on summary steps only
    initialized: frozenset[str] = frozenset()
    initialized_on_summary_steps: frozenset[str] = frozenset()

    def fetching(self, fetch_names=()) -> StepWrites:
        """The writes of a step that also fetches ``fetch_names`` (hooks' tensor
        and op names)."""
        fed = frozenset().union(*(self.feeding.get(name.split(":")[0], ()) for name in fetch_names))
        return dataclasses.replace(
            self, skipped=self.skipped - fed, on_summary_steps=self.on_summary_steps - fed
        )

    @property
    def all_as_traced(self) -> bool:
        """Whether the step ran every write as traced, and no initializer."""
        return not (
            self.skipped
            or self.on_summary_steps
            or self.initialized
            or self.initialized_on_summary_steps
        )

    @property
    def skipped_variables(self) -> list[str]:
        return sorted({name for name, _ in self.skipped})


def step_writes(
    model_ops: Sequence[tf.Operation], initializers: Mapping[str, tf.Operation], fetches
) -> StepWrites:
    """How a Session running ``fetches = (every step, on summary steps)`` ran the
    writes among ``model_ops`` (a legacy graph's ops model_fn built, in creation
    order, without variable initializers) and the ``initializers`` ``{variable
    name: its initializer op}``."""
    every_step, summaries = fetches
    needed = ancestors(every_step)
    summary_needed = ancestors(summaries) - needed
    writes = _writes(model_ops)
    skipped = {write for op, keys in writes.items() if op not in needed for write in keys}
    on_summary_steps = {write for op in summary_needed for write in writes.get(op, ())}
    skipped -= on_summary_steps
    return StepWrites(
        skipped=frozenset(skipped),
        on_summary_steps=frozenset(on_summary_steps),
        feeding=_feeding(model_ops, writes, skipped | on_summary_steps),
        initialized=frozenset(name for name, op in initializers.items() if op in needed),
        initialized_on_summary_steps=frozenset(
            name for name, op in initializers.items() if op in summary_needed
        ),
    )


def _writes(model_ops: Sequence[tf.Operation]) -> dict[tf.Operation, frozenset[Write]]:
    counts: collections.Counter = collections.Counter()
    writes = {}
    for op in model_ops:
        if not op.type.startswith(WRITE_PREFIXES):
            continue
        keys = []
        for name in sorted(variables_taken(op)):
            keys.append((name, counts[name]))
            counts[name] += 1
        writes[op] = frozenset(keys)
    return writes


def _feeding(model_ops, writes, among: set) -> dict[str, frozenset[Write]]:
    """For each op that is, or depends on, one of the writes ``among``: those
    writes, by op name."""
    feeding: dict[str, frozenset[Write]] = {}
    if not among:  # the usual case: no pass over a large graph for nothing
        return feeding
    for op in model_ops:  # creation order: inputs come first
        written = writes.get(op, frozenset()) & among
        for dependency in [*(tensor.op for tensor in op.inputs), *op.control_inputs]:
            written |= feeding.get(dependency.name, frozenset())
        if written:
            feeding[op.name] = written
    return feeding


def log_skipped(writes: StepWrites, mode: str) -> None:
    if writes.skipped:
        log.info(
            "model_fn builds updates of %s that tf.estimator never ran in %s mode "
            "(nothing it fetched depends on them, e.g. batch norm UPDATE_OPS outside "
            "train_op's control dependencies); they are not run here either, unless a hook "
            "fetches them.",
            ", ".join(writes.skipped_variables),
            mode,
        )


@contextlib.contextmanager
def rewritten(store, writes: StepWrites) -> Iterator[None]:
    """While active (around model_fn in a trace), each write op created in the
    default graph to a variable of ``store`` (the VariableStore) runs as
    ``writes`` says the legacy step ran it: not at all (a ``NoOp``), only where
    summaries record (``tf.summary.should_record_summaries()``), or as is; and
    ``variable.initializer`` assigns the recorded initial value where the
    legacy step ran the initializer.

    Resource writes have no outputs, so nothing downstream can tell the
    difference, except that the write does not happen (or happens only then).
    """
    if writes.all_as_traced:
        yield
        return
    graph = tf.compat.v1.get_default_graph()
    names = {
        id(component.handle): name
        for name, variable in store.items()
        for component in components(variable)
    }
    # per variable (each component of a mirrored one: its replica's writes, or
    # the strategy's updates of each component in a merge_call)
    counts: collections.Counter = collections.Counter()
    create = graph._create_op_internal  # the one entry every op creation goes through
    building_initializer: list[bool] = []  # non-empty while an initializer is built

    def create_rewritten(op_type, inputs, dtypes=None, input_types=None, name=None, **kw):
        if not op_type.startswith(WRITE_PREFIXES) or building_initializer:
            return create(op_type, inputs, dtypes, input_types, name, **kw)
        keys = set()
        for handle, variable in _written(inputs, names):
            keys.add((variable, counts[handle]))
            counts[handle] += 1
        if keys and keys <= writes.skipped:
            return create("NoOp", [], [], name=name)
        if keys and keys <= writes.on_summary_steps:
            return _when_summaries_record(
                lambda: tf.compat.v1.get_default_graph()._create_op_internal(
                    op_type, inputs, dtypes, input_types, name, **kw
                )
            )
        return create(op_type, inputs, dtypes, input_types, name, **kw)

    graph._create_op_internal = create_rewritten
    try:
        with _initializers_as_run(store, names, writes, building_initializer):
            yield
    finally:
        del graph._create_op_internal


@contextlib.contextmanager
def _initializers_as_run(store, names: dict, writes: StepWrites, building: list) -> Iterator[None]:
    """``variable.initializer`` of the store's variables whose initializer the
    legacy step ran: an assignment of the recorded initial value, in every step
    or on summary steps only, built once per variable (component) and trace.
    (``building`` is non-empty while it is built: it is not one of model_fn's
    own writes.)"""
    run = writes.initialized | writes.initialized_on_summary_steps
    if not run:
        yield
        return
    built: dict[int, tf.Operation] = {}

    def initializer(variable):
        name = names.get(id(variable.handle))
        if name not in run:
            return None
        if id(variable) not in built:
            initial = store.records([name])[0].initial_value
            assign = lambda: variable.assign(initial, read_value=False)  # noqa: E731
            building.append(True)
            try:
                summary_only = name in writes.initialized_on_summary_steps
                built[id(variable)] = _when_summaries_record(assign) if summary_only else assign()
            finally:
                building.pop()
        return built[id(variable)]

    with built_initializers.built_by(initializer):
        yield


def _when_summaries_record(write) -> tf.Operation:
    """``write()`` inside a ``tf.cond`` on whether summaries record in this step:
    a write only the summaries fetched ran on summary steps alone."""

    def branch():
        write()  # in the branch's graph, which captures what it takes
        return tf.constant(True)

    written = tf.cond(tf.summary.should_record_summaries(), branch, lambda: tf.constant(False))
    return written.op


def _written(inputs, names: dict) -> set[tuple[int, str]]:
    """``(id of the handle, name)`` of the store's variables (components) among a
    write op's inputs."""
    resources = (tensor for tensor in inputs if tensor.dtype == tf.resource)
    handles = {id(handle) for handle in map(_outermost, resources)}
    return {(handle, names[handle]) for handle in handles if handle in names}


def _outermost(tensor):
    """The eager handle (or outermost tensor) that function-graph captures stand for."""
    while True:
        graph = getattr(tensor, "graph", None)  # eager tensors have none
        captures = getattr(graph, "captures", ())
        external = {id(internal): outer for outer, internal in captures}.get(id(tensor))
        if external is None:
            return tensor
        tensor = external


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
