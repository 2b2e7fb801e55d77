"""``train_and_evaluate(estimator, train_spec, eval_spec)`` with ``TrainSpec`` /
``EvalSpec`` (docs/estimator_contract.md §1.9).

Local mode trains to ``max_steps`` and evaluates after every checkpoint save but
the first (throttled by ``throttle_secs``) and once more at the end, running the
exporters after each evaluation. A TF_CONFIG ``evaluator`` task evaluates each
new checkpoint until ``max_steps``. Validation texts are tf.estimator 2.15's.
"""

from __future__ import annotations

import collections
import logging
import os
import time

import tensorflow as tf

from estimator_revival.calls.type_checks import instances_of
from estimator_revival.distribute import parameter_servers
from estimator_revival.engine.estimator import Estimator
from estimator_revival.engine.run_config import TaskType
from estimator_revival.saving.exporters import Exporter

log = logging.getLogger("tensorflow")


def _validate_input_fn(input_fn) -> None:
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks) -> tuple:
    return instances_of(
        hooks,
        tf.compat.v1.train.SessionRunHook,
        "All hooks must be `SessionRunHook` instances, given: {}",
    )


def _validate_saving_listeners(listeners) -> tuple:
    return instances_of(
        listeners,
        tf.compat.v1.train.CheckpointSaverListener,
        "All saving_listeners must be `CheckpointSaverListener` instances, given: {}",
    )


def _validate_exporters(exporters) -> tuple:
    if not exporters:
        return ()
    given = exporters
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    try:
        exporters = list(exporters)
    except TypeError:
        exporters = [given]
    if not all(isinstance(exporter, Exporter) for exporter in exporters):
        raise TypeError(
            f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, found {given}."
        )
    names = [exporter.name for exporter in exporters]
    for index, name in enumerate(names):
        if not name:
            raise ValueError(
                f"An Exporter cannot have a name that is `None` or empty. All exporter names: {names}"
            )
        if not isinstance(name, str):
            raise ValueError(f"An Exporter must have a string name. Given: {type(name)}")
        if name in names[:index]:
            raise ValueError(
                "`exporters` must have unique names. Such a name cannot be `None`. "
                f"All exporter names: {names}"
            )
    return tuple(exporters)


