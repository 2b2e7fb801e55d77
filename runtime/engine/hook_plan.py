"""Which hooks of a call the runtime does itself and which it drives, and
running their ``begin()`` where they can see model_fn's graph."""

from __future__ import annotations

import dataclasses
import logging

import tensorflow as tf

from estimator_revival.calls.spec import InGraphHook
from estimator_revival.calls.type_checks import instances_of
from estimator_revival.engine.cadence import Cadence, whole_steps
from estimator_revival.engine.hooks import variables_as_graph_elements

log = logging.getLogger("tensorflow")


@dataclasses.dataclass
class HookPlan:
    """The hooks of one train() call, split into what the controller does itself
    (StopAtStepHook, CheckpointSaverHook and its listeners) and what it drives."""

    user_hooks: list
    listeners: list
    stop_at: object = None
    checkpoint_cadence: Cadence | None = None

    def sort(self, hooks) -> None:
        for hook in hooks:
            if isinstance(hook, tf.compat.v1.train.StopAtStepHook):
                self.stop_at = hook
            elif isinstance(hook, tf.compat.v1.train.CheckpointSaverHook):
                timer = hook._timer
                self.checkpoint_cadence = Cadence(
                    steps=whole_steps(timer._every_steps), secs=timer._every_secs
                )
                self.listeners = list(hook._listeners) + self.listeners
            elif isinstance(hook, InGraphHook):
                continue
            elif isinstance(
                hook, (tf.compat.v1.train.StepCounterHook, tf.compat.v1.train.SummarySaverHook)
            ):
                log.info(
                    "%s is done by the runtime itself; ignoring the instance.", type(hook).__name__
                )
            else:
                self.user_hooks.append(hook)


def checked_hooks(hooks) -> list:
    """A call's ``hooks=`` as a list (the Estimator's TypeError for a non-hook)."""
    return list(
        instances_of(
            hooks, tf.compat.v1.train.SessionRunHook, "Hooks must be a SessionRunHook, given: {}"
        )
    )


def checked_listeners(listeners) -> list:
    """A call's ``saving_listeners=`` as a list."""
    return list(
        instances_of(
            listeners,
            tf.compat.v1.train.CheckpointSaverListener,
            "saving_listeners must be a list of CheckpointSaverListener, given: {}",
        )
    )


def begin_all(hooks) -> None:
    with variables_as_graph_elements():
        for hook in hooks:
            hook.begin()


def with_spec_hooks(hooks: list, field: str):
    """``begin(spec)`` for evaluate/predict: adds the spec's hooks, then begins all."""

    def begin(spec):
        hooks.extend(h for h in getattr(spec, field) if not isinstance(h, InGraphHook))
        begin_all(hooks)

    return begin
