"""How an Experiment evaluated during training (TF 1.15's
``contrib/learn/python/learn/monitors.py`` and ``experiment.py``).

- :class:`ValidationHook`: ``ValidationMonitor`` as ``train_and_evaluate`` ran it
  on a ``tf.estimator.Estimator`` (wrapped in a hook, after the other hooks):
  every ``every_n_steps`` steps, at most once per ``check_interval_secs``, an
  evaluation of the newest checkpoint when it is not the one evaluated last.
- :class:`EvalAndExportListener`: with ``checkpoint_and_export``, an evaluation
  and the exports after every checkpoint saved.
"""

from __future__ import annotations

import logging
import time

import tensorflow as tf

log = logging.getLogger("tensorflow")


class ValidationHook(tf.compat.v1.train.SessionRunHook):
    def __init__(self, estimator, *, evaluate, every_n_steps: int, check_interval_secs) -> None:
        self._estimator = estimator
        self._evaluate = evaluate
        self._every_n_steps = every_n_steps
        self._check_interval_secs = check_interval_secs
        self._last_active_step = 0
        self._latest_path = None
        self._last_check_time = None
        self._step = None
        self._active = False

    def begin(self) -> None:
        self._step = None
        self._global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        """The monitor's step is the global step this run makes (one past the
        value before it); it is active every ``every_n_steps`` of them."""
        if self._step is None:
            self._step = int(run_context.session.run(self._global_step)) + 1
        self._active = self._step >= self._every_n_steps + self._last_active_step
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values) -> None:
        if self._active:
            self._validate(self._step)
            self._last_active_step = self._step
        self._step = int(run_values.results) + 1

    def _validate(self, step: int) -> None:
        now = time.time()
        if (
            self._check_interval_secs is not None
            and self._last_check_time is not None
            and now - self._last_check_time <= self._check_interval_secs
        ):
            return
        self._last_check_time = now
        latest_path = tf.train.latest_checkpoint(self._estimator.model_dir)
        if latest_path is None or latest_path == self._latest_path:
            return
        self._latest_path = latest_path
        outputs = self._evaluate()
        log.info(
            "Validation (step %d): %s",
            step,
            ", ".join(f"{name} = {value}" for name, value in outputs.items()),
        )


class EvalAndExportListener(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self, *, evaluate, export, model_dir) -> None:
        self._evaluate = evaluate
        self._export = export
        self._model_dir = model_dir
        self._latest_path = None
        self.eval_result = None
        self.export_results = None

    def after_save(self, session, global_step_value) -> None:
        """Evaluates the checkpoint just saved (``eval_intermediate_export``) and
        exports it, unless it is the one done last."""
        latest_path = tf.train.latest_checkpoint(self._model_dir)
        if not latest_path:
            log.warning("Skipping evaluation and export since model has not been saved yet.")
        elif latest_path == self._latest_path:
            log.warning("Skipping evaluation due to same latest checkpoint %s.", latest_path)
        else:
            self._latest_path = latest_path
            self.eval_result = self._evaluate(
                name="intermediate_export", checkpoint_path=latest_path
            )
            self.export_results = self._export(self.eval_result, checkpoint_path=latest_path)
