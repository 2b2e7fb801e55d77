"""Writes a large synthetic repository: mostly ordinary Python, a realistic share
of TF1 Estimator code (about one file in seven), deterministic for a given seed."""

from __future__ import annotations

import random
from pathlib import Path

PLAIN = '''"""Utilities for {name}."""
import collections
import json
import os


class {cls}:
    def __init__(self, path):
        self.path = path
        self.cache = collections.OrderedDict()

    def load(self):
        with open(os.path.join(self.path, "{name}.json")) as f:
            return json.load(f)

    def merge(self, other):
        merged = dict(self.cache)
        merged.update(other)
        return merged


def summarize(values):
    total = sum(values)
    return {{"count": len(values), "mean": total / max(len(values), 1)}}
'''

LEGACY = '''"""Model {name}, TF 1.x Estimator style."""
import tensorflow as tf
from tensorflow.contrib import tpu as contrib_tpu

flags = tf.app.flags
FLAGS = flags.FLAGS


def model_fn(features, labels, mode, params):
    net = tf.layers.dense(features["x"], params["units"], activation=tf.nn.relu)
    net = tf.layers.dropout(net, rate=0.1, training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf.layers.dense(net, 2)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={{"logits": logits}})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {{"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}}
    optimizer = tf.train.AdamOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_or_create_global_step())
    tf.logging.info("built {name}")
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def make_estimator(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=100)
    return tf.estimator.Estimator(model_fn, config=config, params={{"units": 16}})
'''


def write_tree(root: Path, files: int, seed: int = 0) -> tuple[int, int]:
    """Returns (files written, lines written)."""
    rng = random.Random(seed)
    lines = 0
    for index in range(files):
        package = root / f"pkg{index % 40}"
        package.mkdir(parents=True, exist_ok=True)
        name = f"module{index}"
        template = LEGACY if rng.random() < 0.15 else PLAIN
        text = template.format(name=name, cls=f"Thing{index}")
        (package / f"{name}.py").write_text(text)
        lines += text.count("\n")
    return files, lines
