"""A TF1-style program on the runtime: ``disable_v2_behavior()`` at import time,
then train / evaluate / predict / export twice from scratch in one process.

Prints one JSON line: the eager mode seen after each entry point, the results,
and whether the two runs' first checkpoints are equal.
"""

import json
import sys

import numpy as np
import tensorflow.compat.v1 as tf

from estimator_revival import estimator

tf.disable_v2_behavior()

X = np.random.RandomState(0).rand(64, 3).astype(np.float32)
Y = X.sum(axis=1, keepdims=True)


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features["x"], 8, activation=tf.nn.relu)  # no initializer
    output = tf.layers.dense(hidden, 1)
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(
            mode,
            predictions={"y": output},
            export_outputs={"out": estimator.export.PredictOutput({"y": output})},
        )
    loss = tf.losses.mean_squared_error(labels, output)
    if mode == estimator.ModeKeys.EVAL:
        return estimator.EstimatorSpec(mode, loss=loss)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step()
    )
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def run(model_dir):
    est = estimator.Estimator(
        model_fn, model_dir=model_dir, config=estimator.RunConfig(tf_random_seed=1)
    )
    eager_after = {}
    est.train(estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=8, shuffle=False), steps=5)
    eager_after["train"] = tf.executing_eagerly()
    metrics = est.evaluate(
        estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=8, shuffle=False)
    )
    eager_after["evaluate"] = tf.executing_eagerly()
    predictions = est.predict(estimator.inputs.numpy_input_fn({"x": X[:3]}, shuffle=False))
    first = next(predictions)
    eager_after["predict (while iterating)"] = tf.executing_eagerly()
    rest = list(predictions)
    export = est.export_saved_model(
        model_dir + "/export",
        estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.placeholder(tf.float32, [None, 3])}
        ),
    )
    eager_after["export"] = tf.executing_eagerly()
    return {
        "eager_after": eager_after,
        "loss": float(metrics["loss"]),
        "global_step": int(metrics["global_step"]),
        "predictions": len(rest) + 1,
        "first_prediction": float(first["y"][0]),
        "exported": bool(export),
        "initial_kernel": tf.train.load_checkpoint(model_dir + "/model.ckpt-0")
        .get_tensor("dense/kernel")
        .tolist(),
    }


if __name__ == "__main__":
    first_run, second_run = run(sys.argv[1] + "/a"), run(sys.argv[1] + "/b")
    print(json.dumps({"first": first_run, "second": second_run}))
