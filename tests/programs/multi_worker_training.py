"""One task of a ``train_and_evaluate`` cluster described by TF_CONFIG (chief,
worker or evaluator), or, without TF_CONFIG, the single-process reference run.

Every training task reads its shard of the rows (``input_context``) in batches
of global-batch / workers, so a step of the cluster covers the rows a step of
the single process covers. Checkpoints every 4 steps; max steps from the command.
"""

import argparse
import random
import sys
from pathlib import Path

import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from estimator_revival import estimator  # noqa: E402
from helpers.runtime_models import X, Y  # noqa: E402

GLOBAL_BATCH = 16


class ChiefMarkerHook(tf.compat.v1.train.SessionRunHook):
    """A training_chief_hooks hook: leaves ``chief_hook_began.<task type>`` in model_dir."""

    def __init__(self, config):
        self._marker = Path(config.model_dir) / f"chief_hook_began.{config.task_type}"

    def begin(self):
        self._marker.touch()


def model_fn(features, labels, mode, config):
    hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.tanh, name="hidden")
    prediction = tf.compat.v1.layers.dense(hidden, 1, name="output")
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    if mode == estimator.ModeKeys.EVAL:
        mae = tf.compat.v1.metrics.mean_absolute_error(labels, prediction)
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mae": mae})
    optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, training_chief_hooks=[ChiefMarkerHook(config)]
    )


def train_input_fn(input_context=None):
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
    batch_size = GLOBAL_BATCH
    if input_context is not None:
        dataset = dataset.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        batch_size = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
    return dataset.repeat().batch(batch_size)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(GLOBAL_BATCH)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--max-steps", type=int, required=True)
    args = parser.parse_args()
    random.seed(0)  # Keras v1 initializers draw unseeded seeds from `random`
    config = estimator.RunConfig(tf_random_seed=3, save_checkpoints_steps=4)
    est = estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    estimator.train_and_evaluate(
        est,
        estimator.TrainSpec(train_input_fn, max_steps=args.max_steps),
        estimator.EvalSpec(eval_input_fn, steps=None, start_delay_secs=0, throttle_secs=1),
    )


if __name__ == "__main__":
    main()
