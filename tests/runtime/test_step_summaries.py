"""model_fn's v1 summaries written from a sliced training step
(runtime/tf1/step_summaries.py): the protos are the ones a TF 1 Session fetched
with the step, byte for byte; summaries that update a variable or read one the
step writes have no slice (the step is traced, as before)."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.tf1 import graph_slice, step_summaries
from helpers.harness import REPO, program_record
from helpers.sides import RUNTIME

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


def _metric_update(inputs, weights, global_step, predictions, loss, train_op):
    """A streaming metric's update op summarized (DeepCTR's heads): its update
    ran only when the summaries did."""
    _, update = tf.compat.v1.metrics.mean(loss)
    tf.compat.v1.summary.scalar("mean_loss", update)


SLICED = {"pure": (_pure, ["predictions", "inputs/feature_norm", "rmse"]),
          "variables": (_variables, ["weight_histogram", "weight_sum", "step"]),
          "metric update": (_metric_update, ["mean_loss"])}  # fmt: skip


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
    variables = graph.get_collection("variables") + graph.get_collection("local_variables")
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


def _read_after_the_update(inputs, weights, global_step, predictions, loss, train_op):
    with tf.control_dependencies([train_op]):
        tf.compat.v1.summary.scalar("updated_sum", tf.reduce_sum(tf.identity(weights)))


def _write_of_a_step_variable(inputs, weights, global_step, predictions, loss, train_op):
    bumped = tf.compat.v1.assign_add(weights, tf.zeros_like(weights))
    tf.compat.v1.summary.scalar("bumped_sum", tf.reduce_sum(bumped))


def _write_of_a_variable_read_before(inputs, weights, global_step, predictions, loss, train_op):
    counter = tf.compat.v1.get_local_variable("counter", [], initializer=tf.zeros_initializer())
    tf.compat.v1.summary.scalar("counted", counter)
    tf.compat.v1.summary.scalar("counter_after", tf.compat.v1.assign_add(counter, 1.0))


UNSLICED = {
    "reads after the update": _read_after_the_update,
    "writes what the step reads": _write_of_a_step_variable,
    "writes what it read before the step": _write_of_a_variable_read_before,
}


@pytest.mark.parametrize("add_summaries", UNSLICED.values(), ids=UNSLICED.keys())
def test_summaries_that_do_more_than_compute_on_the_step_have_no_slice(add_summaries):
    graph, inputs, outputs, summaries = _step_with_summaries(add_summaries)
    step = graph_slice.required_slice(outputs, inputs, writes=True)
    assert step_summaries.sliced(summaries, outputs, inputs, step=step) is None


PROGRAM = REPO / "tests" / "programs" / "summary_paths.py"


@pytest.mark.parametrize("program_args", [(), ("tf1",)], ids=["tf2", "tf1"])
def test_a_sliced_step_writes_what_the_traced_step_writes_read_before_the_step(
    tmp_path, program_args
):
    """The step runs the discovery graph's ops (model_fn called once per call);
    with those slices declined, model_fn is traced again. Both write the same values at
    the same steps, each summary of a variable its value before the step, as TF 1's
    Session read it: the global step before its increment, the kernel's sum that
    of the checkpoint of the step before; a streaming metric summarized updates
    on summary steps. ``tf1``: reference variables, whose
    traced reads after the update read the value from before it too."""
    record = program_record(RUNTIME, PROGRAM, tmp_path, program_args)
    sliced, traced = record["sliced"], record["traced"]
    assert (sliced["model_fn_calls"], traced["model_fn_calls"]) == (1, 2)
    summaries = sliced["summaries"]
    assert set(summaries) == {"loss", "rmse", "kernel_sum", "step", "mean_loss"}
    assert summaries["step"] == [[step, step - 1] for step in range(1, 7)]
    checkpoints = sliced["kernel_sums"]
    assert len(checkpoints) == 7  # steps 0 to 6
    assert summaries["kernel_sum"] == [[step, checkpoints[step - 1]] for step in range(1, 7)]
    # the metric updated on summary steps alone (here every step): a running mean
    losses = np.float32([loss for _, loss in summaries["loss"]])
    totals = np.cumsum(losses, dtype=np.float32)
    means = totals / np.arange(1, 7, dtype=np.float32)
    assert summaries["mean_loss"] == [[step, float(means[step - 1])] for step in range(1, 7)]
    assert traced["summaries"] == summaries
    assert traced["kernel_sums"] == checkpoints
