"""Trains, evaluates and reads back one equivalence fixture's model_fn with the
runtime on ``--replicas`` logical CPU devices (MirroredStrategy; 1 = no strategy)
at a fixed global batch size, and writes what the replication test compares.

Estimator fixtures: the fixture's own input_fns are re-batched to the
per-replica batch size that ``input_context`` gives, so step k of every run
covers the same rows. TPUEstimator fixtures (``--tpu``): the fixture's own
TPUEstimator with ``use_tpu=True`` and the strategy as the override; its
input_fns get the per-host batch size from TPUEstimator itself.

Writes to --out: trace.json (reported per-step losses from the ``loss`` summary,
the evaluate() dict, the batch sizes input_fn and model_fn saw, the next draw
from Python's generator after the calls, for TPU
fixtures also the host_call summaries, the rows host_call and metric_fn
received and the global steps a hook saw after each run, and
probabilities.npy from predict() over 12 rows) and variables.npz (the final
checkpoint).
"""

import argparse
import importlib
import inspect
import json
import random
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf

from fixtures.equivalence import recording

NUM_LOGICAL_CPUS = 4
PREDICT_ROWS, PREDICT_BATCH_ON_REPLICAS = 12, 8


def _call_with_declared(fn, **kwargs):
    declared = inspect.signature(fn).parameters
    return fn(**{name: value for name, value in kwargs.items() if name in declared})


class Program:
    def __init__(self, fixture: str, replicas: int, global_batch: int, legacy: bool) -> None:
        side = "legacy" if legacy else "migrated"
        self.module = importlib.import_module(f"fixtures.equivalence.{fixture}.{side}")
        self.legacy = legacy
        self.replicas = replicas
        self.global_batch = global_batch
        self.input_batch_sizes: set[int] = set()
        self.model_batch_sizes: set[int] = set()

    def input_fn(self, fixture_input_fn):
        def input_fn(params, input_context=None):
            per_replica = self.global_batch
            if input_context is not None:
                per_replica = input_context.get_per_replica_batch_size(self.global_batch)
            self.input_batch_sizes.add(per_replica)
            params = dict(params, batch_size=per_replica)
            dataset = _call_with_declared(fixture_input_fn, params=params)
            return dataset.unbatch().batch(per_replica, drop_remainder=True)

        return input_fn

    def model_fn(self, features, labels, mode, params, config):
        batch_size = tf.nest.flatten(features)[0].shape[0]
        if batch_size is not None:  # a finite distributed input has no static batch size
            self.model_batch_sizes.add(int(batch_size))
        # the fixture Estimator's own model_fn, bound to its params
        fixture_model_fn = self.module.make_estimator(tempfile.mkdtemp()).model_fn
        return fixture_model_fn(features, labels, mode, config)

    def hooks(self) -> list:
        return []

    def estimator(self, model_dir: str):
        if self.legacy:
            estimator = tf.estimator
        else:
            from estimator_revival import estimator

        legacy_config = self.module.make_estimator(tempfile.mkdtemp()).config
        strategy = None
        if self.replicas > 1:
            devices = [f"/cpu:{i}" for i in range(self.replicas)]
            strategy = tf.distribute.MirroredStrategy(
                devices, cross_device_ops=tf.distribute.ReductionToOneDevice()
            )
        config = estimator.RunConfig(
            tf_random_seed=legacy_config.tf_random_seed,
            save_checkpoints_steps=legacy_config.save_checkpoints_steps,
            save_summary_steps=1,
            train_distribute=strategy,
            eval_distribute=strategy,
        )
        params = self.module.make_estimator(tempfile.mkdtemp()).params
        return estimator.Estimator(self.model_fn, model_dir=model_dir, config=config, params=params)


