"""``TPUEstimatorSpec``: a model_fn's result with TPU host calls, and how it runs
where there is no TPU (``as_estimator_spec``), as TPUEstimator did on CPU."""

from __future__ import annotations

import collections
import inspect
import logging

import tensorflow as tf

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import fn_args
from estimator_revival.calls.spec import EstimatorSpec, InGraphHook
from estimator_revival.distribute.host_calls import HostCallOutfeed, call_host_fn
from estimator_revival.tf1 import tpu_slices

log = logging.getLogger("tensorflow")

_FIELDS = [
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metrics",
    "export_outputs",
    "scaffold_fn",
    "host_call",
    "training_hooks",
    "evaluation_hooks",
    "prediction_hooks",
]


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", _FIELDS)):
    """Ops and objects returned from a TPU ``model_fn``."""

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metrics=None,
        export_outputs=None,
        scaffold_fn=None,
        host_call=None,
        training_hooks=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        validate_host_calls({"eval_metrics": eval_metrics, "host_call": host_call})
        training_hooks = tuple(training_hooks or [])
        evaluation_hooks = tuple(evaluation_hooks or [])
        prediction_hooks = tuple(prediction_hooks or [])
        for hook in training_hooks + evaluation_hooks + prediction_hooks:
            if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metrics=eval_metrics,
            export_outputs=export_outputs,
            scaffold_fn=scaffold_fn,
            host_call=host_call,
            training_hooks=training_hooks,
            evaluation_hooks=evaluation_hooks,
            prediction_hooks=prediction_hooks,
        )

    def as_estimator_spec(self, *, host_of_replicas: int | None = None) -> EstimatorSpec:
        """The equivalent EstimatorSpec, as TPUEstimator built it for CPU/GPU:
        metric_fn called directly on the tensors, host_call's ops run every step,
        scaffold_fn called. ``host_of_replicas``: one core's graph of that many
        (discovery's on replicas): metric_fn called as the host called it, on
        the tensors concatenated across them (runtime/tf1/tpu_slices.py)."""
        eval_metric_ops = None
        if self.eval_metrics:
            fn, tensors = self.eval_metrics
            if host_of_replicas is not None:
                tensors = tpu_slices.host_inputs(tensors, host_of_replicas)
            eval_metric_ops = call_host_fn((fn, tensors))
        hooks = host_call_hooks(self.host_call)
        scaffold = self.scaffold_fn() if self.scaffold_fn else None
        return EstimatorSpec(
            mode=self.mode,
            predictions=self.predictions,
            loss=self.loss,
            train_op=self.train_op,
            eval_metric_ops=eval_metric_ops,
            export_outputs=self.export_outputs,
            scaffold=scaffold,
            training_hooks=self.training_hooks + hooks,
            evaluation_hooks=self.evaluation_hooks + hooks,
            prediction_hooks=self.prediction_hooks + hooks,
        )


def validate_host_calls(host_calls: dict, *, spec_name: str = "TPUEstimatorSpec") -> None:
    """``(fn, tensors)`` pairs, checked as TPUEstimator's ``_OutfeedHostCall.validate``."""
    for name, host_call in host_calls.items():
        if host_call is None:
            continue
        if not isinstance(host_call, (tuple, list)):
            raise ValueError(f"{name} should be tuple or list")
        if len(host_call) != 2:
            raise ValueError(f"{name} should have two elements.")
        if not callable(host_call[0]):
            raise TypeError(f"{name}[0] should be callable.")
        if not isinstance(host_call[1], (tuple, list, dict)):
            raise ValueError(f"{name}[1] should be tuple or list, or dict.")
        if isinstance(host_call[1], (tuple, list)):
            has_varargs = inspect.getfullargspec(host_call[0]).varargs is not None
            if not has_varargs and len(host_call[1]) != len(fn_args(host_call[0])):
                raise RuntimeError(
                    f"In {spec_name}.{name}, length of tensors {len(host_call[1])} does "
                    f"not match method args of the function, which takes {len(fn_args(host_call[0]))}."
                )


def device_spec(spec, outfeed: HostCallOutfeed | None, *, num_replicas: int) -> EstimatorSpec:
    """A replica's part of model_fn's spec on TPU (TPUEstimator's TPU path).

    A TPUEstimatorSpec's host calls and scaffold_fn go to the step's
    ``outfeed``, which runs them on the host; without an outfeed (the discovery
    graph, one core's of ``num_replicas``) the host calls are called directly,
    in the same order the host calls them. A plain EstimatorSpec is checked as
    TPUEstimator did.
    """
    if not isinstance(spec, TPUEstimatorSpec):
        return _verified_plain_spec(spec)
    if outfeed is None:
        return spec.as_estimator_spec(host_of_replicas=num_replicas)
    outfeed.enqueue(
        eval_metrics=spec.eval_metrics, host_call=spec.host_call, scaffold_fn=spec.scaffold_fn
    )
    return EstimatorSpec(
        mode=spec.mode,
        predictions=spec.predictions,
        loss=spec.loss,
        train_op=spec.train_op,
        export_outputs=spec.export_outputs,
        training_hooks=spec.training_hooks,
        evaluation_hooks=spec.evaluation_hooks,
        prediction_hooks=spec.prediction_hooks,
    )


def _verified_plain_spec(spec: EstimatorSpec) -> EstimatorSpec:
    if spec.mode == ModeKeys.EVAL:
        raise RuntimeError(
            f"estimator_spec used by TPU evaluation must have type`TPUEstimatorSpec`. "
            f"Got {type(spec)}"
        )
    message = "{} returned by EstimatorSpec is not supported in TPUEstimator."
    if spec.training_chief_hooks:
        raise ValueError(
            message.format("training_chief_hooks")
            + "If you want to pass training hooks, please pass via training_hooks."
        )
    if spec.scaffold.init_fn is not None or spec.scaffold.saver is not None:
        log.warning(
            "EstimatorSpec.Scaffold is ignored by TPU train/eval. Please use TPUEstimatorSpec."
        )
    return spec


def host_call_hooks(host_call) -> tuple:
    """The hook that runs a ``host_call``'s ops with every step (none without one)."""
    if host_call is None:
        return ()
    return (HostCallHook(call_host_fn(host_call)),)


class HostCallHook(InGraphHook):
    """TPUEstimator's CPU ``_OutfeedHostCallHook``: host_call's ops run with every
    step, which in a traced step they do by themselves."""

    def __init__(self, outputs) -> None:
        self.outputs = outputs
