"""One Estimator called again and again, as train_and_evaluate and fine-tuning
scripts call it, with and without dropout in model_fn: train, evaluate, train,
evaluate with the same input_fns; then an
input_fn of the same structure that draws one more op seed (dropout's masks
shift), one with another feature (another structure), predictions twice, a
second Estimator writing to the same model_dir between two evaluations, and a
fresh Estimator whose unseeded initializers draw from Python's ``random``.
Prints, as JSON, each call's results, the variables after each training call, and
what Python's and numpy's global generators draw next, and how often model_fn
was called in each call (``model_fn_calls``). Run under both interpreters; the
outputs must match (tests/runtime/test_runtime_call_cache.py).

Usage: python repeated_calls.py legacy|runtime MODEL_DIR
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

X = np.random.RandomState(4).normal(size=(32, 3)).astype(np.float32)
Y = (X @ np.array([0.5, -1.0, 2.0], np.float32) > 0).astype(np.int32)
MODEL_FN_CALLS = []


def model_fn(features, labels, mode, params):
    MODEL_FN_CALLS[-1] += 1
    hidden = tf.compat.v1.layers.dense(features["x"], 8, tf.nn.relu, name="hidden")
    if params["dropout"]:
        training = mode == estimator.ModeKeys.TRAIN
        hidden = tf.compat.v1.layers.dropout(hidden, 0.3, training=training)
    logits = tf.compat.v1.layers.dense(hidden, 2, name="logits")
    classes = tf.argmax(logits, axis=1)
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions={"logits": logits, "classes": classes})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, classes)}
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.05)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def reshuffled_input_fn():
    """The same structure; its unseeded shuffle draws an op seed from the graph."""
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).shuffle(32).repeat().batch(8)


def with_ids_input_fn():
    """Another structure: an extra feature model_fn does not use."""
    ids = np.arange(32, dtype=np.int64)
    return tf.data.Dataset.from_tensor_slices(({"x": X, "id": ids}, Y)).repeat().batch(8)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X[:16]}, Y[:16])).batch(8)


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:6]}).batch(3)


def make_estimator(model_dir, dropout):
    config = estimator.RunConfig(tf_random_seed=7, save_summary_steps=2)
    params = {"dropout": dropout}
    return estimator.Estimator(model_fn, model_dir=model_dir, config=config, params=params)


def variables(est) -> dict:
    return {name: est.get_variable_value(name).tolist() for name in est.get_variable_names()}


def plain(values: dict) -> dict:
    return {key: np.asarray(value).tolist() for key, value in values.items()}


def calls_in_turn(model_dir, dropout) -> tuple[dict, dict]:
    """``({call: its results}, {call: how often it called model_fn})``."""
    MODEL_FN_CALLS.clear()
    est = make_estimator(os.path.join(model_dir, "main"), dropout)
    calls = {}

    def call(label, run):
        MODEL_FN_CALLS.append(0)
        calls[label] = run()

    call("train", lambda: variables(est.train(input_fn, steps=5)))
    call("evaluate", lambda: plain(est.evaluate(eval_input_fn)))
    call("train_again", lambda: variables(est.train(input_fn, steps=5)))
    call("evaluate_again", lambda: plain(est.evaluate(eval_input_fn)))
    call("train_reshuffled", lambda: variables(est.train(reshuffled_input_fn, steps=5)))
    call("train_with_ids", lambda: variables(est.train(with_ids_input_fn, steps=5)))
    call("train_as_before", lambda: variables(est.train(input_fn, steps=5)))
    for label in ("predict", "predict_again"):
        call(label, lambda: [plain(p) for p in est.predict(predict_input_fn)])
    other = make_estimator(est.model_dir, dropout)
    call("other_writer", lambda: variables(other.train(input_fn, steps=3)))
    call("evaluate_after_other_writer", lambda: plain(est.evaluate(eval_input_fn)))
    fresh = make_estimator(os.path.join(model_dir, "fresh"), dropout)
    call("fresh_estimator", lambda: variables(fresh.train(input_fn, steps=1)))
    model_fn_calls = dict(zip(calls, MODEL_FN_CALLS, strict=True))
    calls["next_draws"] = {"random": random.random(), "numpy": np.random.random()}
    return calls, model_fn_calls


def main():
    record = {}
    for case, dropout in (("plain", False), ("dropout", True)):
        calls, model_fn_calls = calls_in_turn(os.path.join(sys.argv[2], case), dropout)
        record[case] = {"calls": calls, "model_fn_calls": model_fn_calls}
    print(json.dumps(record))


if __name__ == "__main__":
    random.seed(0)
    np.random.seed(0)
    main()
