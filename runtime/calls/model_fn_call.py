"""Calling the user's ``input_fn`` and ``model_fn`` with the arguments they declare.

Argument rules and error texts follow ``tensorflow_estimator`` 2.15
(docs/estimator_contract.md §1.1).
"""

from __future__ import annotations

import copy
import logging

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_revival.calls.spec import EstimatorSpec

log = logging.getLogger("tensorflow")

VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "config", "self"}


def fn_args(fn) -> tuple[str, ...]:
    """Argument names of ``fn``, seeing through ``functools.partial`` and methods."""
    return tuple(function_utils.fn_args(fn))


def verify_model_fn_args(model_fn, params) -> None:
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) does not include params argument, "
            f"but params ({params}) is passed to Estimator."
        )
    if params is None and "params" in args:
        log.warning(
            "Estimator's model_fn (%s) includes params argument, but params are not "
            "passed to Estimator.",
            model_fn,
        )
    unexpected = list(args - VALID_MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {unexpected}")


class ModelFnCaller:
    """Calls one model_fn the way Estimator did: declared args only, params deep-copied."""

    def __init__(self, model_fn, *, params: dict, config) -> None:
        self._model_fn = model_fn
        self._args = fn_args(model_fn)
        self._params = params
        self._config = config

    def __call__(self, features, labels, mode: str) -> EstimatorSpec:
        kwargs = {}
        if "labels" in self._args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in self._args:
            kwargs["mode"] = mode
        if "params" in self._args:
            kwargs["params"] = copy.deepcopy(self._params)
        if "config" in self._args:
            kwargs["config"] = self._config
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec


def call_input_fn(input_fn, mode: str, *, params: dict, config, input_context=None):
    """Calls ``input_fn`` on the CPU with the optional args it declares."""
    args = fn_args(input_fn)
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = copy.deepcopy(params)
    if "config" in args:
        kwargs["config"] = config
    if input_context is not None and "input_context" in args:
        kwargs["input_context"] = input_context
    with tf.device("/cpu:0"):
        return input_fn(**kwargs)


def split_features_labels(result) -> tuple:
    """``(features, labels)`` from one input element (labels may be None)."""
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1]
    return result, None
