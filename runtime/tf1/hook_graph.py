"""The graph hooks' ``begin()`` builds in, and what their session runs in it.

Under the Estimator, the ops a hook's ``begin()`` added to the model's graph ran
only when a Session run fetched them: ``session.run(self._bump)`` in
``after_run``, ``session.run(self._global_step)`` in ``end``. Here ``begin()``
runs inside a trace of the step, where model_fn's tensors are, and a traced step
runs every stateful op it holds; so each variable write ``begin()`` builds is
created there as a ``NoOp`` of the same name, its real node kept aside. A hook's
session then computes what it is asked (a tensor or an op of that graph) in a
function of its own, from the store's variables: the slice of the graph it
needs (runtime/tf1/graph_slice.py), the kept writes as ``begin()`` built them,
and the control dependencies the program gave its ops, not those tf.function
adds when the trace ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence

import tensorflow as tf
from tensorflow.core.framework import node_def_pb2
from tensorflow.python.eager import context
from tensorflow.python.framework import op_def_registry

from estimator_revival.distribute.replication import components
from estimator_revival.tf1 import built_initializers, graph_slice
from estimator_revival.tf1.discovery import CreationLog, variable_records
from estimator_revival.tf1.unfetched_updates import WRITE_PREFIXES

_PLACEHOLDERS = frozenset({"Placeholder", "PlaceholderWithDefault", "PlaceholderV2"})
_STEP_INPUTS = ("IteratorGetNext", "OptionalGetValue", "MultiDeviceIteratorGetNext")


@contextlib.contextmanager
def outside_the_graph() -> Iterator[None]:
    """Out of the graph hooks run in (a trace, or the discovery graph), eagerly:
    where the store's variables are read and a hook's session runs programs."""
    with tf.init_scope(), context.eager_mode():
        yield


class HookGraph(graph_slice.GraphView):
    """The graph hooks began in (``graph``) and the store of its variables."""

    def __init__(self, graph: tf.Graph, store) -> None:
        self.graph = graph
        self._store = store
        self._kept_writes: dict[str, tuple[node_def_pb2.NodeDef, tuple[tf.Tensor, ...]]] = {}
        self._control_inputs: dict[str, tuple[tf.Operation, ...]] = {}
        self._programs: dict[tuple, tf.types.experimental.PolymorphicFunction] = {}
        self._initializers: dict[str, tf.Operation] = {}

    @contextlib.contextmanager
    def beginning(self) -> Iterator[list[str]]:
        """Around hooks' ``begin()`` in the trace: their writes kept out of the
        step, the store's variables' initializers (assigns of their initial
        values) built on demand, the variables hooks create made the store's
        (yields their names)."""
        with (
            self._store.made_by_hooks() as made,
            self._writes_kept_aside(),
            self._initializers_on_demand(),
        ):
            yield made
        # before tf.function orders the trace's stateful ops (when the trace ends)
        self._control_inputs = {
            op.name: tuple(op.control_inputs) for op in self.graph.get_operations()
        }

    @contextlib.contextmanager
    def as_default(self, *, finalized: bool = False) -> Iterator[None]:
        """The graph as hooks' other methods saw the Estimator's: the default
        graph, a graph and not a function being built (its tensors hashable, so
        ``feed_dict={placeholder: value}`` works as in a Session's graph); with
        ``finalized``, finalized (a new op: TF 1's RuntimeError) but for the
        variables' initializers, which TF 1's graph held already."""
        graph = self.graph
        building = getattr(graph, "_building_function", None)
        finalize = finalized and not graph.finalized
        with graph.as_default(), self._initializers_on_demand():
            if building is not None:
                graph._building_function = False
            if finalize:
                graph.finalize()
            try:
                yield
            finally:
                if finalize:
                    graph._unsafe_unfinalize()
                if building is not None:
                    graph._building_function = building

    @contextlib.contextmanager
    def _writes_kept_aside(self) -> Iterator[None]:
        graph = self.graph
        create = graph._create_op_internal  # the graph's own, or another patch's

        def create_keeping_writes_aside(
            op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None, **kw
        ):
            if not _is_write(op_type):
                return create(op_type, inputs, dtypes, input_types, name, attrs=attrs, **kw)
            stand_in = create("NoOp", [], [], name=name)
            node = _node_def(stand_in.name, op_type, inputs, attrs)
            self._kept_writes[stand_in.name] = (node, tuple(inputs))
            return stand_in

        graph._create_op_internal = create_keeping_writes_aside
        try:
            yield
        finally:
            if getattr(create, "__self__", None) is graph:
                del graph._create_op_internal
            else:
                graph._create_op_internal = create

    @contextlib.contextmanager
    def _initializers_on_demand(self) -> Iterator[None]:
        """``variable.initializer`` (and so ``variables_initializer``) of the
        store's variables, which are created outside the graph and have none:
        an assign of the value the variable started from, built in the graph the
        first time it is asked for. (TF 1's initializer ran the initial value's
        ops again; a random one drew anew.) Built once the trace has ended, the
        assign is outside the traced step already."""

        def initializer(variable):
            name = self._store.name_of_handle(variable.handle)
            if name is None:
                return None
            if name not in self._initializers:
                self._initializers[name] = self._assign_initial_value(name, variable)
            return self._initializers[name]

        with built_initializers.built_by(initializer):
            yield

    def _assign_initial_value(self, name: str, variable) -> tf.Operation:
        graph = self.graph
        finalized = graph.finalized
        building = getattr(graph, "_building_function", None)
        if finalized:
            graph._unsafe_unfinalize()
        if building is not None:
            graph._building_function = True  # it captures the variable's handle
        try:
            initial = self._store.records([name])[0].initial_value
            with graph.as_default(), graph.name_scope(f"{name}/Assign"):
                return variable.assign(initial, read_value=False)
        finally:
            if building is not None:
                graph._building_function = building
            if finalized:
                graph.finalize()

    # ------------------------------------------------------------ GraphView
    def variable(self, op: tf.Operation) -> str | None:
        return self._captured_variables().get(op.name)

    def inputs(self, op: tf.Operation) -> Sequence[tf.Tensor]:
        kept = self._kept_writes.get(op.name)
        return op.inputs if kept is None else kept[1]

    def control_inputs(self, op: tf.Operation) -> Sequence[tf.Operation]:
        """As the program gave them: before the trace ended, or after it for the
        ops built then (an initializer)."""
        return self._control_inputs.get(op.name, op.control_inputs)

    def node_def(self, op: tf.Operation) -> node_def_pb2.NodeDef:
        kept = self._kept_writes.get(op.name)
        node = node_def_pb2.NodeDef()
        node.CopyFrom(op.node_def if kept is None else kept[0])
        data_inputs = [name for name in node.input if not name.startswith("^")]
        del node.input[:]
        node.input.extend(data_inputs)
        node.input.extend(f"^{control.name}" for control in self.control_inputs(op))
        if "_class" in node.attr:
            del node.attr["_class"]
        return node

    def _captured_variables(self) -> dict[str, str]:
        """``{placeholder op name: variable name}`` of the store variables the
        trace captured."""
        handles = {
            id(component.handle): name
            for name, variable in self._store.items()
            for component in components(variable)
        }
        return {
            internal.op.name: handles[id(external)]
            for external, internal in getattr(self.graph, "captures", ())
            if id(external) in handles
        }

    # ------------------------------------------------------------- running
    def run(self, elements: Sequence, feeds: Mapping | None = None, *, where: str) -> list:
        """The values of ``elements`` (tensors and ops of the graph; None for an
        op), computed now from the store's variables and ``feeds`` (``{tensor of
        the graph: value}``, placeholders a hook made), the writes among them
        done, as a Session run of them did."""
        feeds = dict(feeds or {})
        fed = tuple(feeds)
        key = (tuple(element.name for element in elements), tuple(t.name for t in fed))
        if key not in self._programs:
            self._programs[key] = self._program(elements, fed, where)
        with outside_the_graph():
            values = self._programs[key](
                [tf.convert_to_tensor(feeds[tensor], tensor.dtype) for tensor in fed]
            )
        return [value.numpy() if value is not None else None for value in values]

    def _program(self, elements: Sequence, fed: Sequence[tf.Tensor], where: str):
        try:
            graph_piece = graph_slice.required_slice(list(elements), fed, writes=True, view=self)
        except graph_slice.Unsliceable as error:
            raise RuntimeError(_unservable(where, elements, error.op)) from None
        store = self._store

        @tf.function(autograph=False)
        def program(values):
            outputs = graph_piece.compute(store, values)
            return [output if isinstance(output, tf.Tensor) else None for output in outputs]

        return program


class DiscoveryHookGraph(HookGraph):
    """Hooks' graph where the Estimator's hooks began: model_fn's graph as TF 1
    built it (the discovery graph). What ``begin()`` builds there runs only when
    a step fetches it or a hook's session runs it, as in a Session; a variable
    it creates is a variable of that graph, and the store's too (its value
    restored or initialized as the Estimator's Saver and init op set it)."""

    @contextlib.contextmanager
    def beginning(self) -> Iterator[list[str]]:
        made: list[str] = []
        log = CreationLog()
        with tf.variable_creator_scope(log.creator):
            yield made
        records = variable_records(self.graph, log.created)
        with outside_the_graph():  # the store's variables live outside any graph
            made.extend(self._store.materialize(records))

    def variable(self, op: tf.Operation) -> str | None:
        return graph_slice.GraphView.variable(self, op)

    def inputs(self, op: tf.Operation) -> Sequence[tf.Tensor]:
        return op.inputs

    def control_inputs(self, op: tf.Operation) -> Sequence[tf.Operation]:
        return op.control_inputs

    def node_def(self, op: tf.Operation) -> node_def_pb2.NodeDef:
        return graph_slice.GraphView.node_def(self, op)


