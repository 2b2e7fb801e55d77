"""``tf.estimator.experimental.InMemoryEvaluatorHook``: evaluation during training,
on the variables as they are, without a checkpoint in ``model_dir``.

The Estimator built the evaluation graph once and, at each evaluation, fed it the
training session's variable values. The runtime's evaluation restores from a
checkpoint, so the hook writes the variables as they are to a checkpoint of its
own, in a temporary directory, and evaluates that: the same values, hence the
same metrics, written to ``eval`` (or ``eval_<name>``) as the Estimator wrote them.
It evaluates when the session is created (before the first step), every
``every_n_iter`` steps of the ``train()`` call, and at its end. TensorFlow's
arguments, checks and messages (tensorflow_estimator 2.15, ``hooks/hooks.py``).
"""

from __future__ import annotations

import os
import tempfile

import tensorflow as tf

from estimator_revival.engine.hook_plan import checked_hooks
from estimator_revival.engine.hooks import HookSession


class InMemoryEvaluatorHook(tf.compat.v1.train.SessionRunHook):
    """Runs ``estimator.evaluate`` on the training variables every ``every_n_iter``
    steps (and before and after training)."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if estimator.config.num_ps_replicas > 0 or estimator.config.num_worker_replicas > 1:
            raise ValueError("InMemoryEvaluator supports only single machine (aka Local) setting.")
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = checked_hooks(hooks)
        self._name = name
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_steps=every_n_iter)
        self._iter_count = 0

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._global_step = tf.compat.v1.train.get_global_step()

    def after_create_session(self, session, coord):
        self._evaluate(session)

    def after_run(self, run_context, run_values):
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session):
        self._evaluate(session)

    def _evaluate(self, session: HookSession) -> None:
        step = int(session.run(self._global_step))
        with tempfile.TemporaryDirectory(prefix="in_memory_eval") as directory:
            checkpoint = session.save_variables(os.path.join(directory, "model.ckpt"), step)
            # the Estimator's in-memory evaluation named no checkpoint in its summaries
            self._estimator._evaluate_checkpoint(
                self._input_fn, self._steps, self._hooks, checkpoint, self._name, recorded=None
            )
        self._timer.update_last_triggered_step(self._iter_count)
