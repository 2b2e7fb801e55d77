"""``tf.contrib.learn.Experiment`` on a TF_CONFIG cluster, as Cloud ML Engine ran
the 2017 census trainer (fixtures/experiments/cloudml_census_experiment): a
``master``, two workers and a ps task on 127.0.0.1, TF_CONFIG's ``"environment":
"cloud"``, each task the same program given no schedule, so that learn_runner
picks it by task type (the master ``train_and_evaluate``, the workers ``train``,
the ps ``run_std_server``).

The legacy program (TF 1.15's Experiment, the stand-in, on the Estimator of this
TensorFlow: sides.REFERENCE) and its migrated copy on the runtime each run such a
cluster. Asynchronous training is not repeatable (see
tests/distribution/test_parameter_servers.py), and after a few hundred steps this
model is still learning, so the order of the steps moves its loss by a third
(legacy clusters ended at 0.053 and 0.077, one process at 0.077): the loss is
only held to have fallen well below the first evaluation's. The rest is compared
exactly: the master's schedule's result (an evaluation of its last checkpoint,
the global step, one export), the evaluations from the first checkpoint to the
last, the variables by name and shape on both sides.

Only the master returns, on both sides. A TF 1.15 worker of such a cluster does
not: contrib's RunConfig set no device filters, so every session a worker opens
waits for every task's server, the master's too, and once the master has left a
worker waiting for the model (it looks again every 30 s) waits for it forever.
"""

import numpy as np
import tensorflow as tf

from helpers import cluster_processes
from helpers.harness import REPO, Trace
from helpers.sides import REFERENCE, RUNTIME

PROGRAM = REPO / "fixtures" / "experiments" / "cloudml_census_experiment"
TRAIN_STEPS = 300


def _cluster() -> dict:
    master, worker0, worker1, ps = cluster_processes.addresses(4)
    return {"master": [master], "worker": [worker0, worker1], "ps": [ps]}


def _run_cluster(side, out) -> Trace:
    """Every task of one cluster, started together as Cloud ML Engine started
    them; the master's trace. The other tasks are stopped once it has returned:
    the ps task serves forever, as in TF 1.15; a legacy worker waits for the
    master (above); the runtime's workers serve the master's coordinator and
    keep serving for 30 s once it is gone (a restarted chief comes back:
    tests/distribution/test_parameter_servers.py)."""
    cluster = _cluster()
    program = PROGRAM / ("legacy.py" if side.runs_legacy_program else "migrated.py")
    model_dir = out / "model"
    processes = {}

    def start(task_type, index):
        name = f"{task_type}{index}"
        tf_config = {
            "cluster": cluster,
            "task": {"type": task_type, "index": index},
            "environment": "cloud",
        }
        (out / name).mkdir(parents=True)
        command = [*side.command(program), "--out", str(out / name)]
        command += ["--model-dir", str(model_dir), "--train-steps", str(TRAIN_STEPS)]
        log = out / f"{name}.log"
        processes[name] = (
            cluster_processes.start_command(command, tf_config=tf_config, log=log, side=side),
            log,
        )

    try:
        start("ps", 0)
        start("master", 0)
        start("worker", 0)
        start("worker", 1)
        cluster_processes.finish("master0", *processes["master0"])
    finally:
        for process, _ in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return Trace.load(out / "master0")


def _evaluation_losses(eval_dir) -> dict[int, float]:
    return {
        event.step: value.simple_value
        for path in eval_dir.glob("events.out.tfevents*")
        for event in tf.compat.v1.train.summary_iterator(str(path))
        for value in event.summary.value
        if value.tag == "loss"
    }


def test_an_experiment_cluster_trains_evaluates_and_exports_on_both_sides(tmp_path):
    shapes = {}
    for side in (REFERENCE, RUNTIME):
        master = _run_cluster(side, tmp_path / side.name)
        eval_result, exports = master.data["result"]
        assert sorted(eval_result) == ["accuracy", "auroc", "global_step", "loss"]
        if side.runs_legacy_program:  # asynchronous workers may pass train_steps
            assert eval_result["global_step"] >= TRAIN_STEPS
        else:
            assert eval_result["global_step"] == TRAIN_STEPS
        assert len(exports) == 1 and master.data["exports"] == 1
        losses = _evaluation_losses(tmp_path / side.name / "model" / "eval")
        assert min(losses) == 0 and max(losses) == eval_result["global_step"], losses
        assert losses[max(losses)] == np.float32(eval_result["loss"])
        assert eval_result["loss"] < losses[0] / 4, (side.name, losses)
        shapes[side.name] = {key: np.shape(value) for key, value in master.arrays.items()}
    assert shapes[RUNTIME.name] == shapes[REFERENCE.name]
