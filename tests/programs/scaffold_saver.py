"""A model_fn whose Scaffold carries a Saver with code of its own: a subclass
that records what the Estimator asks of it (save at which step, restore and
recover which checkpoints) and writes an audit file beside each checkpoint it
saves, as teams did to log or mirror their checkpoints. Trains, trains again
(resuming), evaluates and predicts; prints, as JSON, each call's requests, its
results and the files in model_dir. Run under both interpreters
(tests/runtime/test_runtime_own_saver.py).

Usage: python scaffold_saver.py legacy|runtime MODEL_DIR
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

X = np.random.RandomState(5).normal(size=(16, 2)).astype(np.float32)
Y = X @ np.array([[1.5], [-2.0]], np.float32)
REQUESTS = []


class AuditedSaver(tf.compat.v1.train.Saver):
    def save(self, sess, save_path, global_step=None, **kwargs):
        REQUESTS.append(["save", int(global_step)])
        path = super().save(sess, save_path, global_step=global_step, **kwargs)
        with open(f"{path}.audit", "w") as audit:
            audit.write(str(global_step))
        return path

    def restore(self, sess, save_path):
        REQUESTS.append(["restore", os.path.basename(save_path)])
        return super().restore(sess, save_path)

    def recover_last_checkpoints(self, checkpoint_paths):
        REQUESTS.append(["recover", [os.path.basename(path) for path in checkpoint_paths]])
        return super().recover_last_checkpoints(checkpoint_paths)


def model_fn(features, labels, mode):
    weights = tf.compat.v1.get_variable("weights", [2, 1])
    predictions = tf.matmul(features["x"], weights)
    scaffold = tf.compat.v1.train.Scaffold(saver=AuditedSaver(max_to_keep=2))
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions={"y": predictions}, scaffold=scaffold)
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(4)


def main():
    config = estimator.RunConfig(tf_random_seed=9, save_checkpoints_steps=2)
    est = estimator.Estimator(model_fn, model_dir=sys.argv[2], config=config)
    record = {}

    def call(label, run):
        REQUESTS.clear()
        record[label] = {"result": run(), "requests": list(REQUESTS)}

    call("train", lambda: est.train(input_fn, steps=5).get_variable_value("weights").tolist())
    call("train_again", lambda: est.train(input_fn, steps=3).get_variable_value("weights").tolist())
    call("evaluate", lambda: {k: float(v) for k, v in est.evaluate(input_fn, steps=2).items()})
    predict_input_fn = lambda: tf.data.Dataset.from_tensor_slices({"x": X[:3]}).batch(3)  # noqa: E731
    call("predict", lambda: [p["y"].tolist() for p in est.predict(predict_input_fn)])
    record["files"] = sorted(name for name in os.listdir(sys.argv[2]) if "ckpt" in name)
    print(json.dumps(record))


if __name__ == "__main__":
    main()
