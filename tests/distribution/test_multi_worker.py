"""train_and_evaluate across processes: a chief and a worker train together
under MultiWorkerMirroredStrategy (TF_CONFIG on localhost ports) while an
evaluator task evaluates their checkpoints; the result equals one process
training with the same global batch.

Tolerance: |cluster - single| <= 1e-6 * |single| + 1e-7 per element. The
cluster sums two half-batch gradients where one process reduces the whole
batch, so results differ by float32 rounding: a few ulps of an Adam update
(learning rate 0.01), about 1e-8 absolute whatever the variable's magnitude
(observed: at most 7.5e-9). Every process has 300 s to finish
(``cluster_processes.TIMEOUT_SECS``).
"""

import subprocess
from pathlib import Path

import numpy as np
import tensorflow as tf

from helpers import cluster_processes
from helpers.runtime_models import event_scalars

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "multi_worker_training.py"
MAX_STEPS = 20
RELATIVE_TOLERANCE = 1e-6
ABSOLUTE_TOLERANCE = 1e-7


def _start(model_dir: Path, log: Path, tf_config: dict | None) -> subprocess.Popen:
    args = ["--model-dir", str(model_dir), "--max-steps", str(MAX_STEPS)]
    return cluster_processes.start(PROGRAM, args, tf_config=tf_config, log=log)


def _variables(model_dir: Path) -> dict:
    reader = tf.train.load_checkpoint(str(model_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_chief_worker_and_evaluator_match_one_process(tmp_path):
    chief, worker, evaluator = cluster_processes.addresses(3)
    cluster = {"chief": [chief], "worker": [worker], "evaluator": [evaluator]}
    model_dir, single_dir = tmp_path / "model", tmp_path / "single"
    processes = {
        role: _start(
            model_dir,
            tmp_path / f"{role}.log",
            {"cluster": cluster, "task": {"type": role, "index": 0}},
        )
        for role in ("chief", "worker", "evaluator")
    }
    processes["single"] = _start(single_dir, tmp_path / "single.log", None)
    for name, process in processes.items():
        cluster_processes.finish(name, process, tmp_path / f"{name}.log")

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
    assert list((tmp_path / "worker.tmp").iterdir()) == []
    # The evaluator evaluated checkpoints up to the last one into eval/.
    evaluated = event_scalars(model_dir / "eval")
    assert MAX_STEPS in evaluated["mae"]
    assert MAX_STEPS in evaluated["loss"]
