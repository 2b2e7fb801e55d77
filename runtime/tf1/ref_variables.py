"""A TF 1 graph's reference variables in a slice, as the store's resource variables.

A graph built with ``disable_v2_behavior`` (or by TF 1.x) holds reference
variables (``VariableV2``): ops take the variable's ref tensor itself.
``Assign``, ``Apply*`` and ``Scatter*`` updated it in place and returned the
updated ref. An op taking a value read the variable's buffer when it ran, and
so did an op given ``v/read`` (the ``Identity`` every conversion of the variable
returned): that identity shares the buffer, so an op ordered after an update
(``tf.control_dependencies([train_op])``) saw the updated value through it.

A slice (graph_slice.py) runs on the store's resource variables instead, so
each such node is written as its resource twin: each op that read a variable
(directly or through identities) first reads it with a ``ReadVariableOp`` of
its own, after the op's own control inputs, where TF 1 read it; an update is its
``Resource*`` op, followed, under the update's name, by a read of the variable
for what consumed the updated ref.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2, node_def_pb2
from tensorflow.python.framework import op_def_registry

from estimator_revival.tf1 import unfetched_updates

VARIABLE_OPS = frozenset({"VariableV2", "Variable"})
ASSIGNMENTS = {
    "Assign": "AssignVariableOp",
    "AssignAdd": "AssignAddVariableOp",
    "AssignSub": "AssignSubVariableOp",
}
# ApplyAdam -> ResourceApplyAdam, SparseApplyAdagrad -> ResourceSparseApplyAdagrad,
# ScatterAdd -> ResourceScatterAdd...
UPDATE_PREFIXES = ("Apply", "SparseApply", "Scatter")


def is_variable(op: tf.Operation) -> bool:
    return op.type in VARIABLE_OPS


def takes_refs(op: tf.Operation) -> bool:
    """Whether ``op`` takes a ref input (updates it in place, or passes it on)."""
    return any(arg.is_ref for arg in op.op_def.input_arg)


def replayable_update(op: tf.Operation, inputs: Sequence[tf.Tensor]) -> bool:
    """Whether ``op``, which takes refs, is an update with a resource twin whose
    refs are all variables (not a ref passed on by another op)."""
    if _resource_type(op) is None:
        return False
    return all(is_variable(inputs[index].op) for index in ref_positions(op))


def resource_nodes(
    op: tf.Operation, node: node_def_pb2.NodeDef, inputs: Sequence[tf.Tensor], given=frozenset()
) -> list[node_def_pb2.NodeDef]:
    """The slice's nodes for ``op`` (``node`` as the slice holds it, ``inputs`` its
    input tensors, ``given`` the refs of those the slice is given as they are):
    ``[node]`` when it takes no reference variable. A read comes just before its
    op in the slice, which a function runs in that order against the updates of
    the same variable."""
    refs = set(ref_positions(op)) if takes_refs(op) else set()
    control_inputs = [name for name in node.input if name.startswith("^")]
    nodes = []
    for index, variable in _values_read(inputs, refs):
        if inputs[index].ref() in given:
            continue
        read = _read(f"{op.name}/dereference_{index}", variable.outputs[0], control_inputs)
        nodes.append(read)
        node.input[index] = read.name
    if not refs:
        return [*nodes, node]
    update = node_def_pb2.NodeDef(name=f"{op.name}/resource_update", op=_resource_type(op))
    update.input.extend(node.input)
    _copy_attrs(node, update)
    updated = inputs[min(refs)]
    return [*nodes, update, _read(op.name, updated, [f"^{update.name}"])]


def read_after_written(ops: Iterable[tf.Operation]) -> frozenset[str]:
    """Names of the reference variables that ``ops`` (a graph's, in creation order)
    read after an op that updates them, without depending on that op (through
    inputs or control inputs): TF 1's Session raced the two."""
    writers: dict[str, list[tf.Operation]] = {}
    read_after: set[str] = set()
    for op in ops:
        refs = set(ref_positions(op)) if takes_refs(op) else set()
        earlier = {
            variable.name: writers[variable.name]
            for _, variable in _values_read(op.inputs, refs)
            if variable.name in writers
        }
        if earlier:
            waited_for = unfetched_updates.ancestors(op)
            read_after |= {
                name for name, updates in earlier.items() if not set(updates) <= waited_for
            }
        for index in refs:
            writers.setdefault(op.inputs[index].op.name, []).append(op)
    return frozenset(read_after)


def _values_read(inputs: Sequence[tf.Tensor], refs: set[int]) -> list[tuple[int, tf.Operation]]:
    """``(position, variable)`` for each input that is a variable's value: the
    variable itself at a position not taking a ref, or an identity of it."""
    read = []
    for index, tensor in enumerate(inputs):
        if index in refs:
            continue
        while tensor.op.type == "Identity":
            tensor = tensor.op.inputs[0]
        if is_variable(tensor.op):
            read.append((index, tensor.op))
    return read


def _resource_type(op: tf.Operation) -> str | None:
    name = ASSIGNMENTS.get(op.type)
    if name is None and op.type.startswith(UPDATE_PREFIXES):
        name = f"Resource{op.type}"
    return name if name and op_def_registry.get(name) is not None else None


def ref_positions(op: tf.Operation) -> list[int]:
    """The input positions where ``op`` takes a ref (its arguments are single
    tensors: updates take no lists)."""
    return [index for index, arg in enumerate(op.op_def.input_arg) if arg.is_ref]


def _read(name: str, variable: tf.Tensor, control_inputs: list[str]) -> node_def_pb2.NodeDef:
    read = node_def_pb2.NodeDef(name=name, op="ReadVariableOp")
    read.input.extend([variable.op.name, *control_inputs])
    read.attr["dtype"].CopyFrom(
        attr_value_pb2.AttrValue(type=variable.dtype.base_dtype.as_datatype_enum)
    )
    return read


def _copy_attrs(node: node_def_pb2.NodeDef, update: node_def_pb2.NodeDef) -> None:
    """``node``'s attributes that ``update``'s op has (``T`` as ``dtype`` where the
    resource op names it so)."""
    for attr in op_def_registry.get(update.op).attr:
        source = attr.name if attr.name in node.attr else {"dtype": "T"}.get(attr.name)
        if source in node.attr:
            update.attr[attr.name].CopyFrom(node.attr[source])
