"""The graph an Estimator's model_dir held: ``graph.pbtxt``, the graph in the
events file (TensorBoard's graph tab) and a ``model.ckpt-N.meta`` beside each
checkpoint (for ``tf.compat.v1.train.import_meta_graph`` and a Saver's
``restore``), as its CheckpointSaverHook wrote them when training began and at
each save. They come from the graph discovery built model_fn in, laid out as the
Estimator built its training graph, with a Saver of its global variables, whose
keys are the checkpoints' keys.
"""

from __future__ import annotations

import copy
import dataclasses
import os

import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import attr_value_pb2, graph_pb2, node_def_pb2
from tensorflow.core.protobuf import meta_graph_pb2
from tensorflow.python.lib.io import file_io


class GraphFiles:
    """Writes ``graph``'s files. ``previous``: the files of the call before.

    Every call builds model_fn's graph again, mostly the same one. Where it is
    the previous one node for node (functions named by use: their names end with
    a counter of the process) and collection for collection, but for the values
    of some constants (the seeds tf-keras' initializers drew from Python's
    ``random`` in each call), its files are the previous ones with those values
    put in: no Saver or MetaGraph is made again. Otherwise they are made anew,
    the text of each node taken from the call before where it is the same."""

    def __init__(self, graph: tf.Graph, previous: GraphFiles | None = None) -> None:
        self.graph = graph
        self._layout = _Layout.of(graph)
        constants = previous._layout.changed_constants(self._layout) if previous else None
        if constants is None:
            known = previous._contents.node_texts if previous is not None else {}
            self._contents = _GraphContents(graph, known_texts=known)
        else:
            self._contents = previous._contents.with_constants(constants)

    def write_graph(self, directory: str, summary_writer) -> None:
        """``graph.pbtxt`` in ``directory``, and the graph in the events file."""
        tf.io.gfile.makedirs(directory)
        path = os.path.join(directory, "graph.pbtxt")
        file_io.atomic_write_string_to_file(path, self._contents.text())
        with summary_writer.as_default():
            tf.summary.graph(self._contents.graph_def())

    def write_meta_graph(self, checkpoint_path: str) -> None:
        with tf.io.gfile.GFile(f"{checkpoint_path}.meta", "wb") as file:
            file.write(self._contents.meta_graph())


@dataclasses.dataclass(frozen=True)
class _Layout:
    """A graph as :class:`GraphFiles` compares it with the call before's: each
    node with its functions named by use, the rest of the GraphDef (functions,
    versions) so named, and what the collections hold by name (a MetaGraph holds
    them too)."""

    nodes: tuple[node_def_pb2.NodeDef, ...]
    rest: bytes
    collections: tuple

    @classmethod
    def of(cls, graph: tf.Graph) -> _Layout:
        graph_def = graph.as_graph_def()
        _name_functions_by_use(graph_def)
        collections = tuple(
            (
                key,
                tuple(
                    getattr(item, "name", type(item).__name__) for item in graph.get_collection(key)
                ),
            )
            for key in sorted(graph.get_all_collection_keys(), key=str)
        )
        rest = _without_nodes(graph_def).SerializeToString(deterministic=True)
        return cls(tuple(graph_def.node), rest, collections)

    def changed_constants(self, other: _Layout) -> dict[str, attr_value_pb2.AttrValue] | None:
        """``{name: value}`` of the constants whose values alone differ in
        ``other``; None where anything else differs."""
        if (self.rest, self.collections, len(self.nodes)) != (
            other.rest,
            other.collections,
            len(other.nodes),
        ):
            return None
        changed = {}
        for node, new in zip(self.nodes, other.nodes, strict=True):
            if node == new:
                continue
            if not _same_but_the_value(node, new):
                return None
            changed[node.name] = new.attr["value"]
        return changed


def _same_but_the_value(node: node_def_pb2.NodeDef, new: node_def_pb2.NodeDef) -> bool:
    """Whether ``new`` is the constant ``node`` with another value of its dtype
    and shape."""
    if node.op != "Const" or new.op != "Const":
        return False
    old_value, new_value = node.attr["value"].tensor, new.attr["value"].tensor
    if (old_value.dtype, old_value.tensor_shape) != (new_value.dtype, new_value.tensor_shape):
        return False
    node, new = copy.deepcopy(node), copy.deepcopy(new)
    del node.attr["value"], new.attr["value"]
    return node == new


