"""``tf.contrib.learn.Experiment``: an Estimator with its inputs, and the schedules
that ran it (``train_and_evaluate``, ``continuous_train_and_eval``, ``train``,
``evaluate``, ``continuous_eval``, ``run_std_server``, ``test``), as TF 1.15's
``contrib/learn/python/learn/experiment.py`` defined them for a
``tf.estimator.Estimator``: the same calls of ``train``/``evaluate``, with the same
arguments, names and checkpoints, and the same exports."""

from __future__ import annotations

import contextlib
import inspect
import logging
import math
import os
import time

import tensorflow as tf

from estimator_revival.contrib.learn.export_strategy import ExportStrategy
from estimator_revival.contrib.learn.validation import EvalAndExportListener, ValidationHook
from estimator_revival.engine.estimator import Estimator

log = logging.getLogger("tensorflow")


class Experiment:
    """What learn_runner runs: an Estimator, its input_fns and how to interleave
    training, evaluation and export."""

    def __init__(
        self,
        estimator,
        train_input_fn,
        eval_input_fn,
        eval_metrics=None,
        train_steps=None,
        eval_steps=100,
        train_monitors=None,
        eval_hooks=None,
        local_eval_frequency=None,
        eval_delay_secs=120,
        continuous_eval_throttle_secs=60,
        min_eval_frequency=None,
        delay_workers_by_global_step=False,
        export_strategies=None,
        train_steps_per_iteration=None,
        checkpoint_and_export=False,
        saving_listeners=None,
        check_interval_secs=5,
    ) -> None:
        if not isinstance(estimator, Estimator):
            raise ValueError(
                "`estimator` must implement `tf.contrib.learn.Evaluable` or "
                "`tf.estimator.Estimator`."
            )
        if eval_metrics is not None:
            raise ValueError(
                "`eval_metrics` must be `None` with `tf.estimator.Estimator`. "
                "Use `eval_metric_ops` in `tf.estimator.EstimatorSpec` instead."
            )
        if train_steps_per_iteration is not None and not isinstance(train_steps_per_iteration, int):
            raise ValueError("`train_steps_per_iteration` must be an integer.")
        if type(estimator).__name__ == "TPUEstimator":
            log.warning(
                "`Experiment` class cannot work with `tf.contrib.tpu.TPUEstimator`. "
                "Please call `TPUEstimator` train/evaluate directly."
            )
        self._estimator = estimator
        self._train_input_fn = train_input_fn
        self._eval_input_fn = eval_input_fn
        self._train_steps = train_steps
        self._eval_steps = eval_steps
        self._local_eval_frequency = local_eval_frequency
        self._eval_delay_secs = eval_delay_secs
        self._continuous_eval_throttle_secs = continuous_eval_throttle_secs
        self._checkpoint_and_export = checkpoint_and_export
        self._saving_listeners = saving_listeners
        self._min_eval_frequency = 1 if min_eval_frequency is None else min_eval_frequency
        self._check_interval_secs = check_interval_secs
        self._delay_workers_by_global_step = delay_workers_by_global_step
        self._train_monitors = list(train_monitors or [])
        self._eval_hooks = list(eval_hooks or [])
        self._export_strategies = _export_strategies(export_strategies)
        self._train_steps_per_iteration = train_steps_per_iteration

    @property
    def estimator(self):
        return self._estimator

    @property
    def eval_metrics(self):
        return None

    @property
    def train_steps(self):
        return self._train_steps

    @property
    def eval_steps(self):
        return self._eval_steps

    def extend_train_hooks(self, additional_hooks) -> None:
        self._train_monitors.extend(additional_hooks)

    def reset_export_strategies(self, new_export_strategies=None) -> tuple:
        """Replaces the export strategies; returns the old ones."""
        old = self._export_strategies
        self._export_strategies = _export_strategies(new_export_strategies)
        return old

    def train(self, delay_secs=None):
        """Trains to ``train_steps`` (forever when None), a worker after a delay
        growing with its task id (or until the global step passes a threshold
        growing with it, with ``delay_workers_by_global_step``)."""
        extra_hooks = []
        if delay_secs is None:
            task_id = self._estimator.config.task_id or 0
            if self._delay_workers_by_global_step:
                wait_until_step = int(8000.0 * math.log(task_id + 1))
                extra_hooks.append(tf.compat.v1.train.GlobalStepWaiterHook(wait_until_step))
                delay_secs = 0
            else:
                delay_secs = min(60, task_id * 5)
        if delay_secs > 0:
            log.info("Waiting %d secs before starting training.", delay_secs)
            time.sleep(delay_secs)
        return self._estimator.train(
            self._train_input_fn,
            max_steps=self._train_steps,
            hooks=self._train_monitors + extra_hooks,
            saving_listeners=self._saving_listeners,
        )

    def evaluate(self, delay_secs=None, name=None):
        """One evaluation of the newest checkpoint, in ``eval_<name>`` (``one_pass``)."""
        delay_secs = self._eval_delay_secs if delay_secs is None else delay_secs
        if delay_secs:
            log.info("Waiting %d secs before starting eval.", delay_secs)
            time.sleep(delay_secs)
        return self._evaluate(name=name or "one_pass")

    def local_run(self):
        """``train_and_evaluate`` evaluating every ``local_eval_frequency`` steps."""
        with _attribute_restored(self, "_min_eval_frequency"):
            self._min_eval_frequency = self._local_eval_frequency
            return self.train_and_evaluate()

    def continuous_eval(
        self,
        delay_secs=None,
        throttle_delay_secs=None,
        evaluate_checkpoint_only_once=True,
        continuous_eval_predicate_fn=None,
        name="continuous",
    ) -> None:
        self._continuous_eval(
            self._eval_input_fn,
            name=name,
            delay_secs=delay_secs,
            throttle_delay_secs=throttle_delay_secs,
            evaluate_checkpoint_only_once=evaluate_checkpoint_only_once,
            continuous_eval_predicate_fn=continuous_eval_predicate_fn,
        )

    def continuous_eval_on_train_data(
        self,
        delay_secs=None,
        throttle_delay_secs=None,
        continuous_eval_predicate_fn=None,
        name="continuous_on_train_data",
    ) -> None:
        self._continuous_eval(
            self._train_input_fn,
            name=name,
            delay_secs=delay_secs,
            throttle_delay_secs=throttle_delay_secs,
            continuous_eval_predicate_fn=continuous_eval_predicate_fn,
            export=False,
        )

    def train_and_evaluate(self) -> tuple:
        """Trains to ``train_steps``, evaluating each new checkpoint on the way
        (every ``min_eval_frequency`` steps, at most every ``check_interval_secs``;
        with ``checkpoint_and_export``, at every checkpoint, exporting too), then
        evaluates and exports once more; returns ``(eval_result, export_results)``
        (those of the last checkpoint's with ``checkpoint_and_export``)."""
        config = self._estimator.config
        intermediate_export = self._checkpoint_and_export and (
            config.save_checkpoints_secs or config.save_checkpoints_steps
        )
        with (
            _attribute_restored(self, "_train_monitors"),
            _attribute_restored(self, "_saving_listeners"),
        ):
            if intermediate_export:
                listener = EvalAndExportListener(
                    evaluate=self._evaluate, export=self._maybe_export, model_dir=config.model_dir
                )
                self._saving_listeners = [*(self._saving_listeners or []), listener]
            elif self._min_eval_frequency:
                self._train_monitors = [
                    *self._train_monitors,
                    ValidationHook(
                        self._estimator,
                        evaluate=lambda: self._evaluate(name=None),
                        every_n_steps=self._min_eval_frequency,
                        check_interval_secs=self._check_interval_secs,
                    ),
                ]
            self.train(delay_secs=0)
        if intermediate_export:
            return listener.eval_result, listener.export_results
        eval_result = self._evaluate(name=None)
        return eval_result, self._maybe_export(eval_result)

    def continuous_train_and_eval(self, continuous_eval_predicate_fn=None) -> tuple:
        """Trains ``train_steps_per_iteration`` steps (a tenth of ``train_steps``, or
        1000), evaluates and exports, in turns, until ``train_steps`` or the
        predicate says stop; returns the last ``(eval_result, export_results)``."""
        predicate = _standardized_predicate(continuous_eval_predicate_fn)
        steps_per_iteration = 1000
        if self._train_steps_per_iteration is not None:
            steps_per_iteration = self._train_steps_per_iteration
        elif self._train_steps is not None:
            steps_per_iteration = int(self._train_steps / 10)
        eval_result = export_results = latest_checkpoint = None
        while not predicate or predicate(
            eval_result, checkpoint_path=latest_checkpoint if eval_result else None
        ):
            if self._has_training_stopped(eval_result):
                log.info("Stop training model as max steps reached")
                break
            log.info("Training model for %s steps", steps_per_iteration)
            self._estimator.train(
                self._train_input_fn,
                steps=steps_per_iteration,
                hooks=self._train_monitors,
                saving_listeners=self._saving_listeners,
            )
            log.info("Evaluating model now.")
            latest_checkpoint = tf.train.latest_checkpoint(self._estimator.model_dir)
            eval_result = self._evaluate(name="one_pass", checkpoint_path=latest_checkpoint)
            export_results = self._maybe_export(eval_result)
        return eval_result, export_results

    def run_std_server(self) -> None:
        """Starts this task's TensorFlow server (a parameter server) and serves."""
        config = self._estimator.config
        if (
            not (config.cluster_spec and config.task_type and config.master)
            or config.task_id is None
        ):
            raise ValueError(
                "Could not start server; be sure to specify cluster_spec, task_type, "
                "master, and task in RunConfig or set the TF_CONFIG environment variable."
            )
        server = tf.distribute.Server(
            config.cluster_spec,
            job_name=config.task_type,
            task_index=config.task_id,
            config=getattr(config, "tf_config", None),
            start=False,
        )
        server.start()
        server.join()

    def test(self):
        """One step of training, one of evaluation, and the exports."""
        self._estimator.train(
            self._train_input_fn,
            steps=1,
            hooks=self._train_monitors,
            saving_listeners=self._saving_listeners,
        )
        eval_result = self._estimator.evaluate(self._eval_input_fn, steps=1, name="one_pass")
        self._maybe_export(eval_result)
        return eval_result

    def _evaluate(self, name, checkpoint_path=None):
        return self._estimator.evaluate(
            self._eval_input_fn,
            steps=self._eval_steps,
            name=name,
            checkpoint_path=checkpoint_path,
            hooks=self._eval_hooks,
        )

    def _continuous_eval(
        self,
        input_fn,
        name,
        delay_secs,
        throttle_delay_secs,
        evaluate_checkpoint_only_once=True,
        continuous_eval_predicate_fn=None,
        export=True,
    ) -> None:
        """Evaluates each new checkpoint (each one, without
        ``evaluate_checkpoint_only_once``), at most one evaluation per
        ``throttle_delay_secs``, until the predicate says stop or an evaluation
        reaches ``train_steps``."""
        predicate = _standardized_predicate(continuous_eval_predicate_fn)
        delay_secs = self._eval_delay_secs if delay_secs is None else delay_secs
        if throttle_delay_secs is None:
            throttle_delay_secs = self._continuous_eval_throttle_secs
        if delay_secs:
            log.info("Waiting %f secs before starting eval.", delay_secs)
            time.sleep(delay_secs)
        previous_path = eval_result = None
        last_warning_time = 0
        while not predicate or predicate(eval_result, checkpoint_path=previous_path):
            if self._has_training_stopped(eval_result):
                log.info(
                    "Exiting continuous eval, global_step=%s >= train_step=%s",
                    eval_result["global_step"],
                    self._train_steps,
                )
                return
            start = time.time()
            latest_path = tf.train.latest_checkpoint(self._estimator.model_dir)
            waiting = None
            if not latest_path:
                waiting = (
                    "Estimator is not fitted yet. "
                    "Will start an evaluation when a checkpoint is ready."
                )
            elif evaluate_checkpoint_only_once and latest_path == previous_path:
                waiting = "No new checkpoint ready for evaluation."
            if waiting:
                eval_result = {}
                if time.time() - last_warning_time > 600:
                    log.warning(waiting)
                    last_warning_time = time.time()
            else:
                eval_result = (
                    self._estimator.evaluate(
                        input_fn,
                        steps=self._eval_steps,
                        name=name,
                        checkpoint_path=latest_path,
                        hooks=self._eval_hooks,
                    )
                    or {}
                )
                if export:
                    self._maybe_export(eval_result, checkpoint_path=latest_path)
                last_warning_time = 0
                previous_path = latest_path
            duration = time.time() - start
            if duration < throttle_delay_secs:
                log.info(
                    "Waiting %f secs before starting next eval run.", throttle_delay_secs - duration
                )
                time.sleep(throttle_delay_secs - duration)

    def _has_training_stopped(self, eval_result) -> bool:
        if not eval_result:
            return False
        global_step = eval_result.get("global_step")
        return bool(global_step and self._train_steps and global_step >= self._train_steps)

    def _maybe_export(self, eval_result, checkpoint_path=None) -> list:
        """Each export strategy's export under ``model_dir/export/<name>``."""
        export_dir_base = os.path.join(os.fsencode(self._estimator.model_dir), b"export")
        return [
            strategy.export(
                self._estimator,
                os.path.join(export_dir_base, os.fsencode(strategy.name)),
                checkpoint_path=checkpoint_path,
                eval_result=eval_result,
            )
            for strategy in self._export_strategies
        ]


def _export_strategies(values) -> tuple:
    if not values:
        return ()
    if isinstance(values, ExportStrategy):
        return (values,)
    for value in values:
        if not isinstance(value, ExportStrategy):
            raise ValueError(
                "`export_strategies` must be an ExportStrategy, an iterable of "
                f"ExportStrategy, or `None`, found {value}."
            )
    return tuple(values)


def _standardized_predicate(predicate_fn):
    """``predicate_fn(eval_results, checkpoint_path=...)`` (None: no predicate)."""
    if predicate_fn is None:
        return None
    if not callable(predicate_fn):
        raise ValueError("`continuous_eval_predicate_fn` must be a callable, or None.")
    if "checkpoint_path" in inspect.signature(predicate_fn).parameters:
        return predicate_fn
    return lambda eval_results, checkpoint_path: predicate_fn(eval_results)


@contextlib.contextmanager
def _attribute_restored(obj, name: str):
    """Puts ``obj.<name>`` back as it was when the block ends."""
    value = getattr(obj, name)
    try:
        yield
    finally:
        setattr(obj, name, value)
