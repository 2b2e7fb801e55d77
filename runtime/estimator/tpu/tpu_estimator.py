"""``TPUEstimator`` on the runtime.

Where there is no TPU it runs as TPUEstimator ran with ``use_tpu=False``:
``params["batch_size"]`` is the global batch size for input_fn and model_fn,
``params["use_tpu"]`` is False, and a ``TPUEstimatorSpec`` runs through
``as_estimator_spec()`` (metric_fn called directly, host_call with every step,
scaffold_fn called once per graph).
"""

from __future__ import annotations

import functools
import logging

from runtime.engine import Estimator
from runtime.estimator.tpu.tpu_config import RunConfig, parse_iterations_per_loop
from runtime.estimator.tpu.tpu_estimator_spec import TPUEstimatorSpec
from runtime.mode_keys import ModeKeys
from runtime.model_fn_call import ModelFnCaller, call_input_fn, fn_args, verify_model_fn_args

log = logging.getLogger("runtime")

RESERVED_PARAMS_KEYS = ["batch_size", "context"]


class TPUEstimator(Estimator):
    """Runs a TPU ``model_fn`` (``tf.compat.v1.estimator.tpu.TPUEstimator``)."""

    def __init__(
        self,
        model_fn=None,
        model_dir=None,
        config=None,
        params=None,
        use_tpu=True,
        train_batch_size=None,
        eval_batch_size=None,
        predict_batch_size=None,
        batch_axis=None,
        eval_on_tpu=True,
        export_to_tpu=True,
        export_to_cpu=True,
        warm_start_from=None,
        embedding_config_spec=None,
        export_saved_model_api_version=1,
    ):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(key in params for key in RESERVED_PARAMS_KEYS):
            raise ValueError(
                f"{RESERVED_PARAMS_KEYS} are reserved keys but existed in params {params}."
            )
        if use_tpu:
            if train_batch_size is None:
                raise ValueError("`train_batch_size` cannot be `None`")
            for name, value in (
                ("train_batch_size", train_batch_size),
                ("eval_batch_size", eval_batch_size),
                ("predict_batch_size", predict_batch_size),
            ):
                if value is not None and (not isinstance(value, int) or value <= 0):
                    raise ValueError(f"{name} must be a positive integer; got {value}.")
        if embedding_config_spec is not None:
            raise NotImplementedError(
                "TPUEstimator(embedding_config_spec=...) (TPU embeddings) is not supported by "
                "the runtime; use tf.compat.v1.nn.embedding_lookup on variables in model_fn."
            )
        if export_saved_model_api_version not in (1, 2):
            raise ValueError(
                "export_saved_model_api_version should be 1 or 2; got "
                f"{export_saved_model_api_version}."
            )
        verify_model_fn_args(model_fn, params)
        parse_iterations_per_loop(config.tpu_config.iterations_per_loop)
        self._tpu_model_fn = model_fn
        self._batch_sizes = {
            ModeKeys.TRAIN: train_batch_size,
            ModeKeys.EVAL: eval_batch_size,
            ModeKeys.PREDICT: predict_batch_size,
        }
        self.use_tpu = use_tpu
        self._export_to_cpu = export_to_cpu
        self._export_to_tpu = export_to_tpu
        if use_tpu:
            log.warning(
                "TPUEstimator(use_tpu=True): no TPU here; running on CPU/GPU with "
                "TPUEstimator's CPU semantics (global batch size in params)."
            )
        super().__init__(
            model_fn=self._model_fn_on_cpu,
            model_dir=model_dir,
            config=config,
            params=params or {},
            warm_start_from=warm_start_from,
        )

    def _model_fn_on_cpu(self, features, labels, mode, config, params, *, exporting=False):
        """The user's model_fn, called as TPUEstimator called it on CPU (for export
        without ``params["batch_size"]``: serving batches have any size)."""
        args = fn_args(self._tpu_model_fn)
        if "params" not in args:
            raise ValueError(
                f"model_fn ({self._tpu_model_fn}) does not include params argument, required by "
                "TPUEstimator to pass batch size as params['batch_size']"
            )
        params = dict(params) if exporting else self._with_batch_size(params, mode)
        params["use_tpu"] = False
        kwargs = {"params": params}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = config
        spec = self._tpu_model_fn(features=features, **kwargs)
        if isinstance(spec, TPUEstimatorSpec):
            return spec.as_estimator_spec()
        return spec

    def _export_caller(self) -> ModelFnCaller:
        if not self._export_to_cpu and not self._export_to_tpu:
            raise ValueError("One of export_to_cpu and export_to_tpu must be true.")
        if not self._export_to_cpu:
            raise ValueError(
                "TPUEstimator(export_to_cpu=False) exports only the TPU inference graph "
                "(tags serve, tpu), which needs a TPU to build; set export_to_cpu=True."
            )
        if self._export_to_tpu:
            log.warning(
                "TPUEstimator(export_to_tpu=True): the runtime exports the CPU serving "
                "graph (tag serve) only, not the TPU inference graph (tags serve, tpu)."
            )
        return ModelFnCaller(
            functools.partial(self._model_fn_on_cpu, exporting=True),
            params=self._params,
            config=self.config,
        )

    def _call_input_fn(self, input_fn, mode: str, input_context=None):
        if "params" not in fn_args(input_fn):
            raise ValueError(
                f"input_fn ({input_fn}) does not include params argument, required by "
                'TPUEstimator to pass batch size as params["batch_size"]'
            )
        params = self._with_batch_size(self._params, mode)
        return call_input_fn(
            input_fn, mode, params=params, config=self._config, input_context=input_context
        )

    def _with_batch_size(self, params: dict, mode: str) -> dict:
        params = dict(params)
        if self._batch_sizes[mode] is not None:
            params["batch_size"] = self._batch_sizes[mode]
        return params
