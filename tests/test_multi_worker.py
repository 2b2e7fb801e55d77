"""train_and_evaluate across processes: a chief and a worker train together
under MultiWorkerMirroredStrategy (TF_CONFIG on localhost ports) while an
evaluator task evaluates their checkpoints; the result equals one process
training with the same global batch.

Tolerance: |cluster - single| <= 1e-6 * |single| + 1e-7 per element. The
cluster sums two half-batch gradients where one process reduces the whole
batch, so results differ by float32 rounding: a few ulps of an Adam update
(learning rate 0.01), about 1e-8 absolute whatever the variable's magnitude
(observed: at most 7.5e-9). Every process has 300 s to finish.
"""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
from runtime_models import event_scalars

PROGRAM = Path(__file__).parent / "programs" / "multi_worker_training.py"
MAX_STEPS = 20
TIMEOUT_SECS = 300
RELATIVE_TOLERANCE = 1e-6
ABSOLUTE_TOLERANCE = 1e-7


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def _start(model_dir: Path, scratch: Path, tf_config: dict | None) -> subprocess.Popen:
    scratch.mkdir()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", TMPDIR=str(scratch))
    env.pop("TF_CONFIG", None)
    if tf_config is not None:
        env["TF_CONFIG"] = json.dumps(tf_config)
    command = [sys.executable, str(PROGRAM), "--model-dir", str(model_dir)]
    command += ["--max-steps", str(MAX_STEPS)]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(name: str, process: subprocess.Popen) -> None:
    try:
        output, _ = process.communicate(timeout=TIMEOUT_SECS)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        message = f"{name} did not finish in {TIMEOUT_SECS}s:\n{output[-3000:]}"
        raise AssertionError(message) from None
    assert process.returncode == 0, f"{name} exited {process.returncode}:\n{output[-3000:]}"


def _variables(model_dir: Path) -> dict:
    reader = tf.train.load_checkpoint(str(model_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_chief_worker_and_evaluator_match_one_process(tmp_path):
    chief_port, worker_port, evaluator_port = _free_ports(3)
    cluster = {
        "chief": [f"localhost:{chief_port}"],
        "worker": [f"localhost:{worker_port}"],
        "evaluator": [f"localhost:{evaluator_port}"],
    }
    model_dir, single_dir = tmp_path / "model", tmp_path / "single"
    processes = {
        role: _start(
            model_dir,
            tmp_path / f"scratch-{role}",
            {"cluster": cluster, "task": {"type": role, "index": 0}},
        )
        for role in ("chief", "worker", "evaluator")
    }
    processes["single process"] = _start(single_dir, tmp_path / "scratch-single", None)
    for name, process in processes.items():
        _finish(name, process)

    assert tf.train.latest_checkpoint(str(model_dir)).endswith(f"model.ckpt-{MAX_STEPS}")
    cluster_vars, single_vars = _variables(model_dir), _variables(single_dir)
    assert sorted(cluster_vars) == sorted(single_vars)
    assert cluster_vars["global_step"] == single_vars["global_step"] == MAX_STEPS
    for name, expected in single_vars.items():
        np.testing.assert_allclose(
            cluster_vars[name],
            expected,
            rtol=RELATIVE_TOLERANCE,
            atol=ABSOLUTE_TOLERANCE,
            err_msg=name,
        )

    # training_chief_hooks ran on the chief only (and in the one-process run, its own chief).
    assert [p.name for p in model_dir.glob("chief_hook_began.*")] == ["chief_hook_began.chief"]
    assert [p.name for p in single_dir.glob("chief_hook_began.*")] == ["chief_hook_began.worker"]
    # The worker saved into a scratch directory of its own and removed it; only
    # the chief's checkpoints are in model_dir.
    assert list((tmp_path / "scratch-worker").iterdir()) == []
    # The evaluator evaluated checkpoints up to the last one into eval/.
    evaluated = event_scalars(model_dir / "eval")
    assert MAX_STEPS in evaluated["mae"]
    assert MAX_STEPS in evaluated["loss"]
