"""model_fn's v1 summaries written from a sliced training step
(runtime/tf1/step_summaries.py): the protos are the ones a TF 1 Session fetched
with the step, byte for byte; summaries that update a variable or read one the
step writes have no slice (the step is traced, as before)."""

import numpy as np
import pytest
import tensorflow as tf

from runtime.tf1 import graph_slice, step_summaries

X = np.random.RandomState(6).normal(size=(8, 3)).astype(np.float32)
Y = np.random.RandomState(7).normal(size=(8, 1)).astype(np.float32)


def _step_with_summaries(add_summaries, *, use_resource=True):
    """A dense layer's step (loss, train_op, global step) and ``add_summaries(
    inputs, weights, global_step, predictions, loss)``'s v1 summaries."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        y = tf.compat.v1.placeholder(tf.float32, [None, 1], name="y")
        weights = tf.compat.v1.get_variable("weights", [3, 1], use_resource=use_resource)
        step = tf.compat.v1.get_variable(
            "global_step", [], tf.int64, tf.compat.v1.zeros_initializer(), use_resource=use_resource
        )
        predictions = tf.matmul(x, weights)
        loss = tf.reduce_mean(tf.square(predictions - y))
        learning_rate = tf.compat.v1.train.exponential_decay(0.1, step, 2, 0.5)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(learning_rate).minimize(
            loss, global_step=step
        )
        tf.compat.v1.summary.scalar("learning_rate", learning_rate)
        add_summaries((x, y), weights, step, predictions, loss)
    summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    return graph, [x, y], (loss, train_op), summaries


def _pure(inputs, weights, global_step, predictions, loss):
    tf.compat.v1.summary.histogram("predictions", predictions)
    with tf.compat.v1.name_scope("inputs"):
        tf.compat.v1.summary.scalar("feature_norm", tf.norm(inputs[0]))
    tf.compat.v1.summary.scalar("rmse", tf.sqrt(loss))


@pytest.mark.parametrize("use_resource", [True, False], ids=["resource", "reference"])
def test_the_sliced_step_writes_the_protos_a_session_fetched_with_the_step(use_resource):
    graph, inputs, outputs, summaries = _step_with_summaries(_pure, use_resource=use_resource)
    step = graph_slice.required_slice(outputs, inputs, writes=True)
    pair = step_summaries.sliced(summaries, outputs, inputs, step=step)
    assert pair is not None
    variables = graph.get_collection("variables")
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.variables_initializer(variables))
        initial = session.run({v.op.name: v for v in variables})
        feed = dict(zip(inputs, (X, Y), strict=True))
        expected = [session.run((summaries, outputs), feed)[0] for _ in range(3)]

    store = {name: tf.Variable(value) for name, value in initial.items()}

    @tf.function(autograph=False)
    def run_step():
        given = [tf.constant(X), tf.constant(Y)]
        _, _, read = pair.step.compute(store, given)
        return pair.summaries.compute(store, [*given, *read])

    computed = [[proto.numpy() for proto in run_step()] for _ in range(3)]
    assert computed == [list(protos) for protos in expected]
    tags = [tf.compat.v1.Summary.FromString(proto).value[0].tag for proto in computed[0]]
    assert tags == ["learning_rate", "predictions", "inputs/feature_norm", "rmse"]


def _weights_histogram(inputs, weights, global_step, predictions, loss):
    tf.compat.v1.summary.histogram("weights", weights)


def _global_step_scalar(inputs, weights, global_step, predictions, loss):
    tf.compat.v1.summary.scalar("step", global_step)


def _metric_update(inputs, weights, global_step, predictions, loss):
    _, update = tf.compat.v1.metrics.mean(loss)
    tf.compat.v1.summary.scalar("mean_loss", update)


UNSLICED = {
    "reads weights the step updates": _weights_histogram,
    "reads the global step": _global_step_scalar,
    "updates a metric": _metric_update,
}


@pytest.mark.parametrize("add_summaries", UNSLICED.values(), ids=UNSLICED.keys())
def test_summaries_that_do_more_than_compute_on_the_step_have_no_slice(add_summaries):
    graph, inputs, outputs, summaries = _step_with_summaries(add_summaries)
    step = graph_slice.required_slice(outputs, inputs, writes=True)
    assert step_summaries.sliced(summaries, outputs, inputs, step=step) is None
