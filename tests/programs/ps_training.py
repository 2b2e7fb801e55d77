"""One task of a parameter-server cluster (TF_CONFIG with chief, worker, ps and
evaluator tasks) running ``train_and_evaluate``; without TF_CONFIG, the
one-process reference run. ``--evaluate`` evaluates model_dir's latest
checkpoint and prints the metrics as JSON; ``--legacy`` runs on ``tf.estimator``
instead of the runtime.

The chief writes where model_fn's variables are to ``placement.json`` in model_dir
(``{variable: "job:task"}``, from the variables' devices). Each task with
hooks (on the legacy side every task, on the runtime's the chief, whose
coordinator schedules the workers' steps) writes how many runs its hooks saw to
``steps-<task>.txt``.

The model looks ids up in an embedding partitioned in two
(``fixed_size_partitioner``), as Estimator recommendation models sharded their
embeddings across ps tasks, then a dense layer; Adagrad, checkpoints every 10
steps.
"""

import argparse
import json
import logging
import os
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

if "--legacy" in sys.argv:
    from tensorflow import estimator
else:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from estimator_revival import estimator

VOCABULARY = 50
BATCH = 8
ROWS = 256


def rows():
    """Ids and labels a linear model of the embedding fits up to the labels' noise
    (so that the loss after training measures the training, not float rounding)."""
    generator = np.random.default_rng(7)
    ids = generator.integers(0, VOCABULARY, size=(ROWS, 3)).astype(np.int64)
    weights = generator.normal(size=VOCABULARY).astype(np.float32)
    noise = generator.normal(scale=0.3, size=(ROWS, 1)).astype(np.float32)
    labels = weights[ids].sum(axis=1, keepdims=True) + noise
    return ids, labels


def model_fn(features, labels, mode):
    embedding = tf.compat.v1.get_variable(
        "embedding",
        [VOCABULARY, 4],
        initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.1, seed=1),
        partitioner=tf.compat.v1.fixed_size_partitioner(2),
    )
    looked_up = tf.nn.embedding_lookup(embedding, features["ids"])
    pooled = tf.reduce_sum(looked_up, axis=1)
    prediction = tf.compat.v1.layers.dense(
        pooled, 1, kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=2)
    )
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions={"prediction": prediction})
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    if mode == estimator.ModeKeys.EVAL:
        mae = tf.compat.v1.metrics.mean_absolute_error(labels, prediction)
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mae": mae})
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.05)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    ids, labels = rows()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, labels)).repeat().batch(BATCH)


def eval_input_fn():
    ids, labels = rows()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, labels)).batch(BATCH)


def legacy_workers_start_at_once() -> None:
    """tensorflow-estimator's workers waited 5 s x (index + 1) before training, then
    polled every 30 s for the chief's model to be ready: a run of a few hundred
    steps ended before any worker joined, and the chief trained alone. Both waits
    made short, every task trains from the start, as in a long legacy job."""
    from tensorflow.python.training import session_manager
    from tensorflow_estimator.python.estimator import training

    training._DELAY_SECS_PER_WORKER = 0
    defaults = list(session_manager.SessionManager.__init__.__defaults__)
    defaults[4] = 0.2  # recovery_wait_secs
    session_manager.SessionManager.__init__.__defaults__ = tuple(defaults)


class PlacementRecorder(tf.compat.v1.train.SessionRunHook):
    """Writes ``{variable: "job:task"}`` of the graph's variables (begin() only)."""

    def __init__(self, model_dir):
        self._path = Path(model_dir) / "placement.json"

    def begin(self):
        placement = {}
        for variable in tf.compat.v1.global_variables():
            device = tf.DeviceSpec.from_string(variable.device)
            placement[variable.name.split(":")[0]] = f"{device.job}:{device.task}"
        self._path.write_text(json.dumps(placement))


class StepCounter(tf.compat.v1.train.SessionRunHook):
    """Counts the runs (steps) this task ran; writes the count at the end."""

    def __init__(self, model_dir, task):
        self._path = Path(model_dir) / f"steps-{task}.txt"
        self._steps = 0

    def after_run(self, run_context, run_values):
        self._steps += 1

    def end(self, session):
        self._path.write_text(str(self._steps))


class SavedStepsRecorder(tf.compat.v1.train.CheckpointSaverListener):
    """Appends ``<pid> <step>`` to ``saves.txt`` in model_dir for every save, so
    a test sees where a restarted chief resumed."""

    def __init__(self, model_dir):
        self._path = Path(model_dir) / "saves.txt"

    def after_save(self, session, global_step_value):
        with self._path.open("a") as saves:
            saves.write(f"{os.getpid()} {global_step_value}\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--legacy", action="store_true")
    args = parser.parse_args()
    if args.legacy:
        legacy_workers_start_at_once()
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    config = estimator.RunConfig(tf_random_seed=3, save_checkpoints_steps=10)
    est = estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    if args.evaluate:
        metrics = est.evaluate(eval_input_fn)
        print(json.dumps({key: float(value) for key, value in metrics.items()}))
        return
    hooks = [PlacementRecorder(args.model_dir)] if est.config.is_chief else []
    if args.legacy or est.config.is_chief:
        task = f"{est.config.task_type}{est.config.task_id}"
        hooks.append(StepCounter(args.model_dir, task))
    estimator.train_and_evaluate(
        est,
        estimator.TrainSpec(
            train_input_fn,
            max_steps=args.max_steps,
            hooks=hooks,
            saving_listeners=[SavedStepsRecorder(args.model_dir)],
        ),
        estimator.EvalSpec(eval_input_fn, steps=None, start_delay_secs=0, throttle_secs=1),
    )


if __name__ == "__main__":
    main()
