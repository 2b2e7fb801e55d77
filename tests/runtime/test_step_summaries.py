"""model_fn's v1 summaries written from a sliced training step
(runtime/tf1/step_summaries.py): the protos are the ones a TF 1 Session fetched
with the step, byte for byte; summaries that update a variable or read one the
step writes have no slice (the step is traced, as before)."""

import numpy as np
import pytest
import tensorflow as tf

from fixtures.equivalence.recording import scalar_summaries
from runtime import estimator
from runtime.tf1 import graph_slice, step_summaries

X = np.random.RandomState(6).normal(size=(8, 3)).astype(np.float32)
Y = np.random.RandomState(7).normal(size=(8, 1)).astype(np.float32)


def _step_with_summaries(add_summaries, *, use_resource=True):
    """A dense layer's step (loss, train_op, global step) and ``add_summaries(
    inputs, weights, global_step, predictions, loss, train_op)``'s v1 summaries."""
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
        add_summaries((x, y), weights, step, predictions, loss, train_op)
    summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    return graph, [x, y], (loss, train_op), summaries


def _pure(inputs, weights, global_step, predictions, loss, train_op):
    tf.compat.v1.summary.histogram("predictions", predictions)
    with tf.compat.v1.name_scope("inputs"):
        tf.compat.v1.summary.scalar("feature_norm", tf.norm(inputs[0]))
    tf.compat.v1.summary.scalar("rmse", tf.sqrt(loss))


def _variables(inputs, weights, global_step, predictions, loss, train_op):
    """Made after minimize(), as TF 1 programs did: read before the update."""
    tf.compat.v1.summary.histogram("weight_histogram", weights)
    tf.compat.v1.summary.scalar("weight_sum", tf.reduce_sum(weights))
    tf.compat.v1.summary.scalar("step", global_step)


SLICED = {"pure": (_pure, ["predictions", "inputs/feature_norm", "rmse"]),
          "variables": (_variables, ["weight_histogram", "weight_sum", "step"])}  # fmt: skip


@pytest.mark.parametrize("use_resource", [True, False], ids=["resource", "reference"])
@pytest.mark.parametrize("case", SLICED.values(), ids=SLICED.keys())
def test_the_sliced_step_writes_the_protos_a_session_computed_before_the_step(case, use_resource):
    """TF 1's Session ran a summary's read of a variable before the step's update
    of it (it waited for nothing); the protos are the Session's summaries run
    alone, before the step, byte for byte."""
    add_summaries, tags = case
    graph, inputs, outputs, summaries = _step_with_summaries(
        add_summaries, use_resource=use_resource
    )
    step = graph_slice.required_slice(outputs, inputs, writes=True)
    pair = step_summaries.sliced(summaries, outputs, inputs, step=step)
    assert pair is not None
    variables = graph.get_collection("variables")
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.variables_initializer(variables))
        initial = session.run({v.op.name: v for v in variables})
        feed = dict(zip(inputs, (X, Y), strict=True))
        expected = []
        for _ in range(3):
            expected.append(session.run(summaries, feed))
            session.run(outputs, feed)

    store = {name: tf.Variable(value) for name, value in initial.items()}

    @tf.function(autograph=False)
    def run_step():
        given = [tf.constant(X), tf.constant(Y)]
        before = [store[name].read_value() for name in pair.read_before]
        _, _, read = pair.step.compute(store, given)
        return pair.summaries.compute(store, [*given, *read, *before])

    computed = [[proto.numpy() for proto in run_step()] for _ in range(3)]
    assert computed == expected
    assert computed[0] != computed[1]  # the variables moved
    assert [tf.compat.v1.Summary.FromString(proto).value[0].tag for proto in computed[0]] == [
        "learning_rate",
        *tags,
    ]


def _metric_update(inputs, weights, global_step, predictions, loss, train_op):
    _, update = tf.compat.v1.metrics.mean(loss)
    tf.compat.v1.summary.scalar("mean_loss", update)


def _read_after_the_update(inputs, weights, global_step, predictions, loss, train_op):
    with tf.control_dependencies([train_op]):
        tf.compat.v1.summary.scalar("updated_sum", tf.reduce_sum(tf.identity(weights)))


UNSLICED = {"updates a metric": _metric_update, "reads after the update": _read_after_the_update}


@pytest.mark.parametrize("add_summaries", UNSLICED.values(), ids=UNSLICED.keys())
def test_summaries_that_do_more_than_compute_on_the_step_have_no_slice(add_summaries):
    graph, inputs, outputs, summaries = _step_with_summaries(add_summaries)
    step = graph_slice.required_slice(outputs, inputs, writes=True)
    assert step_summaries.sliced(summaries, outputs, inputs, step=step) is None


def _estimator_model_fn(calls):
    def model_fn(features, labels, mode):
        calls.append(mode)
        kernel = tf.compat.v1.get_variable(
            "kernel", [3, 1], initializer=tf.compat.v1.truncated_normal_initializer(seed=3)
        )
        predictions = tf.matmul(features, kernel)
        loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
        train_op = tf.compat.v1.train.AdagradOptimizer(0.5).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        tf.compat.v1.summary.scalar("rmse", tf.sqrt(loss))
        tf.compat.v1.summary.scalar("kernel_sum", tf.reduce_sum(kernel))
        tf.compat.v1.summary.scalar("step", tf.compat.v1.train.get_global_step())
        tf.compat.v1.summary.histogram("predictions", predictions)
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


class _Watching(tf.compat.v1.train.SessionRunHook):
    """A hook: begins in model_fn's graph, so the steps trace model_fn."""


def test_a_sliced_step_writes_the_summaries_the_traced_step_writes(tmp_path):
    """Without hooks the step runs the discovery graph's ops (model_fn called once
    per call); with one it traces model_fn again. Both write the same values at
    the same steps: the variables as they were before each step."""

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(4)

    written = {}
    for hooks in ([], [_Watching()]):
        calls = []
        model_dir = tmp_path / f"hooks{len(hooks)}"
        config = estimator.RunConfig(tf_random_seed=2, save_summary_steps=1)
        est = estimator.Estimator(_estimator_model_fn(calls), str(model_dir), config=config)
        est.train(input_fn, steps=6, hooks=hooks)
        assert len(calls) == 1 + len(hooks)
        written[len(hooks)] = scalar_summaries(model_dir)
    sliced, traced = written[0], written[1]
    assert set(sliced) == {"loss", "rmse", "kernel_sum", "step"}
    assert [step for step, _ in sliced["step"]] == [1, 2, 3, 4, 5, 6]
    assert [value for _, value in sliced["step"]] == [0, 1, 2, 3, 4, 5]
    assert sliced == traced
