"""A training process killed with SIGKILL and started again resumes from its last
checkpoint and ends exactly where an uninterrupted run ends."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "resumable_training.py"
MAX_STEPS = 48


def _train(model_dir, *extra, wait=True):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    command = [sys.executable, str(PROGRAM), "--model-dir", str(model_dir), *extra]
    command += ["--max-steps", str(MAX_STEPS)]
    if not wait:
        return subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
    return None


def _wait_for_checkpoint(model_dir: Path, process, at_least: int, timeout=120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it could be killed"
        latest = tf.train.latest_checkpoint(str(model_dir))
        if latest and int(latest.rsplit("-", 1)[1]) >= at_least:
            return int(latest.rsplit("-", 1)[1])
        time.sleep(0.05)
    raise AssertionError(f"no checkpoint at step >= {at_least} within {timeout}s")


def test_sigkill_mid_training_resumes_to_the_same_variables(tmp_path):
    uninterrupted = tmp_path / "uninterrupted"
    killed = tmp_path / "killed"
    _train(uninterrupted)

    process = _train(killed, "--step-delay", "0.1", wait=False)
    try:
        step_at_kill = _wait_for_checkpoint(killed, process, at_least=16)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    assert step_at_kill < MAX_STEPS
    assert not (killed / "final_kernel.npy").exists()
    # Every checkpoint named in the state file is complete and readable.
    for path in tf.train.get_checkpoint_state(str(killed)).all_model_checkpoint_paths:
        tf.train.load_variable(path, "linear/kernel")

    _train(killed)
    resumed_steps = [
        int(name.split("-")[1].split(".")[0])
        for name in os.listdir(killed)
        if name.startswith("model.ckpt-") and name.endswith(".index")
    ]
    assert max(resumed_steps) == MAX_STEPS
    np.testing.assert_array_equal(
        np.load(killed / "final_kernel.npy"), np.load(uninterrupted / "final_kernel.npy")
    )
    for name, _ in tf.train.list_variables(str(uninterrupted)):
        np.testing.assert_array_equal(
            tf.train.load_variable(str(killed), name),
            tf.train.load_variable(str(uninterrupted), name),
            name,
        )
