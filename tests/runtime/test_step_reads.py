"""A variable model_fn reads after its own update with no control dependency
(runtime/tf1/step_reads.py): the runtime gives the value from before the step, the
usual outcome of a TF 1 Session, where that read raced the update (it had no
dependency, so it ran first unless the executor was starved; an equivalence run
cannot pin a race down, so the rule is checked here). Under a control dependency
on the update, the read sees the updated value, in TF 1 and here."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator


class Fetches(tf.compat.v1.train.SessionRunHook):
    """Fetches the collection ``seen`` every step."""

    def __init__(self):
        self.values = []

    def begin(self):
        self._seen = tf.compat.v1.get_collection("seen")[0]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._seen)

    def after_run(self, run_context, run_values):
        self.values.append(float(run_values.results))


def _model_fn(after_update: bool):
    def model_fn(features, labels, mode):
        counter = tf.compat.v1.get_variable(
            "counter", [], initializer=tf.zeros_initializer(), trainable=False
        )
        weight = tf.compat.v1.get_variable("w", [1, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features, weight) - labels))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        minimize = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        train_op = tf.group(minimize, counter.assign_add(1.0))
        if after_update:
            with tf.control_dependencies([train_op]):
                seen = tf.identity(counter)
        else:
            seen = tf.identity(counter)
        tf.compat.v1.add_to_collection("seen", seen)
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


@pytest.mark.parametrize("after_update, expected", [(False, [0, 1, 2]), (True, [1, 2, 3])])
def test_a_read_after_the_update_sees_the_step_start_unless_it_depends_on_it(
    tmp_path, after_update, expected
):
    x = np.ones((4, 1), np.float32)
    hook = Fetches()
    est = estimator.Estimator(_model_fn(after_update), model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensors((x, x)).repeat(), steps=3, hooks=[hook])
    assert hook.values == expected
    assert est.get_variable_value("counter") == 3.0
