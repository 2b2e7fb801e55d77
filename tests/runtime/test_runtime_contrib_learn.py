"""``tf.contrib.learn``'s Experiment, learn_runner and RunConfig
(runtime/contrib/learn/): TF 1.15's checks, its reading of TF_CONFIG and its
schedule choice. What they compute is compared with TF 1.15's in
tests/equivalence/test_experiments.py."""

import json

import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.contrib import learn
from estimator_revival.contrib.training import HParams
from helpers.harness import REPO, side_by_side_records

LAYOUTS = REPO / "tests" / "programs" / "contrib_cluster_layouts.py"


def model_fn(features, labels, mode):
    raise AssertionError("these tests do not train")


def _experiment_fn(calls):
    class Recording(learn.Experiment):
        def train(self, delay_secs=None):
            calls.append("train")

        def train_and_evaluate(self):
            calls.append("train_and_evaluate")

        def run_std_server(self):
            calls.append("run_std_server")

    def experiment_fn(run_config, hparams):
        est = estimator.Estimator(model_fn, config=run_config)
        return Recording(est, train_input_fn=None, eval_input_fn=None)

    return experiment_fn


@pytest.mark.parametrize(
    ("task", "schedule"),
    [
        (None, "train_and_evaluate"),
        ("master", "train_and_evaluate"),
        ("worker", "train"),
        ("ps", "run_std_server"),
    ],
)
def test_the_default_schedule_is_the_task_types(task, schedule, monkeypatch):
    if task is not None:
        cluster = {"master": ["localhost:1"], "worker": ["localhost:2"], "ps": ["localhost:3"]}
        tf_config = {"cluster": cluster, "task": {"type": task, "index": 0}}
        monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = learn.RunConfig(model_dir="/tmp/model")
    assert learn.learn_runner.default_schedule(config) == schedule


def test_tf_config_is_read_as_tf_1_15s_contrib_read_it(tmp_path):
    """The expectations are TF 1.15's ClusterConfig and _get_default_schedule
    (contrib/learn/python/learn/{estimators/run_config,learn_runner}.py): none of
    the core RunConfig's checks, and a chief by environment."""
    reference, runtime = side_by_side_records(LAYOUTS, tmp_path)
    assert reference["no_tf_config"] == {
        "task_type": None,
        "task_id": 0,
        "master": "",
        "evaluation_master": "",
        "is_chief": True,
        "num_ps_replicas": 0,
        "num_worker_replicas": 0,
        "environment": "local",
        "schedule": "train_and_evaluate",
    }
    assert reference["empty_tf_config"] == reference["no_tf_config"]
    cloud_master = reference["cloud_master"]
    assert (cloud_master["master"], cloud_master["num_worker_replicas"]) == ("grpc://m:1", 3)
    chiefs = {name: row.get("is_chief") for name, row in reference.items()}
    assert chiefs["cloud_master"] and not chiefs["cloud_worker"]
    assert not chiefs["local_master"] and chiefs["local_worker0"]  # outside "cloud": worker 0
    assert not chiefs["chief_cluster_chief"]  # contrib knew no `chief` job
    assert reference["chief_cluster_chief"]["schedule"] == [
        "ValueError",
        "No default schedule for task type: chief",
    ]
    assert reference["cluster_without_task"]["schedule"] == [
        "ValueError",
        "Must specify a schedule",
    ]
    assert reference["index_as_text"]["task_id"] == 1
    assert reference["task_without_cluster"]["schedule"] == "train_and_evaluate"
    # an evaluator: outside the cluster its address cannot be looked up (unless
    # `master` is given); inside, it has no default schedule
    assert reference["evaluator_outside"]["error"][1].startswith(
        "evaluator is not a valid task_type in the cluster_spec:"
    )
    for layout in ("evaluator_outside_master_given", "evaluator_inside"):
        assert reference[layout]["schedule"] == [
            "ValueError",
            "No default schedule for task type: evaluator",
        ]
    assert reference["evaluator_inside"]["master"] == "grpc://e:1"
    assert reference["one_task_cluster"]["master"] == ""
    assert runtime == reference


def test_an_explicit_schedule_runs_that_method(tmp_path):
    calls = []
    config = learn.RunConfig(model_dir=str(tmp_path))
    learn.learn_runner.run(
        _experiment_fn(calls), run_config=config, schedule="train", hparams=HParams(a=1)
    )
    assert calls == ["train"]
    with pytest.raises(ValueError, match="Schedule references non-existent task fly"):
        learn.learn_runner.run(_experiment_fn(calls), run_config=config, schedule="fly")


def test_the_estimator_must_use_the_run_config_given(tmp_path):
    def experiment_fn(run_config, hparams):
        other = learn.RunConfig(model_dir=str(tmp_path / "other"))
        return learn.Experiment(estimator.Estimator(model_fn, config=other), None, None)

    with pytest.raises(RuntimeError, match="expected to be used by the `Estimator`"):
        learn.learn_runner.run(experiment_fn, run_config=learn.RunConfig(model_dir=str(tmp_path)))


def test_learn_runner_wants_a_contrib_run_config_or_an_output_dir(tmp_path):
    with pytest.raises(ValueError, match="must be `tf.contrib.learn.RunConfig` instance"):
        learn.learn_runner.run(_experiment_fn([]), run_config=estimator.RunConfig(str(tmp_path)))
    with pytest.raises(ValueError, match="Must set value for `output_dir` or `run_config`"):
        learn.learn_runner.run(_experiment_fn([]))


def test_uid_leaves_out_what_a_run_may_change():
    config = learn.RunConfig(model_dir="/tmp/m", tf_random_seed=1)
    assert config.uid() == learn.RunConfig(model_dir="/tmp/m", tf_random_seed=2).uid()
    assert config.uid() != learn.RunConfig(model_dir="/tmp/other").uid()
    assert config.uid() == config.replace(save_summary_steps=7).uid()


def test_eval_metrics_are_refused_with_a_tf_estimator(tmp_path):
    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="`eval_metrics` must be `None`"):
        learn.Experiment(est, None, None, eval_metrics={"auc": tf.compat.v1.metrics.auc})


def test_export_strategies_must_be_export_strategies(tmp_path):
    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="`export_strategies` must be an ExportStrategy"):
        learn.Experiment(est, None, None, export_strategies=["Servo"])
