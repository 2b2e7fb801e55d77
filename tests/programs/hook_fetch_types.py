"""A hook that fetches what TF 1 programs fetched for their own files and logs,
as UNet_Industrial's profiler hook did: an encoded PNG of the model's output
(a scalar string), a scalar loss, a vector of class names and a matrix. Prints,
as JSON, the Python type each fetch came back as, and writes the PNG of every
step with ``file.write(fetched)``; run under both interpreters, the types and the
files must match (tests/runtime/test_runtime_hook_fetch_types.py).

Usage: python hook_fetch_types.py legacy|runtime MODEL_DIR
"""

import json
import os
import random
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

FETCHES = "hook_fetches"


def model_fn(features, labels, mode):
    images = features["image"]
    mask = tf.compat.v1.layers.conv2d(images, 1, 3, padding="same", name="mask")
    loss = tf.reduce_mean(tf.square(mask - labels), name="mse")
    picture = tf.cast(tf.clip_by_value(tf.sigmoid(mask[0]) * 255.0, 0, 255), tf.uint8)
    tf.compat.v1.add_to_collection(FETCHES, tf.image.encode_png(picture, name="png"))
    tf.compat.v1.add_to_collection(FETCHES, tf.constant([b"background", b"defect"]))
    tf.compat.v1.add_to_collection(FETCHES, tf.reduce_mean(mask, axis=[1, 2, 3]))
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.RMSPropOptimizer(0.01).minimize(loss, global_step=step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    images = np.random.RandomState(0).uniform(size=(4, 8, 8, 1)).astype(np.float32)
    masks = (images > 0.5).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices(({"image": images}, masks)).batch(2).repeat()


class ImageWriterHook(tf.compat.v1.train.SessionRunHook):
    def __init__(self, folder, record):
        self.folder, self.record, self.losses = folder, record, []

    def before_run(self, run_context):
        png, names, means = tf.compat.v1.get_collection(FETCHES)
        loss = tf.compat.v1.get_default_graph().get_tensor_by_name("mse:0")
        return tf.compat.v1.train.SessionRunArgs((png, loss, {"names": names, "means": means}))

    def after_run(self, run_context, run_values):
        png, loss, extra = run_values.results
        self.losses.append(float(loss))
        self.record.append(
            [
                type(png).__name__,
                type(loss).__name__,
                type(extra["names"]).__name__,
                str(extra["names"].dtype),
                type(extra["means"]).__name__,
            ]
        )
        with open(os.path.join(self.folder, f"mask_{len(self.record)}.png"), "wb") as file:
            file.write(png)


def main():
    # Keras' v1 initializers draw their seeds from Python's random
    random.seed(0)
    model_dir = sys.argv[2]
    os.makedirs(model_dir, exist_ok=True)
    record = []
    config = estimator.RunConfig(tf_random_seed=3)
    classifier = estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    hook = ImageWriterHook(model_dir, record)
    classifier.train(input_fn, steps=3, hooks=[hook])
    print(json.dumps({"types": record, "losses": hook.losses}))


if __name__ == "__main__":
    main()
