"""A model_fn with TF 1's four stateful random ops (dropout's uniform draw, a
normal and a truncated-normal noise, a uniform integer draw that masks inputs),
trained under hooks whose fetches change from step to step: a
``LoggingTensorHook`` every 3 steps and a hook fetching the logits every other
step. Under the Estimator every op was one kernel whose generator moved on with
each step, whatever the step fetched; a second ``train`` call (a new session)
and ``evaluate`` with noise on (Monte Carlo dropout) started them again.

Prints, as JSON, the values the hooks fetched, the variables after each training
call and the evaluation's results. Run under both interpreters; the outputs must
match (tests/runtime/test_runtime_random_streams.py).

Usage: python random_streams.py legacy|runtime MODEL_DIR
"""

import json
import random
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

v1 = tf.compat.v1
X = np.random.RandomState(5).normal(size=(48, 6)).astype(np.float32)
Y = (X @ np.linspace(-1.0, 1.0, 6).astype(np.float32) > 0).astype(np.int32)


def model_fn(features, labels, mode, params):
    x = features["x"]
    keep = v1.random_uniform(tf.shape(x), minval=0, maxval=5, dtype=tf.int32)
    x = x * tf.cast(tf.not_equal(keep, 0), tf.float32)  # drops a fifth of the inputs
    x += 0.1 * v1.random_normal(tf.shape(x)) + 0.05 * v1.truncated_normal(tf.shape(x))
    hidden = v1.layers.dense(x, 16, tf.nn.relu, name="hidden")
    hidden = v1.nn.dropout(hidden, keep_prob=0.7)
    logits = v1.layers.dense(hidden, 2, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    v1.add_to_collection("logits", logits)
    if mode == estimator.ModeKeys.EVAL:
        accuracy = v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    train_op = v1.train.AdamOptimizer(0.05).minimize(loss, global_step=v1.train.get_global_step())
    logging_hook = v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=3)
    return estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, training_hooks=[logging_hook]
    )


class EveryOtherStepLogits(v1.train.SessionRunHook):
    """Fetches the logits on even steps only: the step's fetches change each step."""

    def __init__(self, fetched):
        self._fetched = fetched

    def begin(self):
        self._step = 0
        self._logits = v1.get_collection("logits")[0]

    def before_run(self, run_context):
        self._step += 1
        if self._step % 2 == 0:
            return v1.train.SessionRunArgs(self._logits)
        return None

    def after_run(self, run_context, run_values):
        if run_values.results is not None:
            self._fetched.append(np.asarray(run_values.results).round(6).tolist())


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def variables(est) -> dict:
    return {name: est.get_variable_value(name).tolist() for name in est.get_variable_names()}


def main():
    config = estimator.RunConfig(tf_random_seed=11, save_summary_steps=1, log_step_count_steps=4)
    est = estimator.Estimator(model_fn, model_dir=sys.argv[2], config=config)
    record = {}
    for call in ("train", "train_again"):
        fetched = []
        est.train(input_fn, steps=7, hooks=[EveryOtherStepLogits(fetched)])
        record[call] = {"fetched_logits": fetched, "variables": variables(est)}
    results = est.evaluate(input_fn, steps=3)
    record["evaluate"] = {key: float(value) for key, value in results.items()}
    print(json.dumps(record))


if __name__ == "__main__":
    random.seed(0)  # tf_keras seeds unseeded initializers from it
    np.random.seed(0)
    main()
