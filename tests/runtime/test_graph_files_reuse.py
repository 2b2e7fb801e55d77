"""A call's graph files made from the call before's (runtime/saving/graph_files.py)
are the files made from its own graph: where only constants' values changed (the
seeds tf-keras' initializers draw in every call), and where the graph changed."""

import random

import tensorflow as tf
from tensorflow.core.protobuf import meta_graph_pb2

from estimator_revival.saving.graph_files import GraphFiles


def model_graph(units: int = 8, *, draws: int = 0) -> tf.Graph:
    """A v1 layers model as a call builds it, its initializers' seeds drawn from
    Python's generator (seeded with ``draws``)."""
    random.seed(draws)
    graph = tf.Graph()
    with graph.as_default():
        features = tf.compat.v1.placeholder(tf.float32, [None, 4])
        hidden = tf.compat.v1.layers.dense(features, units, activation=tf.nn.relu)
        tf.compat.v1.layers.dense(hidden, 2)
    return graph


def files(graph_files: GraphFiles, directory) -> tuple[str, meta_graph_pb2.MetaGraphDef]:
    """``(graph.pbtxt, the .meta)`` as written."""
    with tf.summary.create_noop_writer().as_default():
        graph_files.write_graph(str(directory), tf.summary.create_noop_writer())
    graph_files.write_meta_graph(str(directory / "model.ckpt-1"))
    meta_graph = (directory / "model.ckpt-1.meta").read_bytes()
    return (directory / "graph.pbtxt").read_text(), meta_graph_pb2.MetaGraphDef.FromString(
        meta_graph
    )


def test_a_graph_that_differs_in_its_seeds_gets_its_own_seeds_in_the_files(tmp_path):
    first, second = model_graph(draws=1), model_graph(draws=2)
    seeds = [op.name for op in second.get_operations() if op.name.endswith("seed")]
    assert seeds, "the initializers draw their seeds in the graph"
    assert first.as_graph_def() != second.as_graph_def(), "each build draws its own seeds"
    previous = GraphFiles(first)
    files(previous, tmp_path / "first")
    reused = files(GraphFiles(second, previous=previous), tmp_path / "reused")
    assert reused == files(GraphFiles(model_graph(draws=2)), tmp_path / "built")
    assert reused != files(GraphFiles(model_graph(draws=1)), tmp_path / "first_again")


def test_a_graph_that_differs_otherwise_gets_files_of_its_own(tmp_path):
    previous = GraphFiles(model_graph(units=8))
    files(previous, tmp_path / "first")
    after = files(GraphFiles(model_graph(units=16), previous=previous), tmp_path / "after")
    assert after == files(GraphFiles(model_graph(units=16)), tmp_path / "built")


def test_the_meta_graph_of_reused_files_restores_the_checkpoint(tmp_path):
    previous = GraphFiles(model_graph())
    files(previous, tmp_path / "first")
    graph = model_graph()
    graph_files = GraphFiles(graph, previous=previous)
    with graph.as_default(), tf.compat.v1.Session() as session:
        session.run(tf.compat.v1.global_variables_initializer())
        expected = session.run(tf.compat.v1.global_variables())
        tf.compat.v1.train.Saver().save(
            session, str(tmp_path / "model.ckpt-1"), write_meta_graph=False
        )
    graph_files.write_meta_graph(str(tmp_path / "model.ckpt-1"))
    restored = tf.Graph()
    with restored.as_default(), tf.compat.v1.Session() as session:
        saver = tf.compat.v1.train.import_meta_graph(str(tmp_path / "model.ckpt-1.meta"))
        saver.restore(session, str(tmp_path / "model.ckpt-1"))
        values = session.run(tf.compat.v1.global_variables())
    assert [v.tolist() for v in values] == [v.tolist() for v in expected]


def test_functions_named_by_the_process_s_counter_do_not_stop_the_reuse(tmp_path):
    def graph_with_a_cond() -> tf.Graph:
        graph = model_graph()
        with graph.as_default():
            tf.cond(tf.compat.v1.placeholder(tf.bool, []), lambda: 1.0, lambda: 2.0)
        return graph

    first, second = graph_with_a_cond(), graph_with_a_cond()
    names = [{f.signature.name for f in g.as_graph_def().library.function} for g in (first, second)]
    assert names[0] and names[0].isdisjoint(names[1])
    previous = GraphFiles(first)
    files(previous, tmp_path / "first")
    text, meta_graph = files(GraphFiles(second, previous=previous), tmp_path / "reused")
    assert {f.signature.name for f in meta_graph.graph_def.library.function} == names[0]
    assert all(name in text for name in names[0])
