"""``tf.estimator.experimental.make_stop_at_checkpoint_step_hook``: train_and_evaluate's
way of stopping every task at the same last step. The chief stops at ``last_step``
as ``StopAtStepHook`` does; another worker, once its own step reaches ``last_step``,
stops only when the chief's checkpoint in ``model_dir`` has reached it too (until
then it waits ``wait_after_file_check_secs`` between looks), so that the chief's
last checkpoint is written before the cluster stops. TensorFlow's behaviour and
messages (tensorflow_estimator 2.15, ``hooks/hooks.py``).
"""

from __future__ import annotations

import time

import tensorflow as tf

from estimator_revival.saving import checkpoints


class _StopAtCheckpointStepHook(tf.compat.v1.train.SessionRunHook):
    """Stops once the global step and the checkpoint on disk reach ``last_step``."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self):
        self._global_step_tensor = tf.compat.v1.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 < self._last_step:
            return
        if checkpoints.latest_global_step(self._model_dir) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait_after_file_check_secs)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """``StopAtStepHook(last_step)`` on the chief; on other workers, a hook that also
    waits for the chief's checkpoint of ``last_step``."""
    if estimator.config.is_chief:
        return tf.compat.v1.train.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(
        model_dir=estimator.model_dir,
        last_step=last_step,
        wait_after_file_check_secs=wait_after_file_check_secs,
    )
