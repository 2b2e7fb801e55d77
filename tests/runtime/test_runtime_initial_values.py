"""Discovery computes variables' initial values only when a call needs them (issue
17, item 6): a fresh model's first call computes them in one Session run; calls
that restore a checkpoint need only their local (metric) variables', which are
constants read from the graph, and so run no Session at all."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.tf1 import discovery

FEATURES = np.random.RandomState(0).normal(size=(16, 3)).astype(np.float32)
LABELS = (FEATURES.sum(axis=1) > 0).astype(np.int64)


def model_fn(features, labels, mode):
    # A TF 1 initializer: random, its op seed drawn from the graph's seed (a Keras
    # one, the layer's default, would draw it from Python's `random`)
    initializer = tf.compat.v1.glorot_uniform_initializer()
    logits = tf.compat.v1.layers.dense(features, 2, kernel_initializer=initializer)
    predictions = {"classes": tf.argmax(logits, axis=1)}
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["classes"])}
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def input_fn():
    return tf.data.Dataset.from_tensor_slices((FEATURES, LABELS)).batch(8)


def features_only():
    return tf.data.Dataset.from_tensor_slices(FEATURES).batch(8)


@pytest.fixture
def sessions(monkeypatch):
    """Counts the Session runs that compute initial values."""
    runs = []
    compute = discovery.InitialValues._compute_the_others

    def counted(self):
        runs.append(1)
        compute(self)

    monkeypatch.setattr(discovery.InitialValues, "_compute_the_others", counted)
    return runs


def test_calls_that_restore_a_checkpoint_compute_no_initial_values(tmp_path, sessions):
    config = estimator.RunConfig(tf_random_seed=3)
    est = estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    est.train(input_fn, steps=2)
    assert len(sessions) == 1  # a fresh model: every initial value, in one run
    trained = est.get_variable_value("dense/kernel")
    metrics = est.evaluate(input_fn)
    predictions = list(est.predict(features_only))
    assert len(sessions) == 1  # restored: the metric variables' zeros need no Session
    assert metrics["global_step"] == 2 and 0.0 <= metrics["accuracy"] <= 1.0
    assert len(predictions) == len(FEATURES)
    np.testing.assert_array_equal(est.get_variable_value("dense/kernel"), trained)


def test_an_evaluation_without_a_checkpoint_still_initializes(tmp_path, sessions):
    """Nothing to restore: the model's random initial values are computed, as the
    Estimator's session initialized them, from the graph's seed."""

    def fresh_loss(seed: int, name: str) -> float:
        config = estimator.RunConfig(tf_random_seed=seed)
        fresh = estimator.Estimator(model_fn, model_dir=str(tmp_path / name), config=config)
        metrics = fresh.evaluate(input_fn, steps=1)
        assert metrics["global_step"] == 0
        return metrics["loss"]

    loss = fresh_loss(3, "a")
    assert len(sessions) == 1
    assert fresh_loss(3, "b") == loss  # the same seed, the same initial values
    assert fresh_loss(4, "c") != loss
    assert not np.isclose(loss, np.log(2.0))  # the loss of an all-zero kernel
    assert len(sessions) == 3
