"""Checks that the steps a TPU-style run builds compile with XLA.

A TPU runs each step as one XLA program; host-side work (host_call, metric_fn,
their summaries) runs outside it. Without a TPU, the strongest check is to
compile the same device part with ``jit_compile=True`` on the CPU, with the
static shapes of a real input element: an op XLA cannot compile, or a shape it
cannot make static, fails here as it would on a TPU.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.distribute.host_calls import HostCallOutfeed
from estimator_revival.engine import steps
from estimator_revival.engine.eager_mode import runs_eagerly

_DEVICE_PARTS = {
    ModeKeys.TRAIN: {"on_replica": steps.loss_after_train_op},
    ModeKeys.EVAL: {"on_metrics": steps.after_updates},
    ModeKeys.PREDICT: {"on_replica": steps.predictions_of},
}


@runs_eagerly  # as train() does, in a program that switched TF 1's behaviour on
def compile_step(estimator, mode: str, input_fn) -> str:
    """The optimized HLO of ``mode``'s step for one element of ``input_fn``.

    Raises what XLA raises when it cannot compile the step. A TPUEstimator's
    host calls are sent to an outfeed, so the compiled part is what ran on the
    TPU; a plain Estimator's eval metrics are part of its device step.
    """
    blueprint, pipeline = estimator._prepare(mode, input_fn, estimator.latest_checkpoint())
    # what input_fn computed from its element (get_next()'s tensors) ran on the
    # host, as TPUEstimator's input pipeline ran it: outside the compiled step
    element = tf.function(pipeline.to_model_input, autograph=False)(next(pipeline.iterator))
    replication = estimator._replications[mode]
    outfeed = HostCallOutfeed(replication) if estimator.runs_host_calls_on_host else None
    traced = steps.TracedModel(
        call_model_fn=estimator._caller(outfeed),
        store=estimator._store,
        blueprint=blueprint,
        replication=replication,
        outfeed=outfeed,
    )
    device_part = _DEVICE_PARTS[mode]

    def step(element):
        return traced.run(element, **device_part, on_device_only=True)

    compiled = tf.function(step, jit_compile=True, autograph=False)
    with replication.scope(), estimator._store.serving(), estimator._graph_options():
        return compiled.experimental_get_compiler_ir(element)(stage="optimized_hlo")


def compile_steps(estimator, *, train_input_fn, eval_input_fn, predict_input_fn) -> dict:
    """``{mode: optimized HLO}`` of the train, eval and predict steps."""
    return {
        ModeKeys.TRAIN: compile_step(estimator, ModeKeys.TRAIN, train_input_fn),
        ModeKeys.EVAL: compile_step(estimator, ModeKeys.EVAL, eval_input_fn),
        ModeKeys.PREDICT: compile_step(estimator, ModeKeys.PREDICT, predict_input_fn),
    }
