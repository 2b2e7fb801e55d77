"""The graph an Estimator's model_dir held: ``graph.pbtxt``, the graph in the
events file (TensorBoard's graph tab) and a ``model.ckpt-N.meta`` beside each
checkpoint (for ``tf.compat.v1.train.import_meta_graph`` and a Saver's
``restore``), as its CheckpointSaverHook wrote them when training began and at
each save. They come from the graph discovery built model_fn in, laid out as the
Estimator built its training graph, with a Saver of its global variables, whose
keys are the checkpoints' keys.
"""

from __future__ import annotations

import os

import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import graph_pb2
from tensorflow.python.lib.io import file_io


class GraphFiles:
    """Writes ``graph``'s files; the Saver and the MetaGraph are made once.
    ``previous``: the files of the call before, whose nodes' text this graph's
    ``graph.pbtxt`` reuses where its nodes are the same."""

    def __init__(self, graph: tf.Graph, previous: GraphFiles | None = None) -> None:
        self.graph = graph
        self._saver: tf.compat.v1.train.Saver | None = None
        self._meta_graph: bytes | None = None
        self._node_texts: dict[bytes, str] = {}
        self._known_texts = previous._node_texts if previous is not None else {}

    def write_graph(self, directory: str, summary_writer) -> None:
        """``graph.pbtxt`` in ``directory``, and the graph in the events file."""
        graph_def = self._graph_def()
        tf.io.gfile.makedirs(directory)
        path = os.path.join(directory, "graph.pbtxt")
        file_io.atomic_write_string_to_file(path, self._text(graph_def))
        with summary_writer.as_default():
            tf.summary.graph(graph_def)

    def write_meta_graph(self, checkpoint_path: str) -> None:
        if self._meta_graph is None:
            self._meta_graph = self._export_meta_graph()
        with tf.io.gfile.GFile(f"{checkpoint_path}.meta", "wb") as file:
            file.write(self._meta_graph)

    def _text(self, graph_def: graph_pb2.GraphDef) -> str:
        """``graph_def`` in text format, as ``tf.io.write_graph`` writes it. Every
        call builds model_fn's graph again, mostly the same nodes: each node's
        text is made once and taken from the call before where it is the same."""
        parts = []
        for node in graph_def.node:
            key = node.SerializeToString(deterministic=True)
            text = self._known_texts.get(key)
            if text is None:
                text = "node {\n" + text_format.MessageToString(node, indent=2) + "}\n"
            self._node_texts[key] = text
            parts.append(text)
        rest = graph_pb2.GraphDef()  # what follows the nodes: library, versions
        rest.CopyFrom(graph_def)
        del rest.node[:]
        parts.append(text_format.MessageToString(rest))
        return "".join(parts)

    def _graph_def(self):
        self._build_saver()
        return self.graph.as_graph_def(add_shapes=True)

    def _build_saver(self) -> tf.compat.v1.train.Saver:
        """The Saver the Estimator's Scaffold built (sharded, relative paths)."""
        if self._saver is None:
            with self.graph.as_default():
                self._saver = tf.compat.v1.train.Saver(
                    sharded=True, save_relative_paths=True, allow_empty=True
                )
        return self._saver

    def _export_meta_graph(self) -> bytes:
        saver_def = self._build_saver().saver_def
        with self.graph.as_default():  # (it refuses to run eagerly)
            meta_graph = tf.compat.v1.train.export_meta_graph(
                graph=self.graph, saver_def=saver_def, clear_devices=True
            )
        return meta_graph.SerializeToString()
