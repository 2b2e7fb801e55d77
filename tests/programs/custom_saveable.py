"""A model_fn whose state is a raw hash table op with a SaveableObject of its own
in SAVEABLE_OBJECTS (as TF 1 code checkpointed custom state, and as
tensorflow/estimator's own export test does with TF's ``CheckpointedOp``): the
train_op counts each batch's words in it, TF 1's Saver wrote it under
``<name>-keys``/``<name>-values``, and every later call and the export restored
it through the saveable. Prints, as JSON, the checkpoint's keys and the table's
saved contents after each call, what evaluate and predict read of it, and what
the exported model serves. Run under both interpreters; the outputs must match
(tests/runtime/test_runtime_session_setup.py).

Usage: python custom_saveable.py legacy|runtime MODEL_DIR
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_lookup_ops
from tensorflow.python.training.saving import saveable_object

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

WORDS = np.array([b"a", b"b", b"a", b"c", b"a", b"b"])
X = np.arange(6, dtype=np.float32).reshape(6, 1)


class WordCounts:
    """Counts per word in a hash table op, checkpointed by its own saveable."""

    class Saveable(saveable_object.SaveableObject):
        def __init__(self, counts, name):
            keys, values = gen_lookup_ops.lookup_table_export_v2(
                counts.table, tf.string, tf.float32
            )
            specs = [
                saveable_object.SaveSpec(keys, "", f"{name}-keys"),
                saveable_object.SaveSpec(values, "", f"{name}-values"),
            ]
            super().__init__(counts, specs, name)
            self._table = counts.table

        def restore(self, restored_tensors, restored_shapes):
            keys, values = restored_tensors
            return gen_lookup_ops.lookup_table_import_v2(self._table, keys, values)

    def __init__(self, name):
        self.table = gen_lookup_ops.mutable_hash_table_v2(
            key_dtype=tf.string, value_dtype=tf.float32, name=name
        )
        tf.compat.v1.add_to_collection(
            tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS, WordCounts.Saveable(self, name)
        )

    def count(self, words):
        return gen_lookup_ops.lookup_table_find_v2(self.table, words, tf.constant(0.0))

    def add(self, words):
        counted = self.count(words) + 1.0
        return gen_lookup_ops.lookup_table_insert_v2(self.table, words, counted)


def model_fn(features, labels, mode):
    counts = WordCounts("word_counts")
    weight = tf.compat.v1.get_variable("w", [1, 1])
    prediction = tf.matmul(features["x"], weight)[:, 0]
    seen = counts.count(features["word"])
    if mode == estimator.ModeKeys.PREDICT:
        predictions = {"prediction": prediction, "seen": seen}
        return estimator.EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs={"serving_default": estimator.export.PredictOutput(predictions)},
        )
    loss = tf.reduce_mean(tf.square(prediction - labels))
    if mode == estimator.ModeKeys.EVAL:
        metrics = {"seen": tf.compat.v1.metrics.mean(seen)}
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    with tf.control_dependencies([counts.add(features["word"])]):
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    features = {"x": X, "word": WORDS}
    return tf.data.Dataset.from_tensor_slices((features, X[:, 0])).batch(1)


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:3], "word": WORDS[:3]}).batch(3)


def serving_input_receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 1], name="x")
    word = tf.compat.v1.placeholder(tf.string, [None], name="word")
    features = {"x": x, "word": word}
    return estimator.export.ServingInputReceiver(features, features)


def saved_counts(est) -> dict:
    path = est.latest_checkpoint()
    keys = tf.train.load_variable(path, "word_counts-keys")
    values = tf.train.load_variable(path, "word_counts-values")
    return {key.decode(): float(value) for key, value in sorted(zip(keys, values, strict=True))}


def main():
    est = estimator.Estimator(model_fn, model_dir=sys.argv[2])
    est.train(input_fn, steps=4)
    record = {
        "checkpoint_keys": sorted(n for n, _ in tf.train.list_variables(est.latest_checkpoint())),
        "after_train": saved_counts(est),
        "evaluate": float(est.evaluate(input_fn, steps=6)["seen"]),
        "predict": [float(p["seen"]) for p in est.predict(predict_input_fn)],
    }
    est.train(input_fn, steps=2)  # a new call: the counts restored, then two more
    record["after_second_train"] = saved_counts(est)
    export = est.export_saved_model(os.path.join(sys.argv[2], "export"), serving_input_receiver_fn)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], export.decode())
        signature = meta_graph.signature_def["serving_default"]
        served = session.run(
            signature.outputs["seen"].name,
            {
                signature.inputs["x"].name: X[:3],
                signature.inputs["word"].name: WORDS[:3],
            },
        )
    record["served"] = served.tolist()
    print(json.dumps(record))


if __name__ == "__main__":
    main()
