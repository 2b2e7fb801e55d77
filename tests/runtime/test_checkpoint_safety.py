"""A damaged model_dir stops training with the error a TF 1 Estimator raised,
naming the checkpoint, and leaves the checkpoint state and files as they were:
never a silent restart from step 0 over the user's checkpoints.

Measured on tensorflow-estimator 2.15 with the same damage: a ``checkpoint``
state naming missing files, ValueError "The passed save_path is not a valid
checkpoint: <path>" from train() (evaluate() initialized afresh, since
``latest_checkpoint`` is None); a truncated ``.data`` file, OutOfRangeError; a
truncated ``.index`` file, DataLossError.
"""

import hashlib

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator


def model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", [1, 1])
    prediction = tf.matmul(features, weight)
    loss = tf.reduce_mean(tf.square(prediction - labels))
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensors((tf.ones([1, 1]), tf.ones([1, 1]))).repeat()


def _estimator(model_dir):
    config = estimator.RunConfig(save_checkpoints_steps=2)
    return estimator.Estimator(model_fn, model_dir=str(model_dir), config=config)


def _snapshot(model_dir):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in model_dir.iterdir()}


@pytest.fixture
def trained(tmp_path):
    _estimator(tmp_path).train(input_fn, steps=4)
    assert (tmp_path / "model.ckpt-4.index").exists()
    return tmp_path


def _remove_latest(model_dir):
    for path in model_dir.glob("model.ckpt-4.*"):
        path.unlink()


def _truncate(suffix):
    def damage(model_dir):
        (path,) = model_dir.glob(f"model.ckpt-4{suffix}")
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    return damage


@pytest.mark.parametrize(
    ("damage", "error", "message"),
    [
        (_remove_latest, ValueError, "The passed save_path is not a valid checkpoint"),
        (_truncate(".data-00000-of-00001"), tf.errors.OutOfRangeError, "is truncated"),
        (_truncate(".index"), tf.errors.DataLossError, "cannot be read"),
    ],
    ids=["checkpoint state names missing files", "truncated .data", "truncated .index"],
)
def test_training_on_a_damaged_checkpoint_raises_and_keeps_the_files(
    trained, damage, error, message
):
    damage(trained)
    before = _snapshot(trained)
    with pytest.raises(error, match=message) as raised:
        _estimator(trained).train(input_fn, steps=2)
    assert str(trained / "model.ckpt-4") in str(raised.value)
    assert _snapshot(trained) == before


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        (_truncate(".data-00000-of-00001"), tf.errors.OutOfRangeError),
        (_truncate(".index"), tf.errors.DataLossError),
    ],
)
def test_evaluating_a_damaged_checkpoint_names_it(trained, damage, error):
    damage(trained)
    with pytest.raises(error, match=str(trained / "model.ckpt-4")):
        _estimator(trained).evaluate(input_fn, steps=1)


def test_evaluating_without_the_named_files_initializes_as_the_estimator_did(trained):
    _remove_latest(trained)
    values = _estimator(trained).evaluate(input_fn, steps=1)
    assert values["global_step"] == 0
    assert np.isfinite(values["loss"])


def test_a_model_fn_of_other_shapes_stops_with_the_savers_error(trained):
    """model_fn changed under a model_dir (w now [1, 2]): TF 1's Saver.restore raised
    InvalidArgumentError "Restoring from checkpoint failed ... Assign requires shapes
    of both tensors to match" (TF 2.15's resource variables failed at the first
    update, with the same class); the checkpoint stays as it was."""

    def wider_model_fn(features, labels, mode):
        weight = tf.compat.v1.get_variable("w", [1, 2])
        loss = tf.reduce_mean(tf.square(tf.matmul(features, weight) - labels))
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    before = _snapshot(trained)
    wider = estimator.Estimator(wider_model_fn, model_dir=str(trained))
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Restoring from checkpoint failed(.|\n)*lhs shape= \[1, 2\] rhs shape= \[1, 1\]",
    ):
        wider.train(input_fn, steps=1)
    assert _snapshot(trained) == before
