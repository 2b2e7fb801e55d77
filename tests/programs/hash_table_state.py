"""A model_fn whose train_op inserts each batch's words into a
``MutableHashTable`` and its ids into a ``DenseHashTable`` (state that is not a
variable: TF 1's Saver checkpointed them from SAVEABLE_OBJECTS as
``<name>-keys``/``<name>-values``; a dense table's buckets, empty ones included,
which grow from 8 as ids come in). Trains, evaluates,
predicts, trains again in a second call (the table must carry over through the
checkpoint), exports and serves. Prints, as JSON, what each call saw of the table,
the checkpoint's keys and the tables' saved contents. Run under both interpreters;
the outputs must match (tests/runtime/test_runtime_session_setup.py).

Usage: python hash_table_state.py legacy|runtime MODEL_DIR
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

X = np.arange(12, dtype=np.float32).reshape(12, 1)
WORDS = np.array([b"a", b"b", b"c", b"d", b"a", b"e", b"f", b"g", b"a", b"b", b"c", b"h"])
MORE_WORDS = np.array([b"x", b"y", b"a"] * 4)
IDS = np.array([3, 5, 7, 3, 11, 13, 17, 19, 23, 29, 5, 31], dtype=np.int64)
MORE_IDS = np.array([37, 41, 3, 43] * 3, dtype=np.int64)


def id_counts():
    """Per id: how many times it was seen, and the sum of its x."""
    return tf.lookup.experimental.DenseHashTable(
        tf.int64,
        tf.float32,
        default_value=[0.0, 0.0],
        empty_key=-1,
        deleted_key=-2,
        initial_num_buckets=8,
        name="id_counts",
    )


def model_fn(features, labels, mode):
    table = tf.lookup.experimental.MutableHashTable(
        tf.string, tf.int64, default_value=-1, name="seen_words"
    )
    counts = id_counts()
    weight = tf.compat.v1.get_variable("w", [1, 1])
    prediction = tf.matmul(features["x"], weight)[:, 0]
    seen = tf.fill(tf.shape(prediction), table.size())
    if mode == estimator.ModeKeys.PREDICT:
        predictions = {
            "prediction": prediction,
            "table_size": seen,
            "id_count": counts.lookup(features["id"])[:, 0],
        }
        return estimator.EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs={"serving_default": estimator.export.PredictOutput(predictions)},
        )
    loss = tf.reduce_mean(tf.square(prediction - labels))
    if mode == estimator.ModeKeys.EVAL:
        metrics = {
            "table_size": tf.compat.v1.metrics.mean(table.size()),
            "ids": tf.compat.v1.metrics.mean(counts.size()),
        }
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    insert = table.insert(features["word"], tf.ones_like(features["word"], tf.int64))
    count = counts.lookup(features["id"]) + tf.stack(
        [tf.ones_like(features["x"][:, 0]), features["x"][:, 0]], axis=1
    )
    with tf.control_dependencies([count]):
        count_insert = counts.insert(features["id"], count)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.001)
    with tf.control_dependencies([insert, count_insert]):
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn_of(words, ids):
    def input_fn():
        features = {"x": X, "word": words, "id": ids}
        return tf.data.Dataset.from_tensor_slices((features, X[:, 0] * 2)).batch(3)

    return input_fn


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:2], "id": IDS[:2]}).batch(2)


def serving_input_receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 1], name="x")
    ids = tf.compat.v1.placeholder(tf.int64, [None], name="id")
    features = {"x": x, "id": ids}
    return estimator.export.ServingInputReceiver(features, features)


def saved_table(est) -> dict:
    """The table as the latest checkpoint holds it: {word: value}."""
    path = est.latest_checkpoint()
    keys = tf.train.load_variable(path, "seen_words-keys")
    values = tf.train.load_variable(path, "seen_words-values")
    return {key.decode(): int(value) for key, value in sorted(zip(keys, values, strict=True))}


def saved_buckets(est) -> dict:
    """The dense table's buckets as the latest checkpoint holds them, in order."""
    path = est.latest_checkpoint()
    return {
        "keys": tf.train.load_variable(path, "id_counts-keys").tolist(),
        "values": tf.train.load_variable(path, "id_counts-values").tolist(),
    }


def main():
    est = estimator.Estimator(
        model_fn, model_dir=sys.argv[2], config=estimator.RunConfig(tf_random_seed=1)
    )
    est.train(input_fn_of(WORDS, IDS), steps=3)
    record = {
        "after_train": saved_table(est),
        "buckets_after_train": saved_buckets(est),
        "evaluate": {
            k: float(v) for k, v in est.evaluate(input_fn_of(WORDS, IDS), steps=1).items()
        },
        "predict": [
            [int(p["table_size"]), float(p["id_count"])] for p in est.predict(predict_input_fn)
        ],
    }
    est.train(input_fn_of(MORE_WORDS, MORE_IDS), steps=2)
    record["after_second_train"] = saved_table(est)
    record["buckets_after_second_train"] = saved_buckets(est)
    record["checkpoint_keys"] = sorted(
        n for n, _ in tf.train.list_variables(est.latest_checkpoint())
    )
    export = est.export_saved_model(os.path.join(sys.argv[2], "export"), serving_input_receiver_fn)
    served = tf.saved_model.load(export.decode()).signatures["serving_default"]
    outputs = served(x=tf.constant(X[:2]), id=tf.constant(MORE_IDS[:2]))
    record["served"] = {key: outputs[key].numpy().tolist() for key in ("table_size", "id_count")}
    print(json.dumps(record))


if __name__ == "__main__":
    random.seed(0)
    main()
