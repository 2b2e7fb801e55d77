"""``tf.contrib.distribute.TPUStrategy(resolver, steps_per_run=N)`` (migrated to
``tf.compat.v1.distribute.experimental.TPUStrategy``, the same class) in
``RunConfig(train_distribute=...)``: TF 1.15's Estimator ran N steps per session
run on a strategy whose class name starts with ``TPUStrategy``, its hooks seeing
the global step after each run, the last run cut to the steps left. No TPU here:
a one-device strategy under that name stands in for it."""

import numpy as np
import tensorflow as tf

from estimator_revival import estimator

INPUTS = np.random.RandomState(5).normal(size=(40, 3)).astype(np.float32)
TARGETS = INPUTS.sum(axis=1, keepdims=True)


class TPUStrategyOnTheCpu(tf.distribute.OneDeviceStrategy):
    def __init__(self, steps_per_run: int) -> None:
        super().__init__("/cpu:0")
        self.extended.steps_per_run = steps_per_run


class GlobalStepsSeen(tf.compat.v1.train.SessionRunHook):
    def __init__(self) -> None:
        self.steps = []

    def begin(self):
        self._step = tf.compat.v1.train.get_global_step()

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_context.session.run(self._step)))


def model_fn(features, labels, mode):
    weights = tf.compat.v1.get_variable("w", [3, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _trained(model_dir, strategy, hooks):
    config = estimator.RunConfig(train_distribute=strategy, tf_random_seed=2)
    est = estimator.Estimator(model_fn, model_dir=str(model_dir), config=config)
    dataset = lambda: tf.data.Dataset.from_tensor_slices((INPUTS, TARGETS)).repeat().batch(4)  # noqa: E731
    est.train(dataset, max_steps=10, hooks=hooks)
    return est.get_variable_value("w")


def test_hooks_see_each_run_of_steps_per_run_steps(tmp_path):
    seen = GlobalStepsSeen()
    runs = _trained(tmp_path / "runs", TPUStrategyOnTheCpu(steps_per_run=4), [seen])
    assert seen.steps == [4, 8, 10]
    steps = _trained(tmp_path / "steps", None, [])
    np.testing.assert_array_equal(runs, steps)


def test_one_step_per_run_is_a_session_run_each(tmp_path):
    seen = GlobalStepsSeen()
    _trained(tmp_path, TPUStrategyOnTheCpu(steps_per_run=1), [seen])
    assert seen.steps == list(range(1, 11))
