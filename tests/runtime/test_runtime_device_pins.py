"""Device pins inside model_fn (multi-tower TF 1 code: ``with tf.device("/gpu:0")``)
on a machine without that device: the Estimator's session had
``allow_soft_placement=True`` and ran the ops on what it had; so does the runtime,
with the same numbers as the unpinned model."""

import contextlib
import random

import numpy as np
import tensorflow as tf

from estimator_revival import estimator

X = np.random.RandomState(2).normal(size=(16, 3)).astype(np.float32)
Y = X.sum(axis=1, keepdims=True)
# A GPU index this machine lacks (/gpu:0 on a machine without GPUs, as in CI).
MISSING_GPU = f"/gpu:{len(tf.config.list_physical_devices('GPU'))}"


def _model_fn(pinned: bool):
    def model_fn(features, labels, mode):
        with tf.device(MISSING_GPU) if pinned else contextlib.nullcontext():
            weights = tf.compat.v1.get_variable("w", [3, 1])
            prediction = tf.matmul(features, weights)
        if mode == estimator.ModeKeys.PREDICT:
            return estimator.EstimatorSpec(mode, predictions={"y": prediction})
        loss = tf.reduce_mean(tf.square(prediction - labels))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def _trained_weights(model_dir, pinned: bool):
    random.seed(0)
    config = estimator.RunConfig(tf_random_seed=4)
    est = estimator.Estimator(_model_fn(pinned), model_dir=str(model_dir), config=config)
    est.train(lambda: tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(4), steps=5)
    return est.get_variable_value("w")


def test_ops_pinned_to_a_missing_gpu_run_where_they_can_with_the_same_numbers(tmp_path):
    pinned = _trained_weights(tmp_path / "pinned", pinned=True)
    unpinned = _trained_weights(tmp_path / "unpinned", pinned=False)
    np.testing.assert_array_equal(pinned, unpinned)
    assert not np.array_equal(pinned, _initial(tmp_path))


def _initial(tmp_path):
    """The weights before training (so the comparison above is of trained ones)."""
    random.seed(0)
    config = estimator.RunConfig(tf_random_seed=4)
    est = estimator.Estimator(_model_fn(False), model_dir=str(tmp_path / "init"), config=config)
    est.train(lambda: tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).take(0), steps=1)
    return est.get_variable_value("w")


def test_a_model_pinned_to_a_missing_gpu_exports_with_its_trained_weights(tmp_path):
    """The export's restoring session has the Estimator's default session config
    (soft placement) too; before, restoring the pinned variable failed."""
    trained = _trained_weights(tmp_path / "pinned", pinned=True)
    est = estimator.Estimator(_model_fn(True), model_dir=str(tmp_path / "pinned"))

    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        return estimator.export.TensorServingInputReceiver(x, {"x": x})

    export_dir = est.export_saved_model(str(tmp_path / "export"), receiver).decode()
    served = tf.saved_model.load(export_dir).signatures["serving_default"]
    np.testing.assert_array_equal(served(x=tf.constant(X[:2]))["y"].numpy(), X[:2] @ trained)
