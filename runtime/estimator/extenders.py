"""``tf.estimator.add_metrics``: an Estimator whose evaluation also computes the
metrics of a ``metric_fn``, as tensorflow-estimator's ``extenders`` made it."""

from __future__ import annotations

from collections.abc import Callable

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import fn_args
from estimator_revival.engine.estimator import Estimator

_METRIC_FN_ARGS = frozenset({"features", "labels", "predictions", "config"})


def add_metrics(estimator: Estimator, metric_fn: Callable) -> Estimator:
    """A new Estimator (same model_dir, config and warm start) whose model_fn is
    ``estimator``'s, with ``metric_fn``'s metrics added to its ``eval_metric_ops``
    in EVAL (one of the same name replaces the model's).

    ``metric_fn`` takes any of ``features``, ``labels``, ``predictions`` (the
    model's) and ``config`` by name, and returns a dict of metrics: ``(value,
    update_op)`` tuples or Keras metrics.
    """
    unexpected = sorted(set(fn_args(metric_fn)) - _METRIC_FN_ARGS)
    if unexpected:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {unexpected}")
    model_fn = estimator.model_fn

    def model_fn_with_metrics(features, labels, mode, config):
        spec = model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        available = {
            "features": features,
            "labels": labels,
            "predictions": spec.predictions,
            "config": config,
        }
        wanted = fn_args(metric_fn)
        metrics = metric_fn(**{name: value for name, value in available.items() if name in wanted})
        return spec._replace(eval_metric_ops={**(spec.eval_metric_ops or {}), **metrics})

    return Estimator(
        model_fn=model_fn_with_metrics,
        model_dir=estimator.model_dir,
        config=estimator.config,
        warm_start_from=estimator._warm_start,  # as TensorFlow passed its own settings
    )
