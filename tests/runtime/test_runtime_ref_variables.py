"""A TF 1 graph's reference variables in a slice (runtime/tf1/ref_variables.py):
the slice of a training step built on ``VariableV2`` runs on resource variables
and gives what a TF 1 Session gave for the same graph, bit for bit."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.tf1 import graph_slice, ref_variables

X = np.random.RandomState(4).normal(size=(8, 3)).astype(np.float32)
Y = np.random.RandomState(5).normal(size=(8, 1)).astype(np.float32)


def _tf1_step(optimizer):
    """A graph of reference variables: a dense layer, its loss, ``optimizer``'s
    update and the global step's, and a counter bumped after the update."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(1)
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        y = tf.compat.v1.placeholder(tf.float32, [None, 1], name="y")
        weights = tf.compat.v1.get_variable("weights", [3, 1], use_resource=False)
        step = tf.compat.v1.get_variable(
            "step", [], tf.int64, tf.compat.v1.zeros_initializer(), use_resource=False
        )
        loss = tf.reduce_mean(tf.square(tf.matmul(x, weights) - y))
        train_op = optimizer().minimize(loss, global_step=step)
        with tf.control_dependencies([train_op]):
            # dereferences the updated weights: after the update, as TF 1 ran it
            total = tf.compat.v1.assign_add(
                tf.compat.v1.get_variable("total", [], use_resource=False),
                tf.reduce_sum(weights),
            )
    return graph, (x, y), loss, total.op


OPTIMIZERS = {
    "sgd": lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1),
    "adam": lambda: tf.compat.v1.train.AdamOptimizer(0.01),  # beta powers read, then assigned
    "momentum": lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
}


@pytest.mark.parametrize("optimizer", OPTIMIZERS.values(), ids=OPTIMIZERS.keys())
def test_a_reference_variable_step_runs_on_resource_variables_as_a_session_ran_it(optimizer):
    graph, inputs, loss, train_op = _tf1_step(optimizer)
    step = graph_slice.required_slice((loss, train_op), inputs, writes=True)
    variables = graph.get_collection("variables")
    assert {v.op.type for v in variables} == {"VariableV2"}

    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.variables_initializer(variables))
        initial = session.run({v.op.name: v for v in variables})
        feed = dict(zip(inputs, (X, Y), strict=True))
        expected_losses = [session.run((loss, train_op), feed)[0] for _ in range(3)]
        expected = session.run({v.op.name: v for v in variables})

    store = {name: tf.Variable(value) for name, value in initial.items()}

    @tf.function
    def run_step():
        computed_loss, computed_train_op = step.compute(store, [tf.constant(X), tf.constant(Y)])
        with tf.control_dependencies([computed_train_op]):
            return tf.identity(computed_loss)

    losses = [run_step().numpy() for _ in range(3)]
    assert losses == expected_losses
    for name, value in expected.items():
        np.testing.assert_array_equal(store[name].numpy(), value, err_msg=name)


def test_a_dereference_after_an_update_with_no_order_is_found():
    """TF 1's Session raced such a read with the update; the training step traces it."""
    graph = tf.Graph()
    with graph.as_default():
        counter = tf.compat.v1.get_variable("counter", [], use_resource=False)
        bump = tf.compat.v1.assign_add(counter, 1.0)
        unordered = counter * 2.0
        with tf.control_dependencies([bump]):
            ordered = counter * 3.0
    assert ref_variables.read_after_written([bump.op, unordered.op]) == {"counter"}
    assert ref_variables.read_after_written([bump.op, ordered.op]) == frozenset()


def test_an_update_of_a_ref_another_op_passed_on_has_no_slice():
    graph = tf.Graph()
    with graph.as_default():
        counter = tf.compat.v1.get_variable("counter", [], use_resource=False)
        twice = tf.compat.v1.assign_add(tf.compat.v1.assign_add(counter, 1.0), 1.0)
    assert graph_slice.slice_of(twice.op, writes=True) is None


def test_an_op_that_waits_for_an_update_through_its_inputs_reads_the_updated_value():
    """``concat([weights, update])``: TF 1 read the weights' buffer when the concat
    ran, once the update was done."""
    graph = tf.Graph()
    with graph.as_default():
        weights = tf.compat.v1.get_variable(
            "weights", [2], initializer=tf.compat.v1.ones_initializer(), use_resource=False
        )
        updated = tf.compat.v1.assign_sub(weights, [0.25, 0.5])
        probe = tf.concat([weights, updated], 0)
    step = graph_slice.required_slice(probe, writes=True)
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(weights.initializer)
        expected = session.run(probe)

    store = {"weights": tf.Variable([1.0, 1.0])}
    computed = tf.function(lambda: step.compute(store))()
    np.testing.assert_array_equal(expected, [0.75, 0.5, 0.75, 0.5])
    np.testing.assert_array_equal(computed, expected)
