"""Replication equivalence: the runtime on MirroredStrategy over 2 and 4 logical
CPU devices computes what it computes on one device with the same global batch.

Tolerance: 1e-6 relative to the largest magnitude of each compared array (sums
over replicas add in a different order than one device's reductions; observed
differences are below 6e-7).

Estimator semantics under a strategy that these runs pin down:
- input_fn gets an ``input_context`` and model_fn sees per-replica batches
  (global // replicas);
- a v1 optimizer's ``minimize``/``compute_gradients`` scales the loss by
  1 / replicas and gradients are summed, so training equals one device, and the
  reported loss is the mean across replicas;
- gradients taken with ``tf.gradients`` bypass that scaling: they are summed
  unscaled (the slot of custom_optimizer_manual_step is replicas x the one-device
  value; its sign-based update is not) and the reported loss is the sum across
  replicas, as Estimator's ``_get_loss_reduce_op_for_reporting`` reported it;
- a train_op that bumps the global step by hand advances it once per step, not
  once per replica.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "tests" / "programs" / "replicated_training.py"
RELATIVE_TOLERANCE = 1e-6
STEPS = 12


def _run(fixture: str, replicas: int, global_batch: int, out: Path) -> tuple[dict, dict]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    command = [sys.executable, str(PROGRAM), "--fixture", fixture, "--replicas", str(replicas)]
    command += ["--global-batch", str(global_batch), "--steps", str(STEPS), "--out", str(out)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    trace = json.loads((out / "trace.json").read_text())
    variables = dict(np.load(out / "variables.npz"))
    return trace, variables


def _assert_close(actual, expected, what: str) -> None:
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    worst = float(np.max(np.abs(actual - expected))) / scale
    assert worst <= RELATIVE_TOLERANCE, f"{what}: relative difference {worst:.3g}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = {}

    def run(fixture: str, replicas: int, global_batch: int):
        key = (fixture, replicas)
        if key not in cache:
            out = tmp_path_factory.mktemp(f"{fixture}-{replicas}")
            cache[key] = _run(fixture, replicas, global_batch, out)
        return cache[key]

    return run


@pytest.mark.parametrize("replicas", [2, 4])
def test_optimizer_minimize_equals_one_device(runs, replicas):
    """Partitioned embedding + Adagrad ``minimize``, a v1 and a Keras metric."""
    fixture, global_batch = "partitioned_embedding_keras_metric", 20
    one_trace, one_vars = runs(fixture, 1, global_batch)
    trace, variables = runs(fixture, replicas, global_batch)

    assert trace["input_batch_sizes"] == [global_batch // replicas]
    assert trace["model_batch_sizes"] == [global_batch // replicas]
    assert one_trace["model_batch_sizes"] == [global_batch]
    assert len(trace["losses"]) == STEPS
    _assert_close(trace["losses"], one_trace["losses"], "reported per-step loss (mean)")
    assert trace["metrics"]["global_step"] == one_trace["metrics"]["global_step"] == STEPS
    for name in ("loss", "v1_mse", "keras_mse"):
        _assert_close(trace["metrics"][name], one_trace["metrics"][name], f"metric {name}")
    assert sorted(variables) == sorted(one_vars)
    for name, value in one_vars.items():
        _assert_close(variables[name], value, f"variable {name}")


@pytest.mark.parametrize("replicas", [2, 4])
def test_hand_written_gradients_sum_across_replicas(runs, replicas):
    """``tf.gradients`` + a custom v1 optimizer + a hand-written global-step bump."""
    fixture, global_batch = "custom_optimizer_manual_step", 32
    one_trace, one_vars = runs(fixture, 1, global_batch)
    trace, variables = runs(fixture, replicas, global_batch)

    assert trace["model_batch_sizes"] == [global_batch // replicas]
    assert trace["loss_steps"] == list(range(1, STEPS + 1)), "one global step per step"
    scaled = [loss / replicas for loss in trace["losses"]]
    _assert_close(scaled, one_trace["losses"], "reported per-step loss (sum) / replicas")
    for name in ("weights", "bias", "global_step"):
        _assert_close(variables[name], one_vars[name], f"variable {name}")
    for name in ("weights/MomentumSign", "bias/MomentumSign"):
        _assert_close(variables[name] / replicas, one_vars[name], f"slot {name} / replicas")
    for name in ("loss", "rmse"):
        _assert_close(trace["metrics"][name], one_trace["metrics"][name], f"metric {name}")
