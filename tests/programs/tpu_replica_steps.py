"""A TPUEstimator on 2 replicas (MirroredStrategy over 2 logical CPUs, use_tpu=True),
trained, evaluated and asked for predictions, with or without a hook.

Without hooks the runtime runs the discovery graph's slices in every replica
(runtime/tf1/tpu_slices.py) where the graph allows; a hook needs model_fn's graph,
so with one (it does nothing) every replica calls model_fn, the path the
replication tests compare with one device. Both runs must give the same numbers.
``every_replica`` takes that path without hooks: the runtime with the slices
declined, as before them (a dropout step's kernels then run in the same
programs as the sliced step's, which a hooked training's do not).

Models (the patterns BERT-style TPU programs use):
- ``adam``: CrossShardOptimizer around AdamOptimizer, a polynomially decayed
  learning rate, gradients clipped by their global norm before the sum;
- ``custom_apply``: CrossShardOptimizer around an optimizer with its own
  ``apply_gradients`` (assignments of its own, as BERT's AdamWeightDecayOptimizer)
  and a hand-bumped global step;
- ``dropout``: ``adam`` with dropout (random ops, a kernel per replica).

With ``tf1``, as a TF 1 program runs: ``disable_v2_behavior`` first (reference
variables).

Prints, as JSON: model_fn's calls per mode, the per-step ``loss`` summaries, the
evaluate() dict, the predictions and the final variables.

Usage: python tpu_replica_steps.py runtime MODEL_DIR adam|custom_apply|dropout
           [hooked|every_replica] [tf1]
"""

import json
import sys

import numpy as np
import tensorflow as tf

if "tf1" in sys.argv[4:]:
    tf.compat.v1.disable_v2_behavior()
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from estimator_revival import estimator  # noqa: E402
from estimator_revival.estimator import tpu  # noqa: E402
from fixtures.equivalence import recording  # noqa: E402

MODEL, HOOKED = sys.argv[3], "hooked" in sys.argv[4:]
if "every_replica" in sys.argv[4:]:
    from estimator_revival.engine.steps import TracedModel

    slices_where_allowed = TracedModel.sliced

    def no_tpu_slices(traced, graph_slice, *, hooked=False, as_on_tpu=False):
        return None if traced.on_tpu else slices_where_allowed(traced, graph_slice, hooked=hooked)

    TracedModel.sliced = no_tpu_slices
X = np.random.RandomState(2).normal(size=(48, 5)).astype(np.float32)
Y = (X.sum(axis=1) > 0).astype(np.int32)
CALLS: list[str] = []


class WeightDecaySGD(tf.compat.v1.train.Optimizer):
    """Applies ``var -= lr * (grad + 0.01 * var)`` with assignments of its own."""

    def __init__(self, learning_rate):
        super().__init__(use_locking=False, name="WeightDecaySGD")
        self.learning_rate = learning_rate

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = [
            var.assign(var - self.learning_rate * (grad + 0.01 * var))
            for grad, var in grads_and_vars
        ]
        return tf.group(*assignments, name=name)


def metric_fn(labels, logits):
    return {
        "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, axis=1)),
        "mean_logit": tf.compat.v1.metrics.mean(logits),
    }


def model_fn(features, labels, mode, params):
    CALLS.append(mode)
    hidden = tf.compat.v1.layers.dense(
        features["x"],
        8,
        activation=tf.nn.relu,
        kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=1),
    )
    if MODEL == "dropout" and mode == estimator.ModeKeys.TRAIN:
        hidden = tf.nn.dropout(hidden, rate=0.1, seed=4)
    logits = tf.compat.v1.layers.dense(
        hidden, 2, kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=2)
    )
    if mode == estimator.ModeKeys.PREDICT:
        return tpu.TPUEstimatorSpec(mode, predictions={"probabilities": tf.nn.softmax(logits)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        return tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
    return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op(loss))


def train_op(loss):
    global_step = tf.compat.v1.train.get_global_step()
    learning_rate = tf.compat.v1.train.polynomial_decay(0.05, global_step, 100, 0.0)
    if MODEL == "custom_apply":
        optimizer = tpu.CrossShardOptimizer(WeightDecaySGD(learning_rate))
        grads_and_vars = optimizer.compute_gradients(loss)
        update = optimizer.apply_gradients(grads_and_vars)
        with tf.control_dependencies([update]):
            return global_step.assign_add(1)
    optimizer = tpu.CrossShardOptimizer(tf.compat.v1.train.AdamOptimizer(learning_rate))
    grads, variables = zip(*optimizer.compute_gradients(loss), strict=True)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    return optimizer.apply_gradients(zip(grads, variables, strict=True), global_step=global_step)


def train_input_fn(params):
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat()
    return dataset.batch(params["batch_size"], drop_remainder=True)


def eval_input_fn(params):
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X[:32]}, Y[:32]))
    return dataset.batch(params["batch_size"], drop_remainder=True)


def predict_input_fn(params):
    return tf.data.Dataset.from_tensor_slices({"x": X[:12]}).batch(params["batch_size"])


def main():
    model_dir = sys.argv[2]
    replicas = tf.distribute.MirroredStrategy(
        ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice()
    )
    config = tpu.RunConfig(
        tf_random_seed=3,
        save_summary_steps=1,
        train_distribute=replicas,
        tpu_config=tpu.TPUConfig(iterations_per_loop=3),
    )
    est = tpu.TPUEstimator(
        model_fn,
        model_dir=model_dir,
        config=config,
        use_tpu=True,
        train_batch_size=16,
        eval_batch_size=16,
        predict_batch_size=8,
    )
    hooks = [tf.compat.v1.train.SessionRunHook()] if HOOKED else None
    calls = {}
    est.train(train_input_fn, steps=7, hooks=hooks)
    calls["train"], CALLS[:] = len(CALLS), []
    metrics = est.evaluate(eval_input_fn, steps=2, hooks=hooks)
    calls["evaluate"], CALLS[:] = len(CALLS), []
    predictions = [
        row["probabilities"].tolist() for row in est.predict(predict_input_fn, hooks=hooks)
    ]
    calls["predict"] = len(CALLS)
    record = {
        "model_fn_calls": calls,
        "losses": recording.scalar_summaries(model_dir)["loss"],
        "metrics": {name: float(value) for name, value in metrics.items()},
        "predictions": predictions,
        "variables": {
            name: est.get_variable_value(name).tolist() for name in est.get_variable_names()
        },
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