class _GraphContents:
    """What the files hold, each made on first use: the graph with the Saver the
    Estimator's Scaffold built (sharded, relative paths), its GraphDef, the text
    of ``graph.pbtxt`` (node by node) and the MetaGraph."""

    def __init__(self, graph: tf.Graph | None, *, known_texts: dict[bytes, str]) -> None:
        self._graph = graph
        self._known_texts = known_texts
        self.node_texts: dict[bytes, str] = {}
        self._saver: tf.compat.v1.train.Saver | None = None
        self._graph_def: graph_pb2.GraphDef | None = None
        self._parts: list[str] | None = None
        self._meta_graph: bytes | None = None

    def with_constants(self, values: dict[str, attr_value_pb2.AttrValue]) -> _GraphContents:
        """These contents with the constants named in ``values`` set to them."""
        if not values:
            return self
        patched = _GraphContents(None, known_texts={})
        patched._parts = list(self._text_parts())
        patched.node_texts = dict(self.node_texts)
        patched._graph_def = graph_pb2.GraphDef()
        patched._graph_def.CopyFrom(self.graph_def())
        for index, node in enumerate(patched._graph_def.node):
            if node.name in values:
                del patched.node_texts[node.SerializeToString(deterministic=True)]
                node.attr["value"].CopyFrom(values[node.name])
                patched._parts[index] = patched._node_text(node)
        meta_graph = meta_graph_pb2.MetaGraphDef.FromString(self.meta_graph())
        for node in meta_graph.graph_def.node:
            if node.name in values:
                node.attr["value"].CopyFrom(values[node.name])
        patched._meta_graph = meta_graph.SerializeToString()
        return patched

    def graph_def(self) -> graph_pb2.GraphDef:
        if self._graph_def is None:
            self._build_saver()
            self._graph_def = self._graph.as_graph_def(add_shapes=True)
        return self._graph_def

    def text(self) -> str:
        """The GraphDef in text format, as ``tf.io.write_graph`` writes it."""
        return "".join(self._text_parts())

    def _text_parts(self) -> list[str]:
        """Each node's text, then the rest's (the library, the versions)."""
        if self._parts is None:
            parts = [self._node_text(node) for node in self.graph_def().node]
            parts.append(text_format.MessageToString(_without_nodes(self.graph_def())))
            self._parts = parts
            self._known_texts = {}  # the call before's, no longer needed
        return self._parts

    def _node_text(self, node: node_def_pb2.NodeDef) -> str:
        key = node.SerializeToString(deterministic=True)
        text = self._known_texts.get(key)
        if text is None:
            text = "node {\n" + text_format.MessageToString(node, indent=2) + "}\n"
        self.node_texts[key] = text
        return text

    def meta_graph(self) -> bytes:
        if self._meta_graph is None:
            saver_def = self._build_saver().saver_def
            with self._graph.as_default():  # (it refuses to run eagerly)
                meta_graph = tf.compat.v1.train.export_meta_graph(
                    graph=self._graph, saver_def=saver_def, clear_devices=True
                )
            self._meta_graph = meta_graph.SerializeToString()
        return self._meta_graph

    def _build_saver(self) -> tf.compat.v1.train.Saver:
        if self._saver is None:
            with self._graph.as_default():
                self._saver = tf.compat.v1.train.Saver(
                    sharded=True, save_relative_paths=True, allow_empty=True
                )
        return self._saver


def _without_nodes(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """A copy of ``graph_def``'s rest: its functions and versions."""
    rest = graph_pb2.GraphDef()
    rest.CopyFrom(graph_def)
    del rest.node[:]
    return rest


def _name_functions_by_use(graph_def: graph_pb2.GraphDef) -> None:
    """Renames ``graph_def``'s functions ``function_0``, ``function_1``... in the
    order the nodes, then the functions' own nodes, first use them, and sorts
    the library by those names (its order follows the old names' hashes)."""
    library = {function.signature.name: function for function in graph_def.library.function}
    names: dict[str, str] = {}

    def rename(name: str) -> str:
        if name in library and name not in names:
            names[name] = f"function_{len(names)}"
        return names.get(name, name)

    def rename_uses(nodes) -> None:
        for node in nodes:
            node.op = rename(node.op)
            for key in sorted(node.attr):  # (a map: its order varies)
                value = node.attr[key]
                if value.HasField("func"):
                    value.func.name = rename(value.func.name)
                for function in value.list.func:
                    function.name = rename(function.name)

    rename_uses(graph_def.node)
    renamed = 0
    while renamed < len(names):  # the functions' own nodes may use more of them
        rename_uses(library[list(names)[renamed]].node_def)
        renamed += 1
    for function in library.values():
        function.signature.name = rename(function.signature.name)
    for gradient in graph_def.library.gradient:
        gradient.function_name = rename(gradient.function_name)
        gradient.gradient_func = rename(gradient.gradient_func)
    functions = sorted(library.values(), key=lambda function: function.signature.name)
    del graph_def.library.function[:]
    graph_def.library.function.extend(functions)
