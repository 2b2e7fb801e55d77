"""What an Estimator's model_dir and log show after train and evaluate, and a
second Estimator's training in the same model_dir: the files (graph.pbtxt, a
.meta beside each checkpoint, one events file: the Estimator's writers were one
per directory in a process), a training graph
that ``import_meta_graph`` loads and its Saver restores from the last
checkpoint, the graph in the events file, and the lines logged on TensorFlow's
logger (``tf.compat.v1.logging``) that the Estimator wrote.

Prints them as JSON. Run under both interpreters; the outputs must match
(tests/runtime/test_runtime_model_dir_files.py).

Usage: python model_dir_files.py legacy|runtime MODEL_DIR
"""

import json
import logging
import os
import random
import re
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

v1 = tf.compat.v1
X = np.random.RandomState(8).normal(size=(40, 4)).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int32)
# The Estimator's own lines (timings and paths aside)
ESTIMATOR_LINES = re.compile(
    r"^(loss = |Saving checkpoints for |Loss for final step|Saving dict for global step)"
)


def model_fn(features, labels, mode):
    logits = v1.layers.dense(features["x"], 2, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        accuracy = v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=v1.train.get_global_step()
    )
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(8)


class Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        line = record.getMessage()
        if ESTIMATOR_LINES.match(line):
            self.lines.append(re.sub(r" into .*", " into MODEL_DIR", line))


def restored_by_the_meta_graph(checkpoint):
    with tf.Graph().as_default(), v1.Session() as session:
        saver = v1.train.import_meta_graph(checkpoint + ".meta")
        saver.restore(session, checkpoint)
        return {
            variable.op.name: np.asarray(session.run(variable)).tolist()
            for variable in v1.global_variables()
        }


def graphs_in_events(model_dir):
    found = 0
    for name in os.listdir(model_dir):
        if name.startswith("events.out.tfevents"):
            for event in v1.train.summary_iterator(os.path.join(model_dir, name)):
                found += event.HasField("graph_def")
    return found


def _text(directory, name):
    with open(os.path.join(directory, name)) as file:
        return file.read()


def main():
    model_dir = sys.argv[2]
    random.seed(0)
    lines = Lines()
    logging.getLogger("tensorflow").addHandler(lines)
    v1.logging.set_verbosity(v1.logging.INFO)
    config = estimator.RunConfig(tf_random_seed=3, save_checkpoints_steps=4)
    model = estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    model.train(lambda: input_fn().repeat(), steps=6)
    model.evaluate(input_fn)
    model = estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    model.train(lambda: input_fn().repeat(), steps=2)
    checkpoint = model.latest_checkpoint()
    files = sorted(
        "events" if name.startswith("events.out") else name
        for name in os.listdir(model_dir)
        if os.path.isfile(os.path.join(model_dir, name))
    )
    record = {
        "files": files,
        "restored": restored_by_the_meta_graph(checkpoint),
        "variables": {
            name: model.get_variable_value(name).tolist() for name in model.get_variable_names()
        },
        "graphs_in_events": graphs_in_events(model_dir) > 0,
        "graph_pbtxt_has_train_op": "GradientDescent" in _text(model_dir, "graph.pbtxt"),
        "lines": lines.lines,
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
