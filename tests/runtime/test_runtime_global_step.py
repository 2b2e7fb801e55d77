"""model_fn's ``tf.compat.v1.train.get_global_step()`` is the Estimator's own, as in
the fresh graph a legacy Estimator built per call, even when the program created
a global step of its own eagerly before (TF 2-style code, a test, a notebook cell):
both in one collection made ``get_global_step()`` return None, and a train_op
bumping it by hand never advanced training."""

import numpy as np
import tensorflow as tf

from estimator_revival import estimator


def test_an_eager_global_step_of_the_program_does_not_hide_the_estimator_s(
    tmp_path, eager_global_step
):
    def model_fn(features, labels, mode):
        weights = tf.compat.v1.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
        step = tf.compat.v1.train.get_global_step()
        assert step is not None, "get_global_step() found no single global step"
        update = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.control_dependencies([update]):
            train_op = tf.compat.v1.assign_add(step, 1)
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x = np.ones((4, 2), np.float32)
        return tf.data.Dataset.from_tensors((x, x[:, :1])).repeat()

    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=3)
    assert est.get_variable_value("global_step") == 3
    assert int(eager_global_step.numpy()) == 0
