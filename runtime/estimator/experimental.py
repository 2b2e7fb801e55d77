"""``tf.estimator.experimental``: what the runtime has of it (``migrate`` rewrites
these here; the namespace's other names stay reported as MIG101)."""

from estimator_revival.canned.sdca import LinearSDCA
from estimator_revival.engine.early_stopping import (
    make_early_stopping_hook,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from estimator_revival.engine.in_memory_evaluator import InMemoryEvaluatorHook
from estimator_revival.engine.stop_at_checkpoint_step import make_stop_at_checkpoint_step_hook
from estimator_revival.estimator.export import build_raw_supervised_input_receiver_fn

__all__ = [
    "InMemoryEvaluatorHook",
    "LinearSDCA",
    "build_raw_supervised_input_receiver_fn",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
