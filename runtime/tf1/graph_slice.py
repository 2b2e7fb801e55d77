"""Tensors of the discovery graph computed again, in a traced function, from the
store's variables (and the step's features) without calling model_fn.

The discovery graph already holds the ops model_fn built. Where the tensors a
program needs depend on variables and given inputs alone, through stateless ops
and variable reads, those ops are imported into the function, each variable's
handle standing in for the graph's: the same ops with the same attributes, at
the cost of a GraphDef import instead of a model_fn call. That is the case for
almost every metric value (v1 metrics, Keras metrics, the canned heads': read
once after the last update, as Estimator's FinalOpsHook fetched them) and for
the predictions of models without lookup tables or random ops. Tensors that
read anything else, or run other stateful ops, have no slice; their program
calls model_fn, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import tensorflow as tf
from tensorflow.core.framework import graph_pb2

_VARIABLE = "VarHandleOp"
_READ = "ReadVariableOp"
_GRAPH_INPUTS = frozenset({"Placeholder", "PlaceholderWithDefault", "PlaceholderV2"})


@dataclasses.dataclass(frozen=True)
class GraphSlice:
    """The ops computing ``structure``'s tensors (named by its leaves) from the
    variables named ``variables`` and the tensors named ``inputs``."""

    graph_def: bytes
    variables: tuple[str, ...]
    inputs: tuple[str, ...]
    structure: object  # a nest of tensor names
    read_inputs: frozenset[str]  # the inputs the slice's ops read

    def compute(self, variables: Mapping[str, tf.Variable], inputs: Sequence[tf.Tensor] = ()):
        """The tensors of ``structure``, in the graph being built (a function's),
        reading ``variables[name]`` for each of the slice's variables and taking
        ``inputs`` for its inputs, in order."""
        graph = tf.compat.v1.get_default_graph()
        given = dict(zip(self.inputs, inputs, strict=True))
        input_map = {f"{name}:0": graph.capture(variables[name].handle) for name in self.variables}
        input_map.update((name, given[name]) for name in self.read_inputs)
        computed = [name for name in tf.nest.flatten(self.structure) if name not in given]
        outputs = tf.graph_util.import_graph_def(
            graph_pb2.GraphDef.FromString(self.graph_def),
            input_map=input_map,
            return_elements=computed,
            name="",
        )
        given.update(zip(computed, outputs, strict=True))
        return tf.nest.map_structure(given.__getitem__, self.structure)


def slice_of(structure, inputs: Sequence = ()) -> GraphSlice | None:
    """The slice computing ``structure`` (a nest of one graph's tensors) from
    ``inputs`` (tensors of that graph), or None when a leaf or an input is not
    a tensor, or the ops between them do more than read variables."""
    leaves = tf.nest.flatten(structure)
    if not leaves or not all(isinstance(leaf, tf.Tensor) for leaf in [*leaves, *inputs]):
        return None
    given = {tensor.ref() for tensor in inputs}
    needed = _ops_computing([leaf for leaf in leaves if leaf.ref() not in given], given)
    if needed is None:
        return None
    graph = leaves[0].graph
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.CopyFrom(graph.graph_def_versions)
    variables = []
    for op in graph.get_operations():  # creation order: inputs come first
        if op not in needed:
            continue
        if op.type == _VARIABLE:
            variables.append(op.name)  # stands for the store's variable of that name
            continue
        node = graph_def.node.add()
        node.CopyFrom(op.node_def)
        if "_class" in node.attr:  # colocation with a variable op left out
            del node.attr["_class"]
    return GraphSlice(
        graph_def=graph_def.SerializeToString(),
        variables=tuple(variables),
        inputs=tuple(tensor.name for tensor in inputs),
        structure=tf.nest.map_structure(lambda tensor: tensor.name, structure),
        read_inputs=frozenset(
            tensor.name for op in needed for tensor in op.inputs if tensor.ref() in given
        ),
    )


def _ops_computing(outputs, given) -> set | None:
    """The ops ``outputs`` run on (through inputs and control inputs, up to the
    tensors ``given``), or None when one of them reads anything else, runs a
    function, or has state other than a variable read."""
    needed: set = set()
    pending = [tensor.op for tensor in outputs]
    while pending:
        op = pending.pop()
        if op in needed:
            continue
        needed.add(op)
        if op.type == _VARIABLE:
            continue
        if not _replayable(op):
            return None
        pending.extend(tensor.op for tensor in op.inputs if tensor.ref() not in given)
        pending.extend(op.control_inputs)
    return needed


def _replayable(op: tf.Operation) -> bool:
    if op.type == _READ:
        return True
    if op.type in _GRAPH_INPUTS or op.op_def.is_stateful:
        return False
    return not any(value.HasField("func") or value.list.func for value in op.node_def.attr.values())
