"""A MirroredStrategy over GPU:0 and GPU:1 on a machine without them, with the
session config's soft placement on (``soft``) or off (``hard``): TF 1.15 ran both
replicas on the CPU, reducing their gradients on one device, or failed in its
placer. Prints JSON (the trained weight and evaluation, what a hook saw of the graph and
fetched, or the error); run under both interpreters
(tests/distribution/test_absent_gpus.py).

Usage: python absent_gpus.py legacy|runtime MODEL_DIR soft|hard
"""

import json
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

INPUTS = np.random.RandomState(2).normal(size=(64, 3)).astype(np.float32)
TARGETS = INPUTS @ np.array([[0.5], [-1.0], [2.0]], np.float32)
ABSENT_GPUS = ["/gpu:0", "/gpu:1"]


def model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", [3, 1])
    prediction = tf.matmul(features, weight)
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class LossHook(tf.compat.v1.train.SessionRunHook):
    """Fetches the last loss in the LOSSES collection every step (the reported
    loss, which the Estimator added after the replicas' own), and names the
    global variables by their ops, as hooks of 2018 code did."""

    def __init__(self):
        self.losses, self.variables = [], []

    def begin(self):
        self._loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1]
        self.variables = sorted(v.op.name for v in tf.compat.v1.global_variables())

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def strategy():
    if sys.argv[1] == "runtime":  # TF 2's own class, as a TF 1 program wrote it
        return tf.distribute.MirroredStrategy(ABSENT_GPUS)
    # TF 1.15's choice for devices it cannot see (TF 2.15's is collective all-reduce)
    return tf.distribute.MirroredStrategy(
        ABSENT_GPUS, cross_device_ops=tf.distribute.ReductionToOneDevice()
    )


def main(model_dir: str, placement: str) -> dict:
    session_config = tf.compat.v1.ConfigProto(allow_soft_placement=placement == "soft")
    config = estimator.RunConfig(
        train_distribute=strategy(), session_config=session_config, tf_random_seed=3
    )
    est = estimator.Estimator(model_fn, model_dir=model_dir, config=config)

    def dataset():
        return tf.data.Dataset.from_tensor_slices((INPUTS, TARGETS))

    hook = LossHook()
    try:
        est.train(lambda: dataset().repeat().batch(4), steps=6, hooks=[hook])
    except tf.errors.InvalidArgumentError as error:
        lines = error.message.splitlines()
        placer = [line for line in lines if line.startswith("Cannot assign a device")]
        return {"error": type(error).__name__, "message": (placer or lines)[0]}
    evaluation = est.evaluate(lambda: dataset().batch(8), steps=2)
    return {
        "weight": est.get_variable_value("w").ravel().tolist(),
        "loss": float(evaluation["loss"]),
        "global_step": int(evaluation["global_step"]),
        "hook_losses": hook.losses,
        "hook_variables": hook.variables,
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[2], sys.argv[3])))