class TrainSpec(
    collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])
):
    """What and how long ``train_and_evaluate`` trains (``tf.estimator.TrainSpec``)."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _validate_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(
            cls,
            input_fn,
            max_steps,
            _validate_hooks(hooks),
            _validate_saving_listeners(saving_listeners),
        )


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"],
    )
):
    """How ``train_and_evaluate`` evaluates and exports (``tf.estimator.EvalSpec``)."""

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        _validate_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        hooks = _validate_hooks(hooks)
        exporters = _validate_exporters(exporters)
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(
            cls, input_fn, steps, name, hooks, exporters, start_delay_secs, throttle_secs
        )


class _Evaluator:
    """Evaluates the latest checkpoint if it is new, then runs the exporters."""

    def __init__(self, estimator: Estimator, eval_spec: EvalSpec, max_steps) -> None:
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_steps = max_steps
        self._previous_checkpoint = None

    def evaluate_and_export(self):
        """``(metrics, export results)``, or ``(None, [])`` without a new checkpoint."""
        checkpoint = self._estimator.latest_checkpoint()
        if not checkpoint or checkpoint == self._previous_checkpoint:
            log.info("No new checkpoint ready for evaluation.")
            return None, []
        try:
            metrics = self._estimator.evaluate(
                input_fn=self._eval_spec.input_fn,
                steps=self._eval_spec.steps,
                name=self._eval_spec.name,
                checkpoint_path=checkpoint,
                hooks=self._eval_spec.hooks,
            )
        except tf.errors.NotFoundError:
            if tf.io.gfile.exists(checkpoint + ".index"):
                raise
            # An evaluator task races the chief, which prunes old checkpoints.
            log.warning(
                "Checkpoint %s was deleted (keep_checkpoint_max) before it could be "
                "evaluated; the next one will be.",
                checkpoint,
            )
            return None, []
        is_final = bool(self._max_steps) and metrics["global_step"] >= self._max_steps
        export_base = os.path.join(self._estimator.model_dir, "export")
        exports = [
            exporter.export(
                estimator=self._estimator,
                export_path=os.path.join(export_base, exporter.name),
                checkpoint_path=checkpoint,
                eval_result=metrics,
                is_the_final_export=is_final,
            )
            for exporter in self._eval_spec.exporters
        ]
        self._previous_checkpoint = checkpoint
        return metrics, exports


class _EvaluateAfterSave(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates after each checkpoint save but the first, at most every
    ``throttle_secs``, and at the end if the last save was not evaluated."""

    def __init__(self, evaluator: _Evaluator, throttle_secs) -> None:
        self._evaluator = evaluator
        self._throttle_secs = throttle_secs
        self.metrics, self.export_results = None, None

    def begin(self):
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=self._throttle_secs)
        self._is_first_save = True

    def after_save(self, session, global_step_value):
        if self._is_first_save:
            self._is_first_save = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            log.info(
                "Skip the current checkpoint eval due to throttle secs (%s secs).",
                self._throttle_secs,
            )

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value) -> None:
        self._timer.update_last_triggered_step(global_step_value)
        metrics, exports = self._evaluator.evaluate_and_export()
        if metrics is None:
            raise RuntimeError(
                "There was no new checkpoint after the training. Eval status: no new checkpoint"
            )
        self.metrics, self.export_results = metrics, exports


def train_and_evaluate(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains, evaluates and exports as ``tf.estimator.train_and_evaluate`` did;
    returns ``(eval metrics, export results)`` in local mode."""
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}"
        )
    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(
            f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}"
        )
    config = estimator.config
    if config.task_type == TaskType.EVALUATOR:
        if config.task_id > 0:
            raise ValueError(
                "For distributed training, there can only be one `evaluator` task "
                f"(with task id 0).  Given task id {config.task_id}"
            )
        return _run_evaluator(estimator, train_spec, eval_spec)
    if not config.cluster_spec:
        return _run_local(estimator, train_spec, eval_spec)
    if config.task_type == TaskType.PS:
        return parameter_servers.serve_until_chief_leaves(config)
    return _run_training_task(estimator, train_spec)


def _run_training_task(estimator: Estimator, train_spec: TrainSpec) -> None:
    """A ``chief``, ``master`` or ``worker`` task: trains to ``max_steps``
    together with the other workers (a worker of a ps cluster serves the
    chief's coordinator); evaluation is the ``evaluator`` task's job. Returns
    None, as Estimator's distributed roles did."""
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=list(train_spec.saving_listeners),
    )


def _run_local(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    log.info(
        "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
        "Checkpoint frequency is determined based on RunConfig arguments: "
        "save_checkpoints_steps %s or save_checkpoints_secs %s.",
        estimator.config.save_checkpoints_steps,
        estimator.config.save_checkpoints_secs,
    )
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateAfterSave(evaluator, eval_spec.throttle_secs)
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=[*train_spec.saving_listeners, listener],
    )
    return listener.metrics, listener.export_results


def _run_evaluator(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """The TF_CONFIG ``evaluator`` task: evaluate each new checkpoint until the
    training reaches ``max_steps``."""
    time.sleep(eval_spec.start_delay_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    metrics, exports = None, []
    while True:
        started = time.time()
        result, result_exports = evaluator.evaluate_and_export()
        if result is not None:
            metrics, exports = result, result_exports
            if train_spec.max_steps and result["global_step"] >= train_spec.max_steps:
                return metrics, exports
        time.sleep(max(0.0, eval_spec.throttle_secs - (time.time() - started)))
