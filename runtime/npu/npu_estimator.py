"""``NPUEstimator`` and ``NPUEstimatorSpec`` (``npu_bridge.estimator.npu.npu_estimator``).

An NPUEstimatorSpec is an EstimatorSpec plus ``host_call=(fn, tensors)``,
validated like TPUEstimator's host calls and run on the host with every step.
Unlike TPU replicas, NPU devices each ran their own process (HCCL), so the
tensors are not concatenated across devices.

Ascend's TF 2 adapter (``npu_device``) supports TensorFlow 2.6 only. Where it is
importable it is opened and used; where it cannot work with this TensorFlow a
clear error says so; where it is absent the model runs on CPU/GPU with a
one-line warning.
"""

from __future__ import annotations

import importlib
import logging

from estimator_revival.calls.model_fn_call import ModelFnCaller, verify_model_fn_args
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.engine.estimator import Estimator
from estimator_revival.engine.run_config import RunConfig
from estimator_revival.estimator.tpu.tpu_estimator_spec import host_call_hooks, validate_host_calls
from estimator_revival.npu.npu_config import NPURunConfig

log = logging.getLogger("tensorflow")


class NPUEstimatorSpec(EstimatorSpec):
    """EstimatorSpec with an Ascend ``host_call``."""

    def __new__(cls, mode, *args, host_call=None, **kwargs):
        validate_host_calls({"host_call": host_call}, spec_name="NPUEstimatorSpec")
        spec = super().__new__(cls, mode, *args, **kwargs)
        spec._host_call = host_call
        return spec

    @property
    def host_call(self):
        return self._host_call

    def as_estimator_spec(self) -> EstimatorSpec:
        """The plain EstimatorSpec, host_call's ops run with every step."""
        hooks = host_call_hooks(self._host_call)
        fields = self._asdict()
        for name in ("training_hooks", "evaluation_hooks", "prediction_hooks"):
            fields[name] = tuple(fields[name]) + hooks
        return EstimatorSpec(**fields)


class NPUEstimator(Estimator):
    """Runs an Ascend ``model_fn`` (``npu_bridge``'s NPUEstimator)."""

    def __init__(
        self,
        model_fn,
        model_dir=None,
        config=None,
        params=None,
        job_start_file="",
        warm_start_from=None,
    ):
        if config is not None and not isinstance(config, RunConfig):
            raise ValueError(
                f"config must be an instance of `NPURunConfig` or `RunConfig`, but provided {config}."
            )
        verify_model_fn_args(model_fn, params)
        open_npu_device()
        self._npu_model_fn = model_fn
        super().__init__(
            model_fn=self._model_fn_with_host_call,
            model_dir=model_dir,
            config=config if config is not None else NPURunConfig(),
            params=params or {},
            warm_start_from=warm_start_from,
        )

    def _model_fn_with_host_call(self, features, labels, mode, params, config):
        call = ModelFnCaller(self._npu_model_fn, params=params, config=config)
        spec = call(features, labels, mode)
        if isinstance(spec, NPUEstimatorSpec):
            return spec.as_estimator_spec()
        return spec


def open_npu_device() -> None:
    """Opens Ascend's ``npu_device`` as the default device where it is installed."""
    try:
        npu_device = importlib.import_module("npu_device")
    except ImportError:
        log.warning(
            "NPUEstimator: Ascend's npu_device package is not installed; running on CPU/GPU."
        )
        return
    try:
        npu_device.open().as_default()
    except Exception as error:
        raise RuntimeError(
            "NPUEstimator: Ascend's npu_device is installed but could not be opened with this "
            "TensorFlow. Ascend's TF 2 adapter supports TensorFlow 2.6 only, and the runtime "
            "needs TensorFlow 2.16 or newer; uninstall npu_device to run on CPU/GPU, or run "
            f"the legacy program on Ascend's TensorFlow 1.15 stack. ({error})"
        ) from error
