"""One benchmark workload, run under either interpreter.

    python workload.py legacy|runtime tiny|small|heavy STEPS

Prints one JSON line: the steps/s of a timed ``train(steps=STEPS)`` call made
after a short warm-up call on the same model_dir (so both sides pay their
per-call set-up: graph building and session creation for the Estimator,
discovery and tracing for the runtime), with default RunConfig settings.
"""

import json
import sys
import tempfile
import time

import numpy as np
import tensorflow as tf

SIDE, MODEL, STEPS = sys.argv[1], sys.argv[2], int(sys.argv[3])
if SIDE == "runtime":
    from runtime import estimator
else:
    estimator = tf.estimator

RANDOM = np.random.RandomState(0)
SMALL_X = RANDOM.normal(size=(1024, 16)).astype(np.float32)
SMALL_Y = (SMALL_X[:, :4].sum(axis=1) > 0).astype(np.int32)
IMAGES = RANDOM.uniform(size=(512, 32, 32, 3)).astype(np.float32)
IMAGE_LABELS = RANDOM.randint(0, 10, size=512).astype(np.int32)


def tiny_model_fn(features, labels, mode):
    """Logistic regression with plain SGD: Python overhead dominates."""
    logits = tf.compat.v1.layers.dense(features, 2)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def small_model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features, 32, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(hidden, 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def heavy_model_fn(features, labels, mode):
    net = features
    for filters in (64, 128, 128):
        net = tf.compat.v1.layers.conv2d(net, filters, 3, padding="same", activation=tf.nn.relu)
        net = tf.compat.v1.layers.max_pooling2d(net, 2, 2)
    net = tf.compat.v1.layers.dense(tf.compat.v1.layers.flatten(net), 256, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 10)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def small_input_fn():
    return tf.data.Dataset.from_tensor_slices((SMALL_X, SMALL_Y)).repeat().batch(32)


def heavy_input_fn():
    return tf.data.Dataset.from_tensor_slices((IMAGES, IMAGE_LABELS)).repeat().batch(64)


def main():
    model_fn, input_fn = {
        "tiny": (tiny_model_fn, small_input_fn),
        "small": (small_model_fn, small_input_fn),
        "heavy": (heavy_model_fn, heavy_input_fn),
    }[MODEL]
    config = estimator.RunConfig(tf_random_seed=0)
    est = estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    est.train(input_fn, steps=10)
    start = time.perf_counter()
    est.train(input_fn, steps=STEPS)
    elapsed = time.perf_counter() - start
    print(
        json.dumps({"side": SIDE, "model": MODEL, "steps": STEPS, "steps_per_sec": STEPS / elapsed})
    )


if __name__ == "__main__":
    main()
