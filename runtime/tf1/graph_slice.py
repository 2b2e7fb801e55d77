"""Tensors of the discovery graph computed again, in a traced function, from the
store's variables (and the step's inputs) without calling model_fn.

The discovery graph already holds the ops model_fn built. Where what a program
needs depends on variables and given inputs alone, through stateless ops and
variable reads (and, for metric updates and training steps, variable assignments
and optimizer updates), those ops are imported into the function, each
variable's handle standing in for the graph's: the same ops with the same
attributes, at the cost of a GraphDef import instead of a model_fn call. That is
the case for almost every metric (v1 metrics, Keras metrics, the canned heads':
updated from the batch, and read once after the last update, as Estimator's
FinalOpsHook fetched them), for the predictions of models without lookup tables
or random ops, and for the training step (``train_op`` and ``loss``, as the
Estimator's session fetched them) of such models. What reads anything else, or
runs other stateful ops, has no slice; its program calls model_fn, as before.

A hook's session computes what it is asked the same way, from the traced graph
its ``begin()`` ran in (runtime/tf1/hook_graph.py supplies a :class:`GraphView`
of it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import tensorflow as tf
from tensorflow.core.framework import graph_pb2, node_def_pb2

from estimator_revival.tf1 import initialized_tables, ref_variables
from estimator_revival.tf1.random_streams import RandomStreams

_VARIABLE = "VarHandleOp"
_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape"})
# The resource twins of TF 1's assignments and updates (ref_variables.py): an
# assignment, or an optimizer's update of a variable and its slots, dense or sparse
# (ResourceApplyAdam, ResourceSparseApplyAdagrad, ResourceScatterAdd...)
_WRITES = frozenset(ref_variables.ASSIGNMENTS.values())
_UPDATE_PREFIXES = tuple(f"Resource{prefix}" for prefix in ref_variables.UPDATE_PREFIXES)
_GRAPH_INPUTS = frozenset({"Placeholder", "PlaceholderWithDefault", "PlaceholderV2"})


@dataclasses.dataclass(frozen=True)
class GraphSlice:
    """The ops computing ``structure``'s tensors (named by its leaves) from
    variables (``variables``: the slice's tensor that stands for each, and the
    store's name of it) and the tensors named ``inputs``."""

    graph_def: bytes
    variables: tuple[tuple[str, str], ...]
    inputs: tuple[str, ...]
    structure: object  # a nest of tensor (or operation) names
    read_inputs: frozenset[str]  # the inputs the slice's ops read
    # The seeded Philox ops among the slice's (random_streams.py): (name, occurrence)
    random_ops: tuple[tuple[str, int], ...] = ()

    def compute(
        self,
        variables: Mapping[str, tf.Variable],
        inputs: Sequence[tf.Tensor] = (),
        streams: RandomStreams | None = None,
    ):
        """The tensors of ``structure``, in the graph being built (a function's),
        reading ``variables[name]`` for each of the slice's variables and taking
        ``inputs`` for its inputs, in order; its random ops draw from ``streams``."""
        graph = tf.compat.v1.get_default_graph()
        given = dict(zip(self.inputs, inputs, strict=True))
        input_map = {
            tensor: graph.capture(variables[name].handle) for tensor, name in self.variables
        }
        input_map.update((name, given[name]) for name in self.read_inputs)
        computed = [name for name in tf.nest.flatten(self.structure) if name not in given]
        random_names = [name for name, _ in self.random_ops]
        imported = tf.graph_util.import_graph_def(
            graph_pb2.GraphDef.FromString(self.graph_def),
            input_map=input_map,
            return_elements=computed + random_names,
            name="",
        )
        given.update(zip(computed, imported[: len(computed)], strict=True))
        for op, (_, occurrence) in zip(imported[len(computed) :], self.random_ops, strict=True):
            _draw_from_stream(op, occurrence, streams)
        return tf.nest.map_structure(given.__getitem__, self.structure)

    def nodes(self) -> list[node_def_pb2.NodeDef]:
        """The graph's ops the slice runs (its variables' aside), in creation order."""
        return list(graph_pb2.GraphDef.FromString(self.graph_def).node)

    def node_names(self) -> frozenset[str]:
        return frozenset(node.name for node in self.nodes())


def _draw_from_stream(op: tf.Operation, occurrence: int, streams: RandomStreams | None) -> None:
    """Makes the consumers of the imported Philox op ``op`` read its stream's draw
    instead (``op`` then runs no more: nothing needs it). Left as it is without
    a stream, as the trace leaves such an op."""
    drawn = None if streams is None else streams.drawn_instead(op, occurrence)
    if drawn is None:
        return
    for consumer in op.outputs[0].consumers():
        for index, tensor in enumerate(consumer.inputs):
            if tensor is op.outputs[0]:
                consumer._update_input(index, drawn)


class GraphView:
    """How a slice reads a graph's ops. This one: a graph as TF 1 built it (a
    discovery graph), where each variable is a ``VarHandleOp`` of its name."""

    def variable(self, op: tf.Operation) -> str | None:
        """The store's name of the variable ``op`` stands for, if it does (a
        reference variable's too: ref_variables.py)."""
        return op.name if op.type == _VARIABLE or ref_variables.is_variable(op) else None

    def inputs(self, op: tf.Operation) -> Sequence[tf.Tensor]:
        return op.inputs

    def control_inputs(self, op: tf.Operation) -> Sequence[tf.Operation]:
        return op.control_inputs

    def node_def(self, op: tf.Operation) -> node_def_pb2.NodeDef:
        """``op`` as the slice's GraphDef holds it (no colocation with a variable
        op the slice leaves out)."""
        node = node_def_pb2.NodeDef()
        node.CopyFrom(op.node_def)
        if "_class" in node.attr:
            del node.attr["_class"]
        return node


def model_inputs(features, labels) -> list:
    """model_fn's features and labels as a slice takes them: the leaves, with
    composite tensors expanded to their components, in nest order."""
    leaves = tf.nest.flatten((features, labels), expand_composites=True)
    return [leaf for leaf in leaves if leaf is not None]


class Unsliceable(Exception):
    """Why a structure has no slice: ``op``, which a slice cannot replay (None: a
    leaf or an input that is not a tensor of the graph)."""

    def __init__(self, op: tf.Operation | None) -> None:
        super().__init__(op)
        self.op = op


def slice_of(
    structure,
    inputs: Sequence = (),
    *,
    writes: bool = False,
    random: Mapping[str, int] | None = None,
    view: GraphView | None = None,
    ran_before: frozenset[str] = frozenset(),
    tables: bool = False,
) -> GraphSlice | None:
    """:func:`required_slice`, or None where there is none."""
    try:
        return required_slice(
            structure,
            inputs,
            writes=writes,
            random=random,
            view=view,
            ran_before=ran_before,
            tables=tables,
        )
    except Unsliceable:
        return None


def required_slice(
    structure,
    inputs: Sequence = (),
    *,
    writes: bool = False,
    random: Mapping[str, int] | None = None,
    view: GraphView | None = None,
    ran_before: frozenset[str] = frozenset(),
    tables: bool = False,
) -> GraphSlice:
    """The slice computing ``structure`` (a nest of one graph's tensors, or with
    ``writes`` operations too) from ``inputs`` (tensors of that graph). Raises
    :class:`Unsliceable` when a leaf or an input is something else, or the ops
    between them do more than read variables (with ``writes``: and assign to
    them; with ``random``, ``{op name: occurrence}`` of the graph's Philox ops:
    and draw from their streams; with ``tables``: and look keys up in tables
    their initializers fill, initialized_tables.py). ``view``: how to read the
    graph (default: as TF 1 built it). ``ran_before``: names of ops that have run
    before the slice runs; a control dependency on one of them is met already,
    and left out."""
    view = view or GraphView()
    leaves = tf.nest.flatten(structure)
    kinds = (tf.Tensor, tf.Operation) if writes else tf.Tensor
    if not leaves or not all(isinstance(leaf, kinds) for leaf in leaves):
        raise Unsliceable(None)
    if not all(isinstance(tensor, tf.Tensor) for tensor in inputs):
        raise Unsliceable(None)
    given = {tensor.ref() for tensor in inputs}
    computed = [_op_of(leaf) for leaf in leaves if not _is_given(leaf, given)]
    needed = _ops_computing(
        computed,
        given,
        writes=writes,
        random=random or {},
        view=view,
        ran_before=ran_before,
        tables=tables,
    )
    graph = leaves[0].graph
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.CopyFrom(graph.graph_def_versions)
    variables = []
    # A control dependency on a variable's op (tf.control_dependencies([v])) is
    # left out: the store's variable exists before any step; so is one on an op
    # that ran before.
    left_out = {f"^{name}" for name in ran_before}
    random_ops = []
    for op in graph.get_operations():  # creation order: inputs come first
        if op not in needed:
            continue
        variable = view.variable(op)
        if variable is not None:  # stands for the store's variable of that name
            variables.append((f"{op.name}:0", variable))
            left_out.add(f"^{op.name}")
            continue
        if op.name in (random or {}):
            random_ops.append((op.name, random[op.name]))
        node = view.node_def(op)
        node.input[:] = [name for name in node.input if name not in left_out]
        node.input.extend(initialized_tables.initialized_before(op))
        graph_def.node.extend(ref_variables.resource_nodes(op, node, view.inputs(op), given))
    return GraphSlice(
        graph_def=graph_def.SerializeToString(),
        variables=tuple(variables),
        inputs=tuple(tensor.name for tensor in inputs),
        structure=tf.nest.map_structure(lambda leaf: leaf.name, structure),
        read_inputs=frozenset(
            tensor.name for op in needed for tensor in view.inputs(op) if tensor.ref() in given
        ),
        random_ops=tuple(random_ops),
    )


def _is_given(leaf, given) -> bool:
    return isinstance(leaf, tf.Tensor) and leaf.ref() in given


def _op_of(leaf) -> tf.Operation:
    return leaf.op if isinstance(leaf, tf.Tensor) else leaf


def _ops_computing(
    outputs,
    given,
    *,
    writes: bool,
    random: Mapping,
    view: GraphView,
    ran_before: frozenset,
    tables: bool,
) -> set:
    """The ops running ``outputs`` (ops) runs (through inputs and control inputs,
    up to the tensors ``given``; a table's initializers with the table);
    :class:`Unsliceable` when one of them reads anything else, runs a function,
    or has state other than variable reads (and ``writes``, ``tables``)."""
    needed: set = set()
    pending = list(outputs)
    while pending:
        op = pending.pop()
        if op in needed:
            continue
        needed.add(op)
        if view.variable(op) is not None:
            continue
        table_op = tables and initialized_tables.is_table_op(op)
        if not (table_op or _replayable(op, view.inputs(op), writes=writes) or op.name in random):
            raise Unsliceable(op)
        pending.extend(tensor.op for tensor in view.inputs(op) if tensor.ref() not in given)
        pending.extend(c for c in view.control_inputs(op) if c.name not in ran_before)
        if table_op and op.type in initialized_tables.CREATORS:
            pending.extend(initialized_tables.initializers_of(op))
    return needed


def _replayable(op: tf.Operation, inputs: Sequence[tf.Tensor], *, writes: bool) -> bool:
    if op.type in _READS or (writes and writes_variables(op.type)):
        return True
    if ref_variables.takes_refs(op):  # an update of reference variables, not stateful
        return writes and ref_variables.replayable_update(op, inputs)
    if op.type in _GRAPH_INPUTS or op.op_def.is_stateful:
        return False
    return not any(value.HasField("func") or value.list.func for value in op.node_def.attr.values())


def writes_variables(op_type: str) -> bool:
    """Whether ops of ``op_type`` write resource variables (assignments, updates)."""
    return op_type in _WRITES or op_type.startswith(_UPDATE_PREFIXES)
