"""``TPUEstimator`` on the runtime.

On replicas (a TPUStrategy, several GPUs, or a strategy given as
``RunConfig(train_distribute=...)``) with ``use_tpu=True`` it runs as TPUEstimator
ran on a TPU: model_fn gets the per-shard ``params["batch_size"]``,
``params["use_tpu"]=True`` and ``params["context"]``; ``eval_metrics`` and
``host_call`` run on the host over tensors concatenated across replicas; the
global step jumps by ``iterations_per_loop`` per run; the reported loss is
replica 0's.

Elsewhere (no replicas, or ``use_tpu=False``) it runs as TPUEstimator ran on
CPU: ``params["batch_size"]`` is the global batch size for input_fn and
model_fn, ``params["use_tpu"]`` is False, and a ``TPUEstimatorSpec`` runs
through ``as_estimator_spec()`` (metric_fn called directly, host_call with
every step, scaffold_fn called once per graph).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import logging

import tensorflow as tf

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import (
    ModelFnCaller,
    call_input_fn,
    fn_args,
    verify_model_fn_args,
)
from estimator_revival.distribute import strategy_selection
from estimator_revival.distribute.host_calls import HostCallOutfeed
from estimator_revival.distribute.replication import Replication
from estimator_revival.engine.estimator import Estimator
from estimator_revival.estimator.tpu.cross_shard_optimizer import one_replica_of
from estimator_revival.estimator.tpu.tpu_config import (
    RunConfig,
    check_positive_integer,
    parse_iterations_per_loop,
)
from estimator_revival.estimator.tpu.tpu_context import ReplicaLayout, TPUContext
from estimator_revival.estimator.tpu.tpu_estimator_spec import TPUEstimatorSpec, device_spec

log = logging.getLogger("tensorflow")

RESERVED_PARAMS_KEYS = ["batch_size", "context"]


class ExportSavedModelApiVersion(enum.Enum):
    """TPUEstimator's ``export_saved_model_api_version``: V1 exported a TPU graph
    built by model_fn on TPU, V2 one where model_fn calls
    ``tpu.rewrite`` itself. The runtime exports the CPU graph either way."""

    V1 = 1
    V2 = 2


class TPUEstimator(Estimator):
    """Runs a TPU ``model_fn`` (``tf.compat.v1.estimator.tpu.TPUEstimator``)."""

    runs_host_calls_on_host = True

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
                if value is not None:
                    check_positive_integer(value, name)
        if embedding_config_spec is not None:
            raise NotImplementedError(
                "TPUEstimator(embedding_config_spec=...) (TPU embeddings) is not supported by "
                "the runtime (docs/runtime.md, 'What the runtime refuses')."
            )
        if not isinstance(
            export_saved_model_api_version, ExportSavedModelApiVersion
        ) and export_saved_model_api_version not in (1, 2):
            raise ValueError(
                "export_saved_model_api_version should be 1 or 2; got "
                f"{export_saved_model_api_version}."
            )
        verify_model_fn_args(model_fn, params)
        parse_iterations_per_loop(config.tpu_config.iterations_per_loop)
        if config.tpu_config.experimental_host_call_every_n_steps != 1:
            log.warning(
                "TPUConfig(experimental_host_call_every_n_steps=%s): the runtime runs "
                "host_call on every step.",
                config.tpu_config.experimental_host_call_every_n_steps,
            )
        self._tpu_model_fn = model_fn
        self._batch_sizes = {
            ModeKeys.TRAIN: train_batch_size,
            ModeKeys.EVAL: eval_batch_size,
            ModeKeys.PREDICT: predict_batch_size,
        }
        self.use_tpu = use_tpu
        self._eval_on_tpu = eval_on_tpu
        self._export_to_cpu = export_to_cpu
        self._export_to_tpu = export_to_tpu
        super().__init__(
            model_fn=self._run_model_fn,
            model_dir=model_dir,
            config=config,
            params=params or {},
            warm_start_from=warm_start_from,
        )
        if use_tpu and not self._on_replicas(ModeKeys.TRAIN):
            log.warning(
                "TPUEstimator(use_tpu=True): no TPU, no GPUs and no train_distribute "
                "strategy; running on one device with TPUEstimator's CPU semantics "
                "(global batch size in params)."
            )

    # ------------------------------------------------------------- placement
    def _replications_for(self, config) -> dict[str, Replication]:
        """With use_tpu: the TPU (or GPUs, or the user's strategy) for training,
        prediction and, with eval_on_tpu, evaluation."""
        if not self.use_tpu:
            return super()._replications_for(config)
        strategy = strategy_selection.training_strategy(config, replicated_model_fn=True)
        eval_strategy = config.eval_distribute or (strategy if self._eval_on_tpu else None)
        return {
            ModeKeys.TRAIN: Replication(strategy),
            ModeKeys.EVAL: Replication(eval_strategy),
            ModeKeys.PREDICT: Replication(strategy),
        }

    def _on_replicas(self, mode: str) -> bool:
        """Whether ``mode`` runs with TPUEstimator's TPU semantics."""
        return self.use_tpu and self._replications[mode].replicated

    def _on_legacy_mirrored_strategy(self, mode: str) -> bool:
        return not self._on_replicas(mode) and super()._on_legacy_mirrored_strategy(mode)

    def _metric_variable_strategy(self) -> tf.distribute.Strategy:
        if self._on_replicas(ModeKeys.EVAL):  # metric_fn runs on the host
            return tf.distribute.get_strategy()
        return super()._metric_variable_strategy()

    def _outfeed_for(self, mode: str) -> HostCallOutfeed | None:
        if not self._on_replicas(mode):
            return None
        return HostCallOutfeed(self._replications[mode])

    def _steps_per_run(self) -> int | None:
        if not self._on_replicas(ModeKeys.TRAIN):
            return None
        count, unit = parse_iterations_per_loop(self._config.tpu_config.iterations_per_loop)
        return count if unit == "count" else None

    def _layout(self, mode: str) -> ReplicaLayout:
        global_batch_size = self._batch_sizes[mode]
        if global_batch_size is None:
            raise ValueError(f"TPUEstimator on replicas needs `{mode}_batch_size`; got None.")
        replication = self._replications[mode]
        return ReplicaLayout(
            mode=mode,
            global_batch_size=global_batch_size,
            num_replicas=replication.num_replicas,
            num_hosts=replication.input_context().num_input_pipelines,
            per_host_input=self._config.tpu_config.per_host_input_for_training,
        )

    # ------------------------------------------------------------ public API
    def _steps_checked_as_on_tpu(self, mode: str) -> bool:
        """Whether TPUEstimator checked ``steps`` as for a TPU: it did with use_tpu
        (evaluation only with eval_on_tpu), whatever device then ran the steps."""
        return self.use_tpu and (mode != ModeKeys.EVAL or self._eval_on_tpu)

    def _check_train_steps(self, steps, max_steps) -> None:
        if not self._steps_checked_as_on_tpu(ModeKeys.TRAIN):
            return
        if steps is None and max_steps is None:
            raise ValueError(
                "For TPU training, one of `steps` or `max_steps` must be set. "
                "Cannot be both `None`."
            )
        if steps is not None:
            check_positive_integer(steps, "Train steps")
        if max_steps is not None:
            check_positive_integer(max_steps, "Train max_steps")

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        if self._steps_checked_as_on_tpu(ModeKeys.EVAL):
            if steps is None:
                raise ValueError("Evaluate `steps` must be set on TPU. Cannot be `None`.")
            check_positive_integer(steps, "Eval steps")
        return super().evaluate(input_fn, steps, hooks, checkpoint_path, name)

    # -------------------------------------------------------------- model_fn
    def _run_model_fn(
        self, features, labels, mode, config, params, *, exporting=False, outfeed=None
    ):
        """The user's model_fn, called as TPUEstimator called it (for export
        without ``params["batch_size"]``: serving batches have any size).

        ``outfeed``: the step's host-call outfeed on replicas; without one a
        TPUEstimatorSpec runs as on CPU (also when discovery builds the graph).
        """
        args = fn_args(self._tpu_model_fn)
        if "params" not in args:
            raise ValueError(
                f"model_fn ({self._tpu_model_fn}) does not include params argument, required by "
                "TPUEstimator to pass batch size as params['batch_size']"
            )
        params = dict(params)
        if exporting:
            params["use_tpu"] = False
        else:
            params.update(self._model_fn_params(mode))
        kwargs = {"params": params}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = config
        num_replicas = self._replications[mode].num_replicas
        # discovery on replicas builds one core's graph, as a TPU compiled it
        discovering_a_core = not exporting and outfeed is None and self._on_replicas(mode)
        with one_replica_of(num_replicas) if discovering_a_core else contextlib.nullcontext():
            spec = self._tpu_model_fn(features=features, **kwargs)
        if not exporting and (self._on_replicas(mode) or outfeed is not None):
            return device_spec(spec, outfeed, num_replicas=num_replicas)
        if isinstance(spec, TPUEstimatorSpec):
            return spec.as_estimator_spec()
        return spec

    def _model_fn_params(self, mode: str) -> dict:
        if not self._on_replicas(mode):
            return {"use_tpu": False, **self._global_batch_size_param(mode)}
        layout = self._layout(mode)
        return {
            "batch_size": layout.batch_size_for_model_fn,
            "use_tpu": True,
            "context": TPUContext(layout),
        }

    def _global_batch_size_param(self, mode: str) -> dict:
        """CPU semantics: the mode's global batch size, when one was given."""
        batch_size = self._batch_sizes[mode]
        return {} if batch_size is None else {"batch_size": batch_size}

    def _caller(self, outfeed: HostCallOutfeed | None = None) -> ModelFnCaller:
        return ModelFnCaller(
            functools.partial(self._run_model_fn, outfeed=outfeed),
            params=self._params,
            config=self.config,
        )

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
            functools.partial(self._run_model_fn, exporting=True),
            params=self._params,
            config=self.config,
        )

    # -------------------------------------------------------------- input_fn
    def _call_input_fn(self, input_fn, mode: str, input_context=None):
        if "params" not in fn_args(input_fn):
            raise ValueError(
                f"input_fn ({input_fn}) does not include params argument, required by "
                'TPUEstimator to pass batch size as params["batch_size"]'
            )
        params = dict(self._params)
        if not self._on_replicas(mode):
            params.update(self._global_batch_size_param(mode))
            return call_input_fn(
                input_fn, mode, params=params, config=self._config, input_context=input_context
            )
        layout = self._layout(mode)
        params["batch_size"] = layout.batch_size_for_input_fn
        host_id = input_context.input_pipeline_id if input_context is not None else 0
        params["context"] = TPUContext(layout, host_id=host_id)
        result = call_input_fn(
            input_fn, mode, params=params, config=self._config, input_context=input_context
        )
        if mode == ModeKeys.PREDICT:
            result = _padded_batches(result, layout.batch_size_for_input_fn)
        if layout.input_per_replica:
            return result
        return _split_host_batches(result, layout.batch_size_for_model_fn)


