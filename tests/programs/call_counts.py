"""How often an Estimator calls the user's functions: input_fn, the generator
of a ``from_generator`` dataset, model_fn and the serving input receiver, per
mode, in each of train, train again, evaluate, evaluate again, predict,
export_saved_model and train_and_evaluate (with evaluations at its checkpoints).

The input functions have side effects real ones have (a line printed, a
counter bumped), so a second call would show. Prints, as JSON, each call's
counts. Run under both interpreters (tests/runtime/test_runtime_call_counts.py).

With ``tf1``, as a TF 1 program runs: ``disable_v2_behavior`` first, so that
model_fn makes reference variables. With ``summaries``, model_fn writes v1
summaries of its own, as most do (the Estimator's summary hook fetched them).

With ``tpu``, a TPUEstimator with a TPUEstimatorSpec (``eval_metrics``, whose
metric_fn is counted too) and, where ``params["use_tpu"]``, CrossShardOptimizer.
The runtime runs it with ``use_tpu=True`` on 2 replicas (MirroredStrategy over 2
logical CPUs, TPUEstimator's TPU semantics); the legacy side with
``use_tpu=False``, the only way tensorflow_estimator runs without a TPU. Its
TPU path called the user's functions as often: model_fn once per graph
(``tpu.split_compile_and_shard`` traces the computation once for all cores),
input_fn once per host (PER_HOST_V1), metric_fn once, on the host.

Usage: python call_counts.py legacy|runtime MODEL_DIR [tf1] [summaries] [tpu]
"""

import collections
import json
import os
import sys

import numpy as np
import tensorflow as tf

if "tf1" in sys.argv[3:]:
    tf.compat.v1.disable_v2_behavior()
RUNTIME = sys.argv[1] == "runtime"
TPU = "tpu" in sys.argv[3:]
if RUNTIME:
    from estimator_revival import estimator
    from estimator_revival.estimator import tpu

    if TPU:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2
        )
else:
    estimator = tf.estimator
    tpu = tf.compat.v1.estimator.tpu

X = np.random.RandomState(2).normal(size=(24, 3)).astype(np.float32)
Y = (X.sum(axis=1) > 0).astype(np.int32)
COUNTS = collections.Counter()
SUMMARIES = "summaries" in sys.argv[3:]


def model_fn(features, labels, mode, params=None):
    COUNTS[f"model_fn/{mode}"] += 1
    weights = tf.compat.v1.get_variable("weights", [3, 2])
    bias = tf.compat.v1.get_variable("bias", [2], initializer=tf.compat.v1.zeros_initializer())
    # A Saver made before the model reads its variables: its restore ops write
    # what the step reads afterwards, but the step never runs them.
    scaffold = tf.compat.v1.train.Scaffold(saver=tf.compat.v1.train.Saver(max_to_keep=3))
    logits = tf.matmul(features["x"], weights) + bias
    if SUMMARIES:
        tf.compat.v1.summary.scalar("mean_logit", tf.reduce_mean(logits))
        tf.compat.v1.summary.histogram("logits", logits)
        tf.compat.v1.summary.histogram("weight_histogram", weights)
    if TPU:
        return tpu_spec(mode, labels, logits, params["use_tpu"])
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(
            mode,
            predictions={"class": tf.argmax(logits, axis=1)},
            export_outputs={"serving": estimator.export.PredictOutput({"logits": logits})},
            scaffold=scaffold,
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))
        return estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"accuracy": accuracy}, scaffold=scaffold
        )
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)


def metric_fn(labels, logits):
    COUNTS["metric_fn"] += 1
    return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))}


def tpu_spec(mode, labels, logits, use_tpu):
    if mode == estimator.ModeKeys.PREDICT:
        return tpu.TPUEstimatorSpec(
            mode,
            predictions={"class": tf.argmax(logits, axis=1)},
            export_outputs={"serving": estimator.export.PredictOutput({"logits": logits})},
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        return tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if use_tpu:
        optimizer = tpu.CrossShardOptimizer(optimizer)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def rows():
    """A generator as a reader of files would be: each start is counted."""
    COUNTS["generator_starts"] += 1
    for x, y in zip(X, Y, strict=True):
        yield {"x": x}, y


def train_input_fn(params):
    COUNTS["input_fn/train"] += 1
    print("reading the training data", file=sys.stderr)
    dataset = tf.data.Dataset.from_generator(
        rows,
        output_types=({"x": tf.float32}, tf.int32),
        output_shapes=({"x": [3]}, []),
    )
    return dataset.shuffle(8).repeat().batch(params.get("batch_size", 4), drop_remainder=TPU)


def eval_input_fn(params):
    COUNTS["input_fn/eval"] += 1
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X[:12]}, Y[:12]))
    return dataset.batch(params.get("batch_size", 4), drop_remainder=TPU)


def predict_input_fn(params):
    COUNTS["input_fn/infer"] += 1
    return tf.data.Dataset.from_tensor_slices({"x": X[:5]}).batch(params.get("batch_size", 2))


def serving_input_receiver_fn():
    COUNTS["serving_input_receiver_fn"] += 1
    x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
    return estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def make_estimator(model_dir):
    if TPU:
        return make_tpu_estimator(model_dir)
    config = estimator.RunConfig(tf_random_seed=3, save_checkpoints_steps=3)
    return estimator.Estimator(model_fn, model_dir=model_dir, config=config)


def make_tpu_estimator(model_dir):
    replicas = None
    if RUNTIME:
        replicas = tf.distribute.MirroredStrategy(
            ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice()
        )
    config = tpu.RunConfig(
        tf_random_seed=3,
        save_checkpoints_steps=3,
        tpu_config=tpu.TPUConfig(iterations_per_loop=2),
        train_distribute=replicas,
    )
    return tpu.TPUEstimator(
        model_fn,
        model_dir=model_dir,
        config=config,
        use_tpu=RUNTIME,
        # TPUEstimator called model_fn and the receiver a second time to export a
        # TPU inference graph (tags serve, tpu), which the runtime does not write.
        export_to_tpu=False,
        train_batch_size=4,
        eval_batch_size=4,
        predict_batch_size=2,
    )


def main():
    est = make_estimator(os.path.join(sys.argv[2], "calls"))
    counts = {}

    def call(label, run):
        COUNTS.clear()
        run()
        counts[label] = dict(COUNTS)

    call("train", lambda: est.train(train_input_fn, steps=4))
    call("train_again", lambda: est.train(train_input_fn, steps=2))
    eval_steps = 3 if TPU else None  # TPUEstimator needs them on TPU
    call("evaluate", lambda: est.evaluate(eval_input_fn, steps=eval_steps))
    call("evaluate_again", lambda: est.evaluate(eval_input_fn, steps=eval_steps))
    call("predict", lambda: list(est.predict(predict_input_fn)))
    export_dir = os.path.join(sys.argv[2], "export")
    call("export", lambda: est.export_saved_model(export_dir, serving_input_receiver_fn))
    fresh = make_estimator(os.path.join(sys.argv[2], "train_and_evaluate"))
    train_spec = estimator.TrainSpec(train_input_fn, max_steps=6)
    eval_spec = estimator.EvalSpec(eval_input_fn, steps=eval_steps, throttle_secs=0)
    call("train_and_evaluate", lambda: estimator.train_and_evaluate(fresh, train_spec, eval_spec))
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
