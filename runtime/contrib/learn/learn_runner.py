"""``tf.contrib.learn.learn_runner.run``: builds an Experiment and runs the
schedule this task has (TF 1.15's ``learn_runner.py``): ``train_and_evaluate`` on
one machine and on a cluster's master, ``train`` on a worker, ``run_std_server``
on a parameter server."""

from __future__ import annotations

import logging

from estimator_revival.contrib.learn.experiment import Experiment
from estimator_revival.contrib.learn.run_config import RunConfig
from estimator_revival.contrib.training import HParams

log = logging.getLogger("tensorflow")

_DEFAULT_SCHEDULES = {"master": "train_and_evaluate", "ps": "run_std_server", "worker": "train"}


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """``experiment_fn(run_config, hparams)`` (or, the old form,
    ``experiment_fn(output_dir)``), then its ``schedule`` method; returns what
    that returns."""
    if output_dir is not None and run_config is not None:
        raise ValueError("Cannot provide both `output_dir` and `run_config`")
    if output_dir is None and run_config is None:
        raise ValueError("Must set value for `output_dir` or `run_config`")
    if not callable(experiment_fn):
        raise TypeError(f'Experiment builder "{experiment_fn}" is not callable.')
    if run_config is not None:
        experiment = _experiment_using(experiment_fn, run_config, hparams)
    else:
        if not output_dir:
            raise ValueError("Must specify an output directory")
        if hparams is not None:
            raise ValueError("Must set `hparams` as None for `experiment_fn` with `output_dir`.")
        experiment = _checked(experiment_fn(output_dir=output_dir))
    schedule = schedule or default_schedule(run_config or experiment.estimator.config)
    return _execute(experiment, schedule)


def _experiment_using(experiment_fn, run_config, hparams) -> Experiment:
    """The Experiment ``experiment_fn`` builds, checked to use ``run_config``."""
    if not isinstance(run_config, RunConfig):
        raise ValueError("`run_config` must be `tf.contrib.learn.RunConfig` instance")
    if not run_config.model_dir:
        raise ValueError("Must specify a model directory `model_dir` in `run_config`.")
    if hparams is not None and not isinstance(hparams, HParams):
        raise ValueError("`hparams` must be `HParams` instance")
    expected_uid = run_config.uid()
    experiment = _checked(experiment_fn(run_config, hparams))
    used = experiment.estimator.config
    if not hasattr(used, "uid"):
        raise RuntimeError(
            "Pass `run_config` argument of the `experiment_fn` to the Estimator in "
            "Experiment. It is likely a different `RunConfig` is passed to `Estimator` "
            "or the `config` constructor argument in `Estimator` is not set."
        )
    if used.uid() != expected_uid:
        raise RuntimeError(
            "`RunConfig` instance is expected to be used by the `Estimator` inside the "
            f"`Experiment`. expected {expected_uid}, but got {used.uid()}"
        )
    return experiment


def _checked(experiment) -> Experiment:
    if not isinstance(experiment, Experiment):
        raise TypeError(
            "Experiment builder did not return an Experiment instance, "
            f"got {type(experiment)} instead."
        )
    return experiment


def default_schedule(config) -> str:
    """The schedule ``run`` runs when given none: ``train_and_evaluate`` unless the cluster has more than one task; there,
    the schedule of this task's type."""
    tasks = 0
    if config is not None and config.cluster_spec:
        tasks = sum(len(config.cluster_spec.job_tasks(job)) for job in config.cluster_spec.jobs)
    if tasks <= 1:
        return "train_and_evaluate"
    if not config.task_type:
        raise ValueError("Must specify a schedule")
    if config.task_type not in _DEFAULT_SCHEDULES:
        raise ValueError(f"No default schedule for task type: {config.task_type}")
    return _DEFAULT_SCHEDULES[config.task_type]


def _execute(experiment: Experiment, schedule: str):
    task = getattr(experiment, schedule, None)
    allowed = [
        name
        for name in dir(experiment)
        if not name.startswith("_") and callable(getattr(experiment, name))
    ]
    if task is None:
        log.error("Allowed values for this experiment are: %s", allowed)
        raise ValueError(f"Schedule references non-existent task {schedule}")
    if not callable(task):
        log.error("Allowed values for this experiment are: %s", allowed)
        raise TypeError(f"Schedule references non-callable member {schedule}")
    return task()
