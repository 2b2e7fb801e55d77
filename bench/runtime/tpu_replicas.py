"""TPUEstimator on 2 replicas (MirroredStrategy over 2 logical CPUs, use_tpu=True):
whole calls, end to end, by the path their steps take.

    .venv/bin/python bench/runtime/tpu_replicas.py [--repeat 3]

Sides, each in a fresh process, best of ``--repeat``:
- ``one_graph``: the runtime as it is: model_fn built once, as one core's graph,
  and its slices run in every replica (runtime/tf1/tpu_slices.py);
- ``every_replica``: the runtime with those slices declined (the path before
  them, still taken with hooks or random ops): model_fn traced in every replica;
- ``hand_loop``: the practical limit, the same model as a hand-written TF 2
  loop (``strategy.run`` in a ``tf.function``, a ``tf.while_loop`` of
  ``ITERATIONS`` steps per call), with Keras-free variables and the same v1 Adam.

Rows: seconds for a ``train()`` of STEPS steps from a fresh model_dir (discovery,
tracing and checkpoints included), for an ``evaluate()`` of EVAL_STEPS steps and
a ``predict()`` of PREDICT_ROWS rows right after it, and training steps/s in a
second ``train()`` call of STEPS steps.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STEPS, ITERATIONS, EVAL_STEPS, PREDICT_ROWS = 600, 100, 20, 256
WIDTH, FEATURES, BATCH = 256, 64, 64
SIDES = ("one_graph", "every_replica", "hand_loop")


def _setup():
    import numpy as np
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    x = np.random.RandomState(0).normal(size=(4096, FEATURES)).astype(np.float32)
    y = (x[:, :8].sum(axis=1) > 0).astype(np.int32)
    strategy = tf.distribute.MirroredStrategy(
        ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice()
    )
    return tf, x, y, strategy


def _estimator_side(side: str) -> dict:
    tf, x, y, strategy = _setup()
    from estimator_revival import estimator
    from estimator_revival.estimator import tpu

    if side == "every_replica":
        from estimator_revival.engine import steps

        sliced = steps.TracedModel.sliced

        def declining(self, graph_slice_or_none, *, hooked=False, as_on_tpu=False):
            if self.on_tpu:
                return None
            return sliced(self, graph_slice_or_none, hooked=hooked, as_on_tpu=as_on_tpu)

        steps.TracedModel.sliced = declining

    def metric_fn(labels, logits):
        predictions = tf.argmax(logits, axis=1)
        return {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions)}

    def model_fn(features, labels, mode, params):
        hidden = features["x"]
        for _ in range(2):
            hidden = tf.compat.v1.layers.dense(hidden, WIDTH, activation=tf.nn.relu)
        logits = tf.compat.v1.layers.dense(hidden, 2)
        if mode == estimator.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == estimator.ModeKeys.EVAL:
            return tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
        optimizer = tpu.CrossShardOptimizer(tf.compat.v1.train.AdamOptimizer(1e-3))
        step = tf.compat.v1.train.get_global_step()
        return tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=optimizer.minimize(loss, global_step=step)
        )

    def input_fn(params):
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat()
        return dataset.batch(params["batch_size"], drop_remainder=True)

    def predict_input_fn(params):
        rows = tf.data.Dataset.from_tensor_slices({"x": x[:PREDICT_ROWS]})
        return rows.batch(params["batch_size"])

    config = tpu.RunConfig(
        tf_random_seed=1,
        save_checkpoints_steps=STEPS,
        train_distribute=strategy,
        tpu_config=tpu.TPUConfig(iterations_per_loop=ITERATIONS),
    )
    est = tpu.TPUEstimator(
        model_fn,
        model_dir=tempfile.mkdtemp(),
        config=config,
        use_tpu=True,
        train_batch_size=BATCH,
        eval_batch_size=BATCH,
        predict_batch_size=BATCH,
    )
    timings = {}
    start = time.perf_counter()
    est.train(input_fn, steps=STEPS)
    timings["train_call_s"] = time.perf_counter() - start
    start = time.perf_counter()
    est.evaluate(input_fn, steps=EVAL_STEPS)
    timings["evaluate_call_s"] = time.perf_counter() - start
    start = time.perf_counter()
    rows = sum(1 for _ in est.predict(predict_input_fn))
    timings["predict_call_s"] = time.perf_counter() - start
    assert rows == PREDICT_ROWS
    start = time.perf_counter()
    est.train(input_fn, steps=STEPS)
    timings["steps_per_s"] = STEPS / (time.perf_counter() - start)
    return timings


def _hand_loop_side() -> dict:
    tf, x, y, strategy = _setup()
    per_replica = BATCH // 2

    with strategy.scope():
        shapes = [(FEATURES, WIDTH), (WIDTH,), (WIDTH, WIDTH), (WIDTH,), (WIDTH, 2), (2,)]
        initializer = tf.keras.initializers.GlorotUniform(seed=1)
        weights = [
            tf.Variable(initializer(shape) if len(shape) == 2 else tf.zeros(shape))
            for shape in shapes
        ]
        optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)

    def replica_step(features, labels):
        with tf.GradientTape() as tape:
            hidden = features
            for kernel, bias in zip(weights[0:4:2], weights[1:4:2], strict=True):
                hidden = tf.nn.relu(hidden @ kernel + bias)
            logits = hidden @ weights[4] + weights[5]
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            )
            scaled = loss / strategy.num_replicas_in_sync
        grads = tape.gradient(scaled, weights)
        optimizer.apply_gradients(zip(grads, weights, strict=True))
        return loss

    @tf.function
    def loop(iterator):
        for _ in tf.range(ITERATIONS):
            features, labels = next(iterator)
            strategy.run(replica_step, args=(features, labels))

    def dataset_fn(context):
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).repeat()
        return dataset.batch(per_replica, drop_remainder=True)

    start = time.perf_counter()
    iterator = iter(strategy.distribute_datasets_from_function(dataset_fn))
    for _ in range(STEPS // ITERATIONS):
        loop(iterator)
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(STEPS // ITERATIONS):
        loop(iterator)
    return {"train_call_s": first, "steps_per_s": STEPS / (time.perf_counter() - start)}


def measure(side: str) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--side", side],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"),
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=SIDES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.side is not None:
        timings = _hand_loop_side() if args.side == "hand_loop" else _estimator_side(args.side)
        print(json.dumps(timings))
        return
    runs = {side: [] for side in SIDES}
    for _ in range(args.repeat):  # interleaved, so a busy moment hits every side
        for side in SIDES:
            runs[side].append(measure(side))
    best = {}
    for side, results in runs.items():
        best[side] = {
            key: (max if key == "steps_per_s" else min)(result[key] for result in results)
            for key in results[0]
        }
    print(f"TPUEstimator on 2 replicas, best of {args.repeat} (one process per run)")
    keys = ("train_call_s", "evaluate_call_s", "predict_call_s", "steps_per_s")
    print(f"{'side':<15}" + "".join(f"{key:>17}" for key in keys))
    for side, timings in best.items():
        cells = "".join(f"{timings[key]:>17.2f}" if key in timings else f"{'':>17}" for key in keys)
        print(f"{side:<15}{cells}")
    baseline = best["every_replica"]
    for key in keys:
        if key in best["one_graph"]:
            print(f"one_graph / every_replica {key}: {best['one_graph'][key] / baseline[key]:.2f}x")
    hand = best["hand_loop"]["steps_per_s"]
    print(f"one_graph steps/s / hand_loop: {best['one_graph']['steps_per_s'] / hand:.2f}x")


if __name__ == "__main__":
    main()
