"""One model_fn with v1 summaries (of the loss, of the weights, of the global step
and of a streaming metric's update) trained twice: on the runtime, its step runs the discovery graph's own ops
(runtime/tf1/step_summaries.py), and with those slices declined model_fn is
traced again (the path of steps no slice computes). Prints, as JSON, per run: how often
model_fn was called, the scalar summaries written, and the kernel's sum in each
checkpoint, computed as the summary computes it.

With ``tf1``, as a TF 1 program runs: ``disable_v2_behavior`` first (reference
variables). Run as ``legacy`` (TF 2.15's Estimator) it shows what the Estimator
wrote: the kernel's sum from before each step (a read TF 1's Session raced with
the update, so not asserted by a test).

Usage: python summary_paths.py legacy|runtime MODEL_DIR [tf1]
"""

import contextlib
import json
import os
import sys

import numpy as np
import tensorflow as tf

if "tf1" in sys.argv[3:]:
    tf.compat.v1.disable_v2_behavior()

from fixtures.equivalence.recording import scalar_summaries  # noqa: E402

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

X = np.random.RandomState(6).normal(size=(8, 3)).astype(np.float32)
Y = np.random.RandomState(7).normal(size=(8, 1)).astype(np.float32)
STEPS = 6


def model_fn_counting(calls: list):
    def model_fn(features, labels, mode):
        calls.append(mode)
        kernel = tf.compat.v1.get_variable(
            "kernel", [3, 1], initializer=tf.compat.v1.truncated_normal_initializer(seed=3)
        )
        predictions = tf.matmul(features, kernel)
        loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
        global_step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.AdagradOptimizer(0.5).minimize(loss, global_step=global_step)
        # made after minimize(), reading what it updates, as TF 1 programs did
        tf.compat.v1.summary.scalar("rmse", tf.sqrt(loss))
        tf.compat.v1.summary.scalar("kernel_sum", tf.reduce_sum(kernel))
        tf.compat.v1.summary.scalar("step", global_step)
        tf.compat.v1.summary.histogram("kernel", kernel)
        # a streaming metric's update, run when the summaries are
        tf.compat.v1.summary.scalar("mean_loss", tf.compat.v1.metrics.mean(loss)[1])
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


@contextlib.contextmanager
def slices_declined():
    """The runtime's steps trace model_fn instead of running a slice."""
    from estimator_revival.engine import steps

    sliced = steps.TracedModel.sliced
    steps.TracedModel.sliced = lambda *args, **kwargs: None
    try:
        yield
    finally:
        steps.TracedModel.sliced = sliced


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(4)


def kernel_sums(model_dir: str) -> list:
    """The kernel's sum in each checkpoint, in step order, as tf.reduce_sum adds."""
    state = tf.train.get_checkpoint_state(model_dir)
    paths = sorted(state.all_model_checkpoint_paths, key=lambda p: int(p.rsplit("-", 1)[1]))
    with tf.compat.v1.Session(graph=tf.Graph()) as session:
        kernel = tf.compat.v1.placeholder(tf.float32, [3, 1])
        total = tf.reduce_sum(kernel)
        return [
            float(session.run(total, {kernel: tf.train.load_variable(p, "kernel")})) for p in paths
        ]


def run(model_dir: str) -> dict:
    calls = []
    config = estimator.RunConfig(
        tf_random_seed=2, save_summary_steps=1, save_checkpoints_steps=1, keep_checkpoint_max=10
    )
    est = estimator.Estimator(model_fn_counting(calls), model_dir, config=config)
    est.train(input_fn, steps=STEPS)
    return {
        "model_fn_calls": len(calls),
        "summaries": scalar_summaries(model_dir),
        "kernel_sums": kernel_sums(model_dir),
    }


def traced_run(model_dir: str) -> dict:
    if sys.argv[1] != "runtime":
        return run(model_dir)
    with slices_declined():
        return run(model_dir)


def main():
    model_dir = sys.argv[2]
    print(
        json.dumps(
            {
                "sliced": run(os.path.join(model_dir, "sliced")),
                "traced": traced_run(os.path.join(model_dir, "traced")),
            }
        )
    )


if __name__ == "__main__":
    main()
