"""Small model_fns for the runtime's contract tests (main environment only)."""

import numpy as np
import tensorflow as tf

from estimator_revival import estimator

X = np.random.RandomState(0).normal(size=(64, 3)).astype(np.float32)
Y = X @ np.array([[1.0], [-2.0], [0.5]], np.float32)


def linear_model_fn(features, labels, mode, params):
    prediction = tf.compat.v1.layers.dense(features["x"], 1, name="linear")
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(
            mode, predictions={"y": prediction, "double": 2.0 * prediction}
        )
    loss = tf.reduce_mean(tf.square(prediction - labels)) * params.get("loss_scale", 1.0)
    tf.compat.v1.summary.scalar("prediction_mean", tf.reduce_mean(prediction))
    if mode == estimator.ModeKeys.EVAL:
        mae = tf.compat.v1.metrics.mean_absolute_error(labels, prediction)
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mae": mae})
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params.get("learning_rate", 0.05))
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def finite_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(8)


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:10]}).batch(4)


def raw_receiver_fn():
    """Serving input for linear_model_fn: the features fed as they are."""
    features = {"x": tf.constant(X[:1])}
    return estimator.export.build_raw_serving_input_receiver_fn(features)()


def make(model_dir, params=None, **config):
    config.setdefault("tf_random_seed", 1)
    return estimator.Estimator(
        linear_model_fn,
        model_dir=str(model_dir),
        config=estimator.RunConfig(**config),
        params=params or {},
    )


def event_scalars(directory) -> dict:
    """``{tag: [step, ...]}`` of every summary in a directory's event files, in the
    order they were written (file names do not sort that way: their writer counter
    is not zero-padded)."""
    import os

    events = [
        event
        for name in os.listdir(directory)
        if name.startswith("events.out.tfevents")
        for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name))
    ]
    found = {}
    for event in sorted(events, key=lambda event: event.wall_time):
        for value in event.summary.value:
            found.setdefault(value.tag, []).append(int(event.step))
    return found