def _is_write(op_type: str) -> bool:
    """A variable write with no outputs (nothing downstream can tell a stand-in)."""
    if not op_type.startswith(WRITE_PREFIXES):
        return False
    op_def = op_def_registry.get(op_type)
    return op_def is not None and not op_def.output_arg


def _node_def(name: str, op_type: str, inputs, attrs) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(name=name, op=op_type)
    node.input.extend(
        tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"
        for tensor in inputs
    )
    for key, value in (attrs or {}).items():
        node.attr[key].CopyFrom(value)
    return node


def _unservable(where: str, elements: Sequence, blocker: tf.Operation | None) -> str:
    asked = ", ".join(repr(element.name) for element in elements)
    if blocker is None:
        why = "it is not a tensor or op of the model's graph"
    elif blocker.type in _PLACEHOLDERS:
        why = f"it needs the placeholder {blocker.name!r}, which the run did not feed"
    elif blocker.type.startswith(_STEP_INPUTS):
        why = (
            f"it is computed from the step's input (features, labels: {blocker.name!r}), "
            "which only a step reads"
        )
    else:
        why = f"it runs {blocker.name!r} ({blocker.type}), which only the step itself can run"
    return (
        f"Hook {where} runs {asked} with its session; under the runtime a hook's session "
        f"computes what depends on variables, constants and fed placeholders alone, and {why}. "
        "Request the tensor through before_run(SessionRunArgs(...)) instead, or move the work "
        "into model_fn."
    )