class TPUProgram(Program):
    """A TPUEstimator fixture with use_tpu=True on the replicas.

    Two hyperparameters differ from the fixture's: dropout is off (random masks
    are drawn per replica, so they cannot match one device's) and the clip norm
    is one that never clips (CrossShardOptimizer clips each replica's gradients
    before summing them, as on TPU, which differs from clipping the batch's).
    """

    def __init__(self, fixture: str, replicas: int, global_batch: int, legacy: bool) -> None:
        super().__init__(fixture, replicas, global_batch, legacy)
        self.host_call_rows: set[int] = set()
        self.metric_fn_rows: set[int] = set()
        self.steps_after_runs: list[int] = []

    def input_fn(self, fixture_input_fn):
        def input_fn(params):
            self.input_batch_sizes.add(params["batch_size"])
            return fixture_input_fn(params)

        return input_fn

    def model_fn(self, features, labels, mode, params, config):
        self.model_batch_sizes.add(params["batch_size"])
        spec = self.module.model_fn(features, labels, mode, params, config)
        if spec.host_call is not None:
            spec = spec._replace(host_call=self._recording(spec.host_call, self.host_call_rows))
        if spec.eval_metrics is not None:
            spec = spec._replace(
                eval_metrics=self._recording(spec.eval_metrics, self.metric_fn_rows)
            )
        return spec

    @staticmethod
    def _recording(host_call, rows: set):
        fn, tensors = host_call

        def recorded(*args):
            rows.add(int(args[0].shape[0]))
            return fn(*args)

        return recorded, tensors

    def estimator(self, model_dir: str):
        from estimator_revival.estimator import tpu

        legacy = self.module.make_estimator(tempfile.mkdtemp())
        strategy = None
        if self.replicas > 1:
            devices = [f"/cpu:{i}" for i in range(self.replicas)]
            strategy = tf.distribute.MirroredStrategy(
                devices, cross_device_ops=tf.distribute.ReductionToOneDevice()
            )
        config = tpu.RunConfig(
            tf_random_seed=legacy.config.tf_random_seed,
            save_checkpoints_steps=legacy.config.save_checkpoints_steps,
            tpu_config=legacy.config.tpu_config,
            train_distribute=strategy,
        )
        params = dict(legacy.params, hidden_dropout_prob=0.0, clip_norm=1000.0)
        # On replicas the last predict batch (4 of 8 rows) is padded; one device
        # predicts in full batches of 4 (the model reshapes to the batch size).
        self.predict_batch = PREDICT_BATCH_ON_REPLICAS if self.replicas > 1 else 4
        return tpu.TPUEstimator(
            self.model_fn,
            model_dir=model_dir,
            config=config,
            params=params,
            use_tpu=True,
            train_batch_size=self.global_batch,
            eval_batch_size=legacy._batch_sizes["eval"],
            predict_batch_size=self.predict_batch,
        )

    def predict_input_fn(self, params):
        rows = {"x": self.module.X[:PREDICT_ROWS]}
        return tf.data.Dataset.from_tensor_slices(rows).batch(params["batch_size"])

    def hooks(self) -> list:
        program = self

        class StepsAfterRuns(tf.compat.v1.train.SessionRunHook):
            def before_run(self, run_context):
                step = tf.compat.v1.train.get_global_step()
                return tf.compat.v1.train.SessionRunArgs(step)

            def after_run(self, run_context, run_values):
                program.steps_after_runs.append(int(run_values.results))

        return [StepsAfterRuns()]


def scalar_summaries(model_dir: str, tag: str) -> dict:
    """``{step: value}`` of one scalar tag in model_dir's event files."""
    return dict(recording.scalar_summaries(model_dir).get(tag, []))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--replicas", type=int, required=True)
    parser.add_argument("--global-batch", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--eval-steps", type=int)
    parser.add_argument("--tpu", action="store_true", help="a TPUEstimator fixture")
    parser.add_argument("--legacy", action="store_true", help="tf.estimator on TF 2.15")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    (cpu,) = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * NUM_LOGICAL_CPUS
    )
    random.seed(0)
    program = (TPUProgram if args.tpu else Program)(
        args.fixture, args.replicas, args.global_batch, args.legacy
    )
    model_dir = str(Path(args.out) / "model")
    est = program.estimator(model_dir)
    hooks = program.hooks()
    est.train(program.input_fn(program.module.train_input_fn), steps=args.steps, hooks=hooks)
    metrics = est.evaluate(program.input_fn(program.module.eval_input_fn), steps=args.eval_steps)
    names = est.get_variable_names()
    np.savez(Path(args.out) / "variables.npz", **{n: est.get_variable_value(n) for n in names})
    losses = sorted(scalar_summaries(model_dir, "loss").items())
    trace = {
        "losses": [loss for _, loss in losses],
        "loss_steps": [step for step, _ in losses],
        "metrics": {key: float(value) for key, value in metrics.items()},
        "input_batch_sizes": sorted(program.input_batch_sizes),
        "model_batch_sizes": sorted(program.model_batch_sizes),
        # where the calls left Python's generator (tf_keras seeds initializers from it)
        "next_python_draw": random.random(),
    }
    if args.tpu:
        predictions = list(est.predict(program.predict_input_fn))
        np.save(Path(args.out) / "probabilities.npy", [p["probabilities"] for p in predictions])
        host_losses = sorted(scalar_summaries(model_dir, "host_call/loss").items())
        trace.update(
            host_call_losses=[loss for _, loss in host_losses],
            host_call_steps=[step for step, _ in host_losses],
            host_call_rows=sorted(program.host_call_rows),
            metric_fn_rows=sorted(program.metric_fn_rows),
            steps_after_runs=program.steps_after_runs,
        )
    (Path(args.out) / "trace.json").write_text(json.dumps(trace, indent=1))


if __name__ == "__main__":
    main()