def _padded_batches(dataset, batch_size: int) -> tf.data.Dataset:
    """``(features, padding_mask)`` batches of exactly ``batch_size`` rows: the
    last partial batch padded with zeros, as TPUEstimator padded it (the mask
    marks the real rows, whose predictions alone are returned)."""
    if not isinstance(dataset, tf.data.Dataset):
        raise ValueError("input_fn for TPU prediction must return a tf.data.Dataset.")

    def pad(features, *unused_labels):
        rows = tf.shape(tf.nest.flatten(features)[0])[0]

        def pad_tensor(tensor):
            paddings = [[0, batch_size - rows]] + [[0, 0]] * (tensor.shape.rank - 1)
            padded = tf.pad(tensor, paddings)
            return tf.ensure_shape(padded, [batch_size, *tensor.shape[1:]])

        return tf.nest.map_structure(pad_tensor, features), tf.range(batch_size) < rows

    return dataset.map(pad)


def _split_host_batches(result, per_replica: int) -> tf.data.Dataset:
    """PER_HOST_V1: each host batch split into consecutive per-replica batches
    (replica i of a step gets rows ``[i * per_replica, (i + 1) * per_replica)``)."""
    if not isinstance(result, tf.data.Dataset):
        result = tf.data.Dataset.from_tensors(result).repeat()
    return result.rebatch(per_replica, drop_remainder=True)
