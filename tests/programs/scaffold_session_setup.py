"""model_fns whose Scaffold carries what a TF 1 Session ran once, when it was
created: a ``Saver(max_to_keep=2)`` (and one that saves only some variables), and
a ``local_init_op`` built from ``local_variables_initializer()`` and
``tables_initializer()`` under control dependencies, with a
``report_uninitialized_variables()`` ready op. Prints, as JSON, the per-step
losses, predictions, checkpoints kept and variables saved. Run under both
interpreters; the outputs must match (tests/runtime/test_runtime_session_setup.py).

Usage: python scaffold_session_setup.py legacy|runtime MODEL_DIR
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

X = np.random.RandomState(3).normal(size=(16, 3)).astype(np.float32)
Y = X @ np.array([[0.5], [-1.0], [2.0]], np.float32)
VOCABULARY = ["low", "mid", "high"]


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(4)


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:4]}).batch(4)


def _prediction_and_loss(features, labels):
    hidden = tf.compat.v1.layers.dense(features["x"], 4, tf.nn.relu, name="hidden")
    prediction = tf.compat.v1.layers.dense(hidden, 1, name="out")
    loss = None if labels is None else tf.reduce_mean(tf.square(prediction - labels))
    return prediction, loss


def _train_op(loss, mode):
    if mode != estimator.ModeKeys.TRAIN:
        return None
    optimizer = tf.compat.v1.train.AdamOptimizer(0.05)
    return optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())


def saver_model_fn(features, labels, mode, params):
    prediction, loss = _prediction_and_loss(features, labels)
    train_op = _train_op(loss, mode)  # the Saver built after it also saves Adam's slots
    var_list = None
    if params["hidden_only"]:  # the output layer and Adam's slots are not saved
        var_list = [*tf.compat.v1.global_variables("hidden"), tf.compat.v1.train.get_global_step()]
    scaffold = tf.compat.v1.train.Scaffold(
        saver=tf.compat.v1.train.Saver(var_list=var_list, max_to_keep=2, sharded=True)
    )
    return estimator.EstimatorSpec(
        mode,
        predictions={"y": prediction},
        loss=loss,
        train_op=train_op,
        scaffold=scaffold,
    )


def local_init_model_fn(features, labels, mode):
    prediction, loss = _prediction_and_loss(features, labels)
    weights = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(VOCABULARY, [0.5, 1.0, 2.0]), default_value=0.0
    )
    calls = tf.compat.v1.get_local_variable(
        "steps_this_call", [], initializer=tf.zeros_initializer()
    )
    with tf.control_dependencies(
        [tf.compat.v1.local_variables_initializer(), tf.compat.v1.tables_initializer()]
    ):
        local_init_op = tf.no_op(name="local_init")
    scaffold = tf.compat.v1.train.Scaffold(
        local_init_op=local_init_op, ready_op=tf.compat.v1.report_uninitialized_variables()
    )
    # Counts batches. (Made to wait for the batch: a TF 1 Session that hit the end of
    # the input still ran the ops that did not need it, a count too many.)
    count = calls.assign_add(tf.cast(tf.size(prediction) > 0, tf.float32))
    metrics = None
    if loss is not None:
        with tf.control_dependencies([count]):
            loss = loss * weights.lookup(tf.constant("high")) + 0.0 * count
        # 1 and 2 over two batches when the local init op ran at the call's start
        metrics = {"steps_this_call": tf.compat.v1.metrics.mean(count)}
    return estimator.EstimatorSpec(
        mode,
        predictions={"y": prediction, "steps_this_call": tf.fill(tf.shape(prediction), calls)},
        loss=loss,
        train_op=_train_op(loss, mode),
        eval_metric_ops=metrics if mode == estimator.ModeKeys.EVAL else None,
        scaffold=scaffold,
    )


class LossRecorder(tf.compat.v1.train.SessionRunHook):
    def __init__(self, into):
        self._into = into

    def begin(self):
        self._loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self._into.append(float(run_values.results))


def run(name, model_fn, model_dir, params=None):
    random.seed(0)  # Keras' v1 initializers draw their seeds from `random`
    config = estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=3)
    est = estimator.Estimator(model_fn, model_dir=model_dir, config=config, params=params)
    losses = []
    est.train(input_fn, steps=5, hooks=[LossRecorder(losses)])
    saved = sorted(name for name, _ in tf.train.list_variables(est.latest_checkpoint()))
    try:
        est.train(input_fn, steps=4, hooks=[LossRecorder(losses)])
    except RuntimeError as error:  # a saver that leaves variables out cannot resume
        return {"losses": losses, "saved": saved, "resuming": type(error).__name__}
    evaluated = est.evaluate(lambda: input_fn().take(2))
    predictions = [
        {key: value.tolist() for key, value in row.items()} for row in est.predict(predict_input_fn)
    ]
    return {
        "losses": losses,
        "evaluate": {key: float(value) for key, value in evaluated.items()},
        "predictions": predictions,
        "checkpoints": sorted(f for f in os.listdir(model_dir) if f.endswith(".index")),
        "saved": saved,
        "out_kernel": est.get_variable_value("hidden/kernel").tolist(),
    }


def main():
    model_dir = sys.argv[2]
    print(
        json.dumps(
            {
                "saver": run("saver", saver_model_fn, f"{model_dir}/saver", {"hidden_only": False}),
                "saver_subset": run(
                    "saver_subset", saver_model_fn, f"{model_dir}/subset", {"hidden_only": True}
                ),
                "local_init": run("local_init", local_init_model_fn, f"{model_dir}/local"),
            }
        )
    )


if __name__ == "__main__":
    main()
