"""How ``tf.contrib.learn.RunConfig`` reads each TF_CONFIG layout a 2017-2019
Experiment met, and the schedule ``learn_runner.run`` picks there when given
none. Prints JSON ``{layout: {property: value, ..., "schedule": name}}`` (or
``{"error": [type, message]}``); run under the reference (TF 1.15's contrib, as
the stand-ins give it) and the runtime (tests/runtime/test_runtime_contrib_learn.py).

Usage: python contrib_cluster_layouts.py legacy|runtime MODEL_DIR
"""

import json
import os
import sys

import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
    from estimator_revival.contrib import learn

    Estimator = estimator.Estimator
    RunConfig, Experiment, learn_runner = learn.RunConfig, learn.Experiment, learn.learn_runner
else:
    from estimator_revival.migrator.prove.side_process.standins import contrib_learn

    Estimator = tf.estimator.Estimator
    RunConfig, Experiment = contrib_learn.RunConfig, contrib_learn.Experiment
    learn_runner = contrib_learn  # the stand-in module has learn_runner's run()

MASTER_CLUSTER = {"master": ["m:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]}
CHIEF_CLUSTER = {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]}
WITH_EVALUATOR = {**MASTER_CLUSTER, "evaluator": ["e:1"]}


def task(cluster, task_type, index, environment="cloud"):
    tf_config = {"task": {"type": task_type, "index": index}, "environment": environment}
    return {"cluster": cluster, **tf_config} if cluster else tf_config


LAYOUTS = {
    "no_tf_config": (None, {}),
    "empty_tf_config": ("", {}),  # contrib read "" as no TF_CONFIG (core json.loads failed)
    "cloud_master": (task(MASTER_CLUSTER, "master", 0), {}),
    "cluster_without_task": ({"cluster": MASTER_CLUSTER, "environment": "cloud"}, {}),
    "cloud_worker": (task(MASTER_CLUSTER, "worker", 1), {}),
    "cloud_ps": (task(MASTER_CLUSTER, "ps", 0), {}),
    "local_master": (task(MASTER_CLUSTER, "master", 0, "local"), {}),
    "local_worker0": (task(MASTER_CLUSTER, "worker", 0, "local"), {}),
    "index_as_text": (task(MASTER_CLUSTER, "worker", "1"), {}),
    "index_out_of_range": (task(MASTER_CLUSTER, "worker", 2), {}),
    "evaluator_outside": (task(MASTER_CLUSTER, "evaluator", 0), {}),
    "evaluator_outside_master_given": (task(MASTER_CLUSTER, "evaluator", 0), {"master": ""}),
    "evaluator_inside": (task(WITH_EVALUATOR, "evaluator", 0), {}),
    "chief_cluster_chief": (task(CHIEF_CLUSTER, "chief", 0), {}),
    "chief_cluster_worker0": (task(CHIEF_CLUSTER, "worker", 0), {}),
    "one_task_cluster": (task({"master": ["m:1"]}, "master", 0), {}),
    "task_without_cluster": (task(None, "worker", 1, "local"), {}),
    "evaluation_master_given": (None, {"evaluation_master": "grpc://e:2"}),
}
PROPERTIES = (
    "task_type",
    "task_id",
    "master",
    "evaluation_master",
    "is_chief",
    "num_ps_replicas",
    "num_worker_replicas",
    "environment",
)


class Unbuilt(Estimator):
    """An Estimator holding only its config: on a chief, the runtime's Estimator
    connects to the cluster when built (its strategy), and these addresses have
    no servers."""

    def __init__(self, config):
        self._config = config


class Recording(Experiment):
    """An Experiment whose schedules return their names instead of running."""

    def train(self, delay_secs=None):
        return "train"

    def train_and_evaluate(self):
        return "train_and_evaluate"

    def run_std_server(self):
        return "run_std_server"


def reading(tf_config, arguments, model_dir):
    if tf_config is None:
        os.environ.pop("TF_CONFIG", None)
    else:
        os.environ["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    try:
        config = RunConfig(model_dir=model_dir, **arguments)
    except ValueError as error:
        return {"error": [type(error).__name__, str(error)]}
    result = {name: getattr(config, name) for name in PROPERTIES}

    def experiment_fn(run_config, hparams):
        return Recording(Unbuilt(run_config), None, None)

    try:
        result["schedule"] = learn_runner.run(experiment_fn, run_config=config)
    except ValueError as error:
        result["schedule"] = [type(error).__name__, str(error)]
    return result


def main():
    model_dir = sys.argv[2]
    print(json.dumps({name: reading(*layout, model_dir) for name, layout in LAYOUTS.items()}))


if __name__ == "__main__":
    main()
