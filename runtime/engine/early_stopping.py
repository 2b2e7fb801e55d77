"""``tf.estimator.experimental``'s early stopping: hooks that stop training when an
evaluation metric crosses a threshold or stops improving.

As in tensorflow-estimator, the chief's hook asks ``should_stop_fn`` every
``run_every_secs`` seconds or ``run_every_steps`` steps, reading the evaluation
results from the events in ``estimator.eval_dir()``, and on a stop sets the
variable ``signal_early_stopping/STOP`` (a model variable, saved in checkpoints,
which the other workers' hook reads), made in the hooks' ``begin()`` and set by
the chief's session, as the Estimator's hooks did (runtime/tf1/hook_graph.py).
"""

from __future__ import annotations

import collections
import functools
import logging
import operator
import os

import tensorflow as tf

STOP_NAME = "signal_early_stopping/STOP"
_EVENT_FILES = "*.tfevents.*"
_log = logging.getLogger("tensorflow")


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """A hook that stops training when ``should_stop_fn()`` returns True."""
    from estimator_revival.engine.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if estimator.config.train_distribute:
        # tensorflow-estimator took every train_distribute for multi-worker here
        if run_every_secs:
            raise ValueError(
                "run_every_secs should not be set when using MultiWorkerMirroredStrategy."
            )
        raise NotImplementedError(
            "Early stopping with RunConfig(train_distribute=...) sums a stop signal across "
            "workers, which the runtime does not run (docs/runtime.md, 'What the runtime "
            "refuses')."
        )
    if estimator.config.is_chief:
        return StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return CheckForStoppingHook()


def stop_if_no_increase_hook(
    estimator,
    metric_name,
    max_steps_without_increase,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_increase,
        True,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_no_decrease_hook(
    estimator,
    metric_name,
    max_steps_without_decrease,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_decrease,
        False,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def read_eval_metrics(eval_dir) -> collections.OrderedDict:
    """``{global step: {tag: value}}`` of the scalar summaries in ``eval_dir``'s
    event files, by step (a later file's value for a step and tag wins)."""
    by_step = collections.defaultdict(dict)
    for event in _events(eval_dir):
        if not event.HasField("summary"):
            continue
        for value in event.summary.value:
            if value.HasField("simple_value"):
                by_step[event.step][value.tag] = value.simple_value
    return collections.OrderedDict(sorted(by_step.items()))


def _events(eval_dir):
    if not tf.io.gfile.exists(eval_dir):
        return
    for path in tf.io.gfile.glob(os.path.join(eval_dir, _EVENT_FILES)):
        try:
            yield from tf.compat.v1.train.summary_iterator(path)
        except tf.errors.DataLossError as error:
            _log.warning(
                "Skipping rest of the file due to encountering data corruption error; "
                "file path: %s; original error raised by `tf.train.summary_iterator`: %s",
                path,
                error,
            )


def _threshold_hook(
    estimator,
    metric_name,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
    *,
    higher,
):
    """A hook that stops when ``metric_name`` is higher (lower) than ``threshold``
    at a step of ``min_steps`` or more."""
    eval_dir = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher else operator.lt
    relation = "greater than" if higher else "less than"

    def crossed() -> bool:
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if better(value, threshold):
                _log.info(
                    'At step %s, metric "%s" has value %s which is %s the configured '
                    "threshold (%s) for early stopping.",
                    step,
                    metric_name,
                    value,
                    relation,
                    threshold,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, crossed, run_every_secs, run_every_steps)


# tf.estimator.experimental.stop_if_higher_hook / stop_if_lower_hook
stop_if_higher_hook = functools.partial(_threshold_hook, higher=True)
stop_if_lower_hook = functools.partial(_threshold_hook, higher=False)


def _no_improvement_hook(
    estimator, metric, max_steps, higher, eval_dir, min_steps, run_every_secs, run_every_steps
):
    eval_dir = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher else operator.lt
    direction = "increase" if higher else "decrease"

    def stalled() -> bool:
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                _log.info(
                    'No %s in metric "%s" for %s steps, which is greater than or equal '
                    "to max steps (%s) configured for early stopping.",
                    direction,
                    metric,
                    step - best_step,
                    max_steps,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stalled, run_every_secs, run_every_steps)


def _stop_variable() -> tf.Variable:
    """The stop signal, a global variable of the model, made (or found) in a
    hook's ``begin()`` as tensorflow-estimator made it."""
    scope, name = STOP_NAME.split("/")
    with tf.compat.v1.variable_scope(scope, reuse=tf.compat.v1.AUTO_REUSE):
        return tf.compat.v1.get_variable(
            name,
            shape=[],
            dtype=tf.bool,
            initializer=tf.compat.v1.constant_initializer(False),
            collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES],
            use_resource=True,
        )


class StopOnPredicateHook(tf.compat.v1.train.SessionRunHook):
    """The chief's hook: asks ``should_stop_fn`` on its timer; stops when it says so."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None) -> None:
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = tf.compat.v1.train.SecondOrStepTimer(
            every_secs=run_every_secs, every_steps=run_every_steps
        )

    def begin(self) -> None:
        self._global_step = tf.compat.v1.train.get_global_step()
        self._stop = tf.compat.v1.assign(_stop_variable(), True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values) -> None:
        step = run_values.results
        if not self._timer.should_trigger_for_step(step):
            return
        self._timer.update_last_triggered_step(step)
        if self._should_stop_fn():
            _log.info("Requesting early stopping at global step %d", step)
            run_context.session.run(self._stop)
            run_context.request_stop()


class CheckForStoppingHook(tf.compat.v1.train.SessionRunHook):
    """The other workers' hook: stops when the chief set the stop signal."""

    def begin(self) -> None:
        self._stop = _stop_variable()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._stop)

    def after_run(self, run_context, run_values) -> None:
        if run_values.results:
            _log.info("Early stopping requested, suspending run.")
            run_context.request_stop()
