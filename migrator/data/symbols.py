"""What the migrator knows about names: where the legacy Estimator API lived, what
the runtime provides, and the TF1 renames (data generated from tf_upgrade_v2).

Canonical names are paths inside the runtime, e.g. ``estimator.EstimatorSpec``;
the runtime module for a canonical name is ``estimator_revival.<path>``.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

# The package migrated code imports the runtime from (docs/architecture.md).
PACKAGE = "estimator_revival"
# The name the runtime was imported by until 0.1.0: code migrated then is converted.
FORMER_PACKAGE = "runtime"


def runtime_module(canonical_name: str) -> str:
    """The module path of a runtime namespace (``estimator_revival.contrib.rnn``)."""
    return f"{PACKAGE}.{canonical_name}" if canonical_name else PACKAGE


# Legacy namespaces that map, member for member, onto a runtime namespace.
NAMESPACES = {
    "tensorflow.estimator": "estimator",
    "tensorflow.compat.v1.estimator": "estimator",
    "tensorflow.compat.v2.estimator": "estimator",
    "tensorflow_estimator.estimator": "estimator",
    "tensorflow_estimator.compat.v1.estimator": "estimator",
    "tensorflow.estimator.tpu": "estimator.tpu",
    "tensorflow.compat.v1.estimator.tpu": "estimator.tpu",
    "tensorflow.contrib.tpu": "estimator.tpu",
    "tensorflow.contrib.tpu.python.tpu.tpu_estimator": "estimator.tpu",
    "tensorflow.contrib.tpu.python.tpu.tpu_config": "estimator.tpu",
    # TF 1.13-1.15 re-exported tensorflow-estimator's TPU modules here too
    "tensorflow.python.tpu.tpu_estimator": "estimator.tpu",
    "tensorflow.python.tpu.tpu_config": "estimator.tpu",
    "npu_bridge.estimator.npu.npu_estimator": "npu",
    "npu_bridge.estimator.npu.npu_config": "npu",
    "npu_bridge.npu_init": "npu",
    "npu_bridge.estimator.npu.npu_optimizer": "npu",
    "npu_bridge.estimator.npu.npu_loss_scale_optimizer": "npu",
    "npu_bridge.estimator.npu.npu_loss_scale_manager": "npu",
    "npu_bridge.estimator.npu_ops": "npu.npu_ops",
    "npu_bridge.hccl.hccl_ops": "npu.hccl_ops",
    "tensorflow.contrib.mixed_precision": "contrib.mixed_precision",
    "tensorflow.contrib.summary": "contrib.summary",
    "tensorflow.contrib.lookup": "contrib.lookup",
    "tensorflow.contrib.crf": "contrib.crf",
    "tensorflow.contrib.predictor": "contrib.predictor",
    "tensorflow.contrib.cudnn_rnn": "contrib.cudnn_rnn",
    "tensorflow.contrib.image": "contrib.image",
    "tensorflow.contrib.learn.learn_runner": "contrib.learn.learn_runner",
    "tensorflow.contrib.learn.utils.saved_model_export_utils": (
        "contrib.learn.utils.saved_model_export_utils"
    ),
}

# Private modules (``tensorflow.python.estimator.model_fn``,
# ``tensorflow_estimator.python.estimator.export.export_output``): each stands for
# the public namespace its symbols were exported to (the heads' modules under
# ``head``: ``tf.estimator``). One module level below the (sub)package, so that a
# lowercase function in it is not taken for a module.
PRIVATE_MODULE = re.compile(
    r"^(?:tensorflow|tensorflow_estimator)\.python\.estimator"
    r"(?:(?P<sub>\.export|\.inputs|\.tpu|\.canned)|\.head)?(?:\.[a-z_]+)?$"
)

# Canned estimators TensorFlow shipped in two flavours: TF 2's (tf.estimator.X of TF
# 2: Keras optimizers, v2 feature columns, losses averaged over the batch) and TF 1's
# (tf.compat.v1.estimator.X, and tf.estimator.X in TF 1 code: v1 optimizers, summed
# losses), which trains differently: the runtime has TF 1's as estimator.v1.X.
TWO_FLAVOURS = frozenset(
    {
        "estimator.BaselineClassifier",
        "estimator.BaselineEstimator",
        "estimator.BaselineRegressor",
        "estimator.DNNClassifier",
        "estimator.DNNEstimator",
        "estimator.DNNLinearCombinedClassifier",
        "estimator.DNNLinearCombinedEstimator",
        "estimator.DNNLinearCombinedRegressor",
        "estimator.DNNRegressor",
        "estimator.LinearClassifier",
        "estimator.LinearEstimator",
        "estimator.LinearRegressor",
    }
)
_TF1_FLAVOUR_NAMESPACES = (
    "tensorflow.compat.v1.estimator.",
    "tensorflow_estimator.compat.v1.estimator.",
)


def tf1_flavour(qualified_name: str) -> bool:
    """Whether a name is spelled in TF 1's Estimator namespace (``tf.compat.v1.estimator``)."""
    return qualified_name.startswith(_TF1_FLAVOUR_NAMESPACES)


def tf1_flavour_of(canonical_name: str) -> str:
    """``estimator.v1.X``, the runtime's TF 1 flavour of the canned estimator ``estimator.X``."""
    return "estimator.v1." + canonical_name.removeprefix("estimator.")


def is_tf1_flavour(canonical_name: str) -> bool:
    return canonical_name.startswith("estimator.v1.")


# The tf.contrib.estimator names the runtime has (runtime/contrib/estimator.py).
# tf.contrib.lookup's names (TF's own lookup_ops, and contrib's two wrappers)
_CONTRIB_LOOKUP = (
    "FastHashSpec",
    "HasherSpec",
    "HashTable",
    "IdTableWithHashBuckets",
    "KeyValueTensorInitializer",
    "MutableDenseHashTable",
    "MutableHashTable",
    "StrongHashSpec",
    "TextFileIndex",
    "TextFileInitializer",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
)
# tf.contrib.crf, ported whole
_CONTRIB_CRF = (
    "CrfDecodeBackwardRnnCell",
    "CrfDecodeForwardRnnCell",
    "CrfForwardRnnCell",
    "crf_binary_score",
    "crf_decode",
    "crf_log_likelihood",
    "crf_log_norm",
    "crf_multitag_sequence_score",
    "crf_sequence_score",
    "crf_unary_score",
    "viterbi_decode",
)
# tf.contrib.image's projective transforms (its other functions are reported)
_CONTRIB_IMAGE = (
    "transform",
    "rotate",
    "translate",
    "angles_to_projective_transforms",
    "translations_to_projective_transforms",
    "compose_transforms",
    "flat_transforms_to_matrices",
    "matrices_to_flat_transforms",
)

# tf.contrib.opt's names the runtime ports
_CONTRIB_OPT = (
    "AdamWOptimizer",
    "DecoupledWeightDecayExtension",
    "LARSOptimizer",
    "LazyAdamOptimizer",
    "MomentumWOptimizer",
    "extend_with_decoupled_weight_decay",
)
# tf.contrib.rnn's names the runtime ports (the core cells go to tf.compat.v1.nn.rnn_cell)
_CONTRIB_RNN = (
    "FusedRNNCellAdaptor",
    "GRUBlockCell",
    "GRUBlockCellV2",
    "LSTMBlockCell",
    "LSTMBlockFusedCell",
    "LayerNormBasicLSTMCell",
    "TimeReversedFusedRNN",
    "stack_bidirectional_dynamic_rnn",
)

_EARLY_STOPPING = (
    "make_early_stopping_hook",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
)
_CONTRIB_ESTIMATOR = (
    *_EARLY_STOPPING,
    "clip_gradients_by_norm",
    "binary_classification_head",
    "multi_class_head",
    "multi_label_head",
    "regression_head",
    "poisson_regression_head",
    "logistic_regression_head",
    "replicate_model_fn",
    "TowerOptimizer",
)

# Everything the runtime exports, by canonical name. tests/migrator/test_migrator_symbols.py
# checks each one really exists in the runtime.
RUNTIME_SYMBOLS = frozenset(
    {
        "estimator",
        "estimator.BestExporter",
        "estimator.BinaryClassHead",
        "estimator.canned",
        "estimator.canned.MetricKeys",
        "estimator.canned.PredictionKeys",
        "estimator.canned._Head",
        "estimator.canned._binary_logistic_head_with_sigmoid_cross_entropy_loss",
        "estimator.canned._binary_logistic_or_multi_class_head",
        "estimator.canned._multi_class_head_with_softmax_cross_entropy_loss",
        "estimator.canned._regression_head",
        "estimator.canned.get_optimizer_instance",
        "estimator.CheckpointSaverHook",
        "estimator.CheckpointSaverListener",
        "estimator.Estimator",
        "estimator.EstimatorSpec",
        "estimator.EstimatorV2",
        "estimator._load_global_step_from_checkpoint_dir",
        "estimator.EvalSpec",
        "estimator.estimator_export",
        "estimator.Exporter",
        "estimator.FeedFnHook",
        "estimator.FinalExporter",
        "estimator.FinalOpsHook",
        "estimator.GlobalStepWaiterHook",
        "estimator.Head",
        "estimator.LatestExporter",
        "estimator.LoggingTensorHook",
        "estimator.LogisticRegressionHead",
        "estimator.ModeKeys",
        "estimator.MultiClassHead",
        "estimator.MultiHead",
        "estimator.MultiLabelHead",
        "estimator.NanLossDuringTrainingError",
        "estimator.NanTensorHook",
        "estimator.PoissonRegressionHead",
        "estimator.ProfilerHook",
        "estimator.RegressionHead",
        "estimator.RunConfig",
        "estimator.SessionRunArgs",
        "estimator.SessionRunContext",
        "estimator.SessionRunHook",
        "estimator.SessionRunValues",
        "estimator.StepCounterHook",
        "estimator.StopAtStepHook",
        "estimator.SummarySaverHook",
        "estimator.TrainSpec",
        "estimator.VocabInfo",
        "estimator.WarmStartSettings",
        "estimator.add_metrics",
        "estimator.experimental",
        "estimator.experimental.LinearSDCA",
        *(f"estimator.experimental.{name}" for name in _EARLY_STOPPING),
        "estimator.experimental.make_stop_at_checkpoint_step_hook",
        "estimator.experimental.InMemoryEvaluatorHook",
        "estimator.experimental.build_raw_supervised_input_receiver_fn",
        # tensorflow-estimator's private export module's (export/export.py)
        "estimator.export.SupervisedInputReceiver",
        "estimator.export.UnsupervisedInputReceiver",
        "estimator.export.build_raw_supervised_input_receiver_fn",
        # defined in the private tpu_estimator module, which maps to estimator.tpu
        "estimator.tpu.ExportSavedModelApiVersion",
        "estimator.train_and_evaluate",
        "estimator.v1",
        *TWO_FLAVOURS,  # the canned estimators, in both flavours
        *(tf1_flavour_of(name) for name in TWO_FLAVOURS),
        "estimator.export",
        "estimator.export.ClassificationOutput",
        "estimator.export.EvalOutput",
        "estimator.export.ExportOutput",
        "estimator.export.PredictOutput",
        "estimator.export.RegressionOutput",
        "estimator.export.ServingInputReceiver",
        "estimator.export.TensorServingInputReceiver",
        "estimator.export.TrainOutput",
        "estimator.export.build_parsing_serving_input_receiver_fn",
        "estimator.export.build_raw_serving_input_receiver_fn",
        "estimator.inputs",
        "estimator.tpu",
        "estimator.tpu.CrossShardOptimizer",
        "estimator.tpu.InputPipelineConfig",
        "estimator.tpu.RunConfig",
        "estimator.tpu.TPUConfig",
        "estimator.tpu.TPUEstimator",
        "estimator.tpu.TPUEstimatorSpec",
        "estimator.tpu.get_tpu_context",
        "estimator.inputs.numpy_input_fn",
        "estimator.inputs.pandas_input_fn",
        "npu",
        "npu.NPUEstimator",
        "npu.NPUEstimatorSpec",
        "npu.NPURunConfig",
        "npu.DumpConfig",
        "npu.ProfilingConfig",
        "npu.NPUDistributedOptimizer",
        "npu.NPULossScaleOptimizer",
        "npu.FixedLossScaleManager",
        "npu.ExponentialUpdateLossScaleManager",
        "npu.npu_ops",
        "npu.npu_ops.dropout",
        "npu.npu_ops.initialize_system",
        "npu.npu_ops.shutdown_system",
        "npu.allreduce",
        "npu.hccl_ops",
        "npu.hccl_ops.allgather",
        "npu.hccl_ops.allreduce",
        "estimator.tpu.AsyncCheckpointSaverHook",
        "estimator.tpu.bfloat16_scope",
        "contrib.learn",
        "contrib.learn.ModeKeys",
        "contrib.learn.Experiment",
        "contrib.learn.ExportStrategy",
        "contrib.learn.RunConfig",
        "contrib.learn.make_export_strategy",
        "contrib.learn.learn_runner",
        "contrib.learn.learn_runner.run",
        "contrib.learn.utils",
        "contrib.learn.utils.saved_model_export_utils",
        "contrib.learn.utils.saved_model_export_utils.make_export_strategy",
        "contrib.data",
        "contrib.data.batch_and_drop_remainder",
        "contrib.data.padded_batch_and_drop_remainder",
        "contrib.training",
        "contrib.training.HParams",
        "contrib.device_setter",
        "contrib.device_setter.GreedyLoadBalancingStrategy",
        "contrib.device_setter.byte_size_load_fn",
        "contrib.estimator",
        *(f"contrib.estimator.{name}" for name in _CONTRIB_ESTIMATOR),
        "contrib.mixed_precision",
        "contrib.mixed_precision.LossScaleManager",
        "contrib.mixed_precision.FixedLossScaleManager",
        "contrib.mixed_precision.ExponentialUpdateLossScaleManager",
        "contrib.mixed_precision.LossScaleOptimizer",
        "contrib.summary",
        "contrib.summary.SummaryWriter",
        "contrib.summary.all_summary_ops",
        "contrib.summary.always_record_summaries",
        "contrib.summary.audio",
        "contrib.summary.create_file_writer",
        "contrib.summary.create_summary_file_writer",
        "contrib.summary.eval_dir",
        "contrib.summary.flush",
        "contrib.summary.generic",
        "contrib.summary.graph",
        "contrib.summary.histogram",
        "contrib.summary.image",
        "contrib.summary.import_event",
        "contrib.summary.initialize",
        "contrib.summary.never_record_summaries",
        "contrib.summary.record_summaries_every_n_global_steps",
        "contrib.summary.scalar",
        "contrib.summary.should_record_summaries",
        "contrib.summary.summary_writer_initializer_op",
        "contrib.lookup",
        *(f"contrib.lookup.{name}" for name in _CONTRIB_LOOKUP),
        "contrib.crf",
        *(f"contrib.crf.{name}" for name in _CONTRIB_CRF),
        "contrib.rnn",
        *(f"contrib.rnn.{name}" for name in _CONTRIB_RNN),
        "contrib.opt",
        *(f"contrib.opt.{name}" for name in _CONTRIB_OPT),
        "contrib.distribute",
        "contrib.distribute.MirroredStrategy",
        "contrib.predictor",
        "contrib.predictor.from_saved_model",
        "contrib.cudnn_rnn",
        "contrib.cudnn_rnn.CudnnCompatibleGRUCell",
        "contrib.cudnn_rnn.CudnnCompatibleLSTMCell",
        "contrib.image",
        *(f"contrib.image.{name}" for name in _CONTRIB_IMAGE),
    }
)

# Canonical names that are modules (members are looked up inside them).
RUNTIME_MODULES = frozenset(
    {
        "estimator",
        "estimator.canned",
        "estimator.experimental",
        "estimator.export",
        "estimator.inputs",
        "estimator.tpu",
        "estimator.v1",
        "npu",
        "npu.npu_ops",
        "npu.hccl_ops",
        "contrib.learn",
        "contrib.learn.learn_runner",
        "contrib.learn.utils",
        "contrib.learn.utils.saved_model_export_utils",
        "contrib.data",
        "contrib.training",
        "contrib.estimator",
        "contrib.mixed_precision",
        "contrib.summary",
        "contrib.lookup",
        "contrib.crf",
        "contrib.rnn",
        "contrib.opt",
        "contrib.distribute",
        "contrib.device_setter",
        "contrib.predictor",
        "contrib.cudnn_rnn",
        "contrib.image",
    }
)

# TF 1 layers, which TF 2.16+ serves through Keras 3 unless tf-keras is selected.
# Names that need Keras 2 (tf-keras) on TF 2.16+: TF 1's layers, and TF 1.15's
# tf.contrib.keras (its tf.keras)
V1_LAYERS = ("tensorflow.layers.", "tensorflow.compat.v1.layers.", "tensorflow.contrib.keras.")

# Runtime namespaces a legacy wildcard import (``from npu_bridge.npu_init import *``)
# may be rewritten to: the runtime module exports exactly its listed members.
WILDCARD_NAMESPACES = frozenset({"npu"})


def members(namespace: str) -> frozenset[str]:
    """The names the runtime exports directly from ``namespace``."""
    prefix = namespace + "."
    return frozenset(
        name[len(prefix) :]
        for name in RUNTIME_SYMBOLS
        if name.startswith(prefix) and "." not in name[len(prefix) :]
    )


# The import alias a rewritten ``tf.estimator.X`` reference uses, per runtime module.
RUNTIME_ALIASES = {
    "estimator": "tf_estimator",
    "estimator.export": "tf_estimator_export",
    "estimator.inputs": "tf_estimator_inputs",
    "estimator.tpu": "tf_estimator_tpu",
    "estimator.canned": "tf_estimator_canned",
    "estimator.experimental": "tf_estimator_experimental",
    "estimator.v1": "tf_estimator_v1",
    "npu": "npu_runtime",
    "npu.npu_ops": "npu_ops",
    "npu.hccl_ops": "hccl_ops",
    "contrib.learn": "contrib_learn",
    "contrib.learn.learn_runner": "learn_runner",
    "contrib.learn.utils": "contrib_learn_utils",
    "contrib.learn.utils.saved_model_export_utils": "saved_model_export_utils",
    "contrib.data": "contrib_data",
    "contrib.training": "contrib_training",
    "contrib.estimator": "contrib_estimator",
    "contrib.mixed_precision": "contrib_mixed_precision",
    "contrib.summary": "contrib_summary",
    "contrib.lookup": "contrib_lookup",
    "contrib.crf": "contrib_crf",
    "contrib.rnn": "contrib_rnn",
    "contrib.opt": "contrib_opt",
    "contrib.distribute": "contrib_distribute",
    "contrib.device_setter": "contrib_device_setter",
    "contrib.predictor": "contrib_predictor",
    "contrib.cudnn_rnn": "contrib_cudnn_rnn",
    "contrib.image": "contrib_image",
}

# tf.contrib symbols with an exact TF 2 equivalent (same signature, same numbers).
CONTRIB_RENAMES = {
    "tensorflow.contrib.framework.get_or_create_global_step": (
        "tensorflow.compat.v1.train.get_or_create_global_step"
    ),
    "tensorflow.contrib.framework.get_global_step": "tensorflow.compat.v1.train.get_global_step",
    "tensorflow.contrib.layers.flatten": "tensorflow.compat.v1.layers.flatten",
    "tensorflow.contrib.cluster_resolver.TPUClusterResolver": (
        "tensorflow.distribute.cluster_resolver.TPUClusterResolver"
    ),
    "tensorflow.contrib.training.checkpoints_iterator": "tensorflow.train.checkpoints_iterator",
    # TF 1.15's tf.contrib.compiler re-exported TF's own XLA entry points
    "tensorflow.contrib.compiler.xla.compile": "tensorflow.xla.experimental.compile",
    "tensorflow.contrib.compiler.jit.experimental_jit_scope": (
        "tensorflow.xla.experimental.jit_scope"
    ),
    # TF 1.15's tf.contrib.tpu re-exported TF's own topology and device assignment
    "tensorflow.contrib.tpu.Topology": "tensorflow.tpu.experimental.Topology",
    "tensorflow.contrib.tpu.DeviceAssignment": "tensorflow.tpu.experimental.DeviceAssignment",
    "tensorflow.contrib.tpu.device_assignment": (
        "tensorflow.tpu.experimental.DeviceAssignment.build"
    ),
    # TF 1.15's tf.contrib.distribute re-exported TF's own V1 strategies, which TF 2
    # keeps under compat.v1 with TF 1.15's arguments (TPUStrategy's steps_per_run)
    "tensorflow.contrib.distribute.OneDeviceStrategy": (
        "tensorflow.compat.v1.distribute.OneDeviceStrategy"
    ),
    "tensorflow.contrib.distribute.TPUStrategy": (
        "tensorflow.compat.v1.distribute.experimental.TPUStrategy"
    ),
    # TF 1.15's tf.contrib.keras was tf.keras (Keras 2), which is tf-keras here: the
    # runtime selects it (TF_USE_LEGACY_KERAS) when imported
    "tensorflow.contrib.keras": "tensorflow.keras",
    # TF 1.15's tf.contrib.rnn re-exported the core cells, which TF 2 keeps here
    **{
        f"tensorflow.contrib.rnn.{name}": f"tensorflow.compat.v1.nn.rnn_cell.{name}"
        for name in ("DeviceWrapper", "DropoutWrapper", "LSTMStateTuple", "ResidualWrapper")
    },
}


@functools.cache
def _tf1_tables() -> dict:
    """Generated by scripts/generate_tf1_tables.py from tf_upgrade_v2's tables."""
    return json.loads(resources.files(__package__).joinpath("tf1_api.json").read_text())


@functools.cache
def tf1_renames() -> dict[str, str]:
    """TF 1 symbol -> its TF 2 name with the same arguments and meaning."""
    return {**_tf1_tables()["symbols"], **CONTRIB_RENAMES}


def tf1_modules() -> dict[str, str]:
    """TF 1 modules TensorFlow 2 has only under ``tf.compat.v1``."""
    return _tf1_tables()["modules"]


def namesake(qualified_name: str) -> dict | None:
    """A TF 1 function TF 2 kept under its name but changed: ``kind`` ("arguments"
    or "meaning") and both parameter lists (``v1``, ``v2``: ``[[name, has default],
    ...]``, None when unknown), ``warned`` arguments (see scripts/generate_tf1_tables.py)."""
    return _tf1_tables()["namesakes"].get(qualified_name)


def binds(parameters: list | None, positional: int, keywords: list[str]) -> bool:
    """Whether a call with ``positional`` arguments and these keywords binds to a
    parameter list: no unknown keyword, no parameter twice, every required one."""
    if parameters is None:
        return False
    names = [name for name, _ in parameters]
    if positional > len(names) or any(k not in names or k in names[:positional] for k in keywords):
        return False
    bound = {*names[:positional], *keywords}
    return all(name in bound for name, has_default in parameters if not has_default)


def same_meaning(spec: dict, positional: int, keywords: list[str]) -> bool:
    """Whether a call binds the same parameters in TF 1 and TF 2 (a function whose
    change was only renamed or reordered arguments): ``tf.reduce_sum(x, 1)`` does,
    ``tf.reduce_sum(x, keep_dims=True)`` does not."""
    if spec["kind"] != "arguments" or spec["v1"] is None or spec["v2"] is None:
        return False
    v1 = [name for name, _ in spec["v1"]]
    v2 = [name for name, _ in spec["v2"]]
    return (
        v1[:positional] == v2[:positional]
        and not any(k in spec["warned"] for k in keywords)
        and binds(spec["v1"], positional, keywords)
        and binds(spec["v2"], positional, keywords)
    )


def public_name(qualified_name: str) -> str:
    """The public TF 1.15 name of ``qualified_name``: ``tensorflow.compat.v1.contrib.X``
    is ``tensorflow.contrib.X`` (TF 1.15's compat.v1 re-exported contrib, which TF
    2's compat.v1 never had), and a contrib module's private path is the public
    name it was exported under (:func:`_public_contrib_name`)."""
    prefix = "tensorflow.compat.v1.contrib"
    if qualified_name == prefix or qualified_name.startswith(prefix + "."):
        qualified_name = "tensorflow.contrib" + qualified_name[len(prefix) :]
    if qualified_name.startswith("tensorflow.contrib.") and ".python." in qualified_name:
        return _public_contrib_name(qualified_name)
    return qualified_name


# contrib modules TF 1.15 exported as modules, not flat into their package
_PRIVATE_CONTRIB_MODULES = {
    "tensorflow.contrib.learn.python.learn.learn_runner": "tensorflow.contrib.learn.learn_runner",
    "tensorflow.contrib.learn.python.learn.utils.saved_model_export_utils": (
        "tensorflow.contrib.learn.utils.saved_model_export_utils"
    ),
}
_PRIVATE_CONTRIB = re.compile(r"^tensorflow\.contrib\.(?P<module>\w+)\.python\.(?P<path>[\w.]+)$")


@functools.cache
def _public_contrib_name(qualified_name: str) -> str:
    """A contrib module re-exported, flat, what the modules of its ``python/``
    package defined (``tf.contrib.tpu.python.tpu.async_checkpoint`` stands for
    ``tf.contrib.tpu``, and its ``AsyncCheckpointSaverHook`` is
    ``tf.contrib.tpu.AsyncCheckpointSaverHook``); slim kept its layout
    (``tf.contrib.slim.python.slim.learning`` is ``tf.contrib.slim.learning``).
    Those modules are ``python/<package>/<module>.py``: what follows is a member,
    unless a deeper package holds a member the migrator knows."""
    for private, public in _PRIVATE_CONTRIB_MODULES.items():
        if qualified_name == private or qualified_name.startswith(private + "."):
            return public + qualified_name[len(private) :]
    match = _PRIVATE_CONTRIB.match(qualified_name)
    if match is None:
        return qualified_name
    public = f"tensorflow.contrib.{match['module']}"
    parts = match["path"].split(".")
    if match["module"] == "slim" and parts[0] == "slim":
        return ".".join([public, *parts[1:]])
    for start in range(len(parts) - 1, 2, -1):
        candidate = ".".join([public, *parts[start:]])
        if _known(candidate):
            return candidate
    return ".".join([public, *parts[2:]])


def _known(qualified_name: str) -> bool:
    """Whether the migrator converts ``qualified_name`` (or reports it as removed)."""
    canonical_name = canonical(qualified_name)
    return (
        (canonical_name is not None and available(canonical_name))
        or tf1_replacement(qualified_name) is not None
        or slim_replacement(qualified_name) is not None
        or contrib_in_tf2(qualified_name) is not None
        or qualified_name in CONTRIB_CALL_RENAMES
    )


def tf1_only(qualified_name: str) -> bool:
    """Whether a name under ``tensorflow.`` existed only in TF 1 (a file using it
    was written for TF 1): a contrib name, or a TF 1 name TF 2 does not have."""
    contrib = "tensorflow.contrib"
    qualified_name = public_name(qualified_name)
    if qualified_name == contrib or qualified_name.startswith(contrib + "."):
        return True
    if qualified_name.startswith("tensorflow.compat."):
        return False  # TF 1's API as TF 2 has it
    parts = qualified_name.split(".")
    tables = _tf1_tables()
    for end in range(len(parts), 1, -1):
        prefix = ".".join(parts[:end])
        if (
            prefix in tables["symbols"]
            or prefix in tables["removed"]
            or prefix in tables["modules"]
        ):
            return prefix not in _tf2_has()
    return False


@functools.cache
def _tf2_has() -> frozenset[str]:
    return frozenset(_tf1_tables()["tf2_has"])


# tf.contrib classes TF 2 kept with fewer arguments (or functions whose parameters
# it renamed): their TF 2 name, for calls that pass only (positional, keyword)
# arguments TF 2's takes with the same meaning.
CONTRIB_CALL_RENAMES = {
    "tensorflow.contrib.framework.load_checkpoint": (
        "tensorflow.train.load_checkpoint",
        ("filepattern",),
        frozenset(),
    ),
    "tensorflow.contrib.framework.list_variables": (
        "tensorflow.train.list_variables",
        ("checkpoint_dir",),
        frozenset(),
    ),
    "tensorflow.contrib.framework.load_variable": (
        "tensorflow.train.load_variable",
        ("checkpoint_dir", "name"),
        frozenset({"name"}),
    ),
}

# tests/runtime/test_boosted_trees_gap.py checks the first claim on both TensorFlows.
_BOOSTED_TREES_INSTEAD = (
    "TensorFlow 2.16+ cannot run the boosted-trees estimators: its BoostedTrees* ops "
    "have no kernels, as in TF 2.15, and tensorflow-estimator dropped the estimators "
    "in 2.9; train the trees with a gradient-boosting library instead, such as "
    "TensorFlow Decision Forests, XGBoost or LightGBM"
)
# What to use instead of a whole legacy module with no TF 2 home, for each of its
# names (by qualified module name; INSTEAD's entries for single names come first).
_MODULE_INSTEAD = {
    "tensorflow.contrib.gan": (
        "tf.contrib.gan lives on as the tensorflow-gan package, whose last release "
        "(2.1.0) does not import on TensorFlow 2.16+ (it uses tf.estimator) nor run on "
        "Python 3.11 (inspect.getargspec): vendor its source, run migrate on it (it "
        "converts clean) and replace inspect.getargspec with inspect.getfullargspec"
    ),
    "tensorflow.contrib.learn": (
        "tf.contrib.learn's own Estimator, its canned estimators (fit/predict with x "
        "and y) and monitors have no TF 2 home: use tf.estimator's Estimator and canned "
        "estimators with input_fns, and SessionRunHooks (its Experiment, learn_runner, "
        "RunConfig and make_export_strategy are converted)"
    ),
    "tensorflow.contrib.seq2seq": (
        "no maintained port runs on TensorFlow 2.16+ (TensorFlow Addons' tfa.seq2seq, "
        "with other variable names, supports TensorFlow up to 2.15): rebuild the decoder "
        "from tf.compat.v1.nn.rnn_cell cells and tf.keras.layers.Attention by hand"
    ),
    "tensorflow.contrib.quantize": (
        "quantization-aware training moved to the TensorFlow Model Optimization "
        "Toolkit (tfmot.quantization.keras.quantize_model), for Keras models"
    ),
    "tensorflow.examples.tutorials.mnist": (
        "use tf.keras.datasets.mnist.load_data(): the same 60,000 training and 10,000 "
        "test images as uint8 arrays (read_data_sets scaled them to [0, 1] rows of 784 "
        "floats, one-hot encoded the labels if asked, and split 5,000 validation images "
        "off the training set)"
    ),
}


# What to write instead of a name with no faithful target (by qualified legacy name
# or runtime canonical name): the suggestion of its diagnostic.
INSTEAD = {
    **{
        f"estimator.{name}": _BOOSTED_TREES_INSTEAD
        for name in (
            "BoostedTreesClassifier",
            "BoostedTreesRegressor",
            "BoostedTreesEstimator",
            "experimental.boosted_trees_classifier_train_in_memory",
            "experimental.boosted_trees_regressor_train_in_memory",
        )
    },
    "npu.hccl_ops.broadcast": (
        "under tf.distribute a variable created in the strategy's scope starts equal on "
        "every replica: drop the broadcast"
    ),
    **{
        f"contrib.predictor.{name}": (
            "export the model with estimator.export_saved_model(export_dir_base, "
            "serving_input_receiver_fn) and load the export with "
            "predictor.from_saved_model(export_dir)"
        )
        for name in ("from_estimator", "from_contrib_estimator")
    },
    **{
        f"contrib.cudnn_rnn.{name}": (
            "cuDNN's RNN layers run on a GPU only (as on TF 1): use "
            "tf.compat.v1.keras.layers.CuDNNLSTM / CuDNNGRU there, or build the model "
            "from cudnn_rnn.CudnnCompatibleLSTMCell / CudnnCompatibleGRUCell, which the "
            "runtime has"
        )
        for name in ("CudnnLSTM", "CudnnGRU", "CudnnRNNTanh", "CudnnRNNRelu")
    },
    "estimator.tpu.BatchConfig": (
        "BatchConfig batched TPU serving requests (model_fn_inference_on_tpu); export "
        "with export_saved_model and batch in TensorFlow Serving (--enable_batching)"
    ),
    "estimator.tpu.experimental.EmbeddingConfigSpec": (
        "the runtime has no TPU embedding engine: drop embedding_config_spec so the "
        "embedding columns are ordinary variables, or move the model to "
        "tf.tpu.experimental.embedding.TPUEmbedding under TPUStrategy"
    ),
}


# TF 1's queue-based input: input queues filled by QueueRunner threads that a
# MonitoredSession started. The runtime runs input_fn's tf.data pipelines and
# iterators every step (docs/runtime.md, "What the runtime refuses"), not these.
QUEUE_INPUT = frozenset(
    {
        *(
            f"tensorflow.train.{name}"
            for name in (
                "batch",
                "batch_join",
                "shuffle_batch",
                "shuffle_batch_join",
                "maybe_batch",
                "maybe_batch_join",
                "maybe_shuffle_batch",
                "maybe_shuffle_batch_join",
                "input_producer",
                "string_input_producer",
                "range_input_producer",
                "slice_input_producer",
                "limit_epochs",
                "start_queue_runners",
                "add_queue_runner",
                "QueueRunner",
            )
        ),
        "tensorflow.train.queue_runner",
        *(
            f"tensorflow.{name}"
            for name in (
                "TFRecordReader",
                "TextLineReader",
                "WholeFileReader",
                "FixedLengthRecordReader",
                "IdentityReader",
                "LMDBReader",
                "FIFOQueue",
                "RandomShuffleQueue",
                "PaddingFIFOQueue",
                "PriorityQueue",
            )
        ),
    }
)


def queue_input(qualified_name: str) -> bool:
    """Whether a TF 1 name (or its ``tf.compat.v1`` spelling) is queue-based input."""
    name = qualified_name.replace("tensorflow.compat.v1.", "tensorflow.", 1)
    parts = name.split(".")
    return any(".".join(parts[:end]) in QUEUE_INPUT for end in range(2, len(parts) + 1))


def _of_name_or_module(qualified: str, by_name: dict, by_module: dict):
    """``by_name[qualified]``, else the entry of the module ``qualified`` is or lies
    in, else None."""
    if qualified in by_name:
        return by_name[qualified]
    for module, entry in by_module.items():
        if qualified == module or qualified.startswith(module + "."):
            return entry
    return None


def instead(qualified_name: str) -> str | None:
    """What to use instead of a legacy name that has no faithful target, if known."""
    return _of_name_or_module(qualified_name, INSTEAD, _MODULE_INSTEAD)


# tf.contrib modules whose code lives on in the tf_slim package (unchanged: TF 1.15's
# code), and where: ``tf.contrib.layers.layer_norm`` -> ``tf_slim.layer_norm``.
SLIM_HOMES = {
    "tensorflow.contrib.slim": "tf_slim",
    "tensorflow.contrib.layers": "tf_slim",
    "tensorflow.contrib.framework": "tf_slim",
    "tensorflow.contrib.metrics": "tf_slim.metrics",
    "tensorflow.contrib.losses": "tf_slim.losses",
}


def slim_replacement(qualified_name: str) -> str | None:
    """The tf_slim name of a tf.contrib name whose code tf_slim keeps, if any."""
    if qualified_name == "tensorflow.contrib.slim":
        return "tf_slim"
    for prefix, home in SLIM_HOMES.items():
        if qualified_name.startswith(prefix + "."):
            rest = qualified_name[len(prefix) + 1 :]
            if rest.split(".")[0] in _tf1_tables()["tf_slim"][home]:
                return f"{home}.{rest}"
    return None


def contrib_in_tf2(qualified_name: str) -> str | None:
    """The TF 2 name of a contrib name that was TF's own: one of CONTRIB_RENAMES, or
    ``tf.contrib.tpu.X`` that was TF's own tpu module's X."""
    if qualified_name in CONTRIB_RENAMES:
        return CONTRIB_RENAMES[qualified_name]
    prefix = "tensorflow.contrib.tpu."
    if qualified_name.startswith(prefix):
        rest = qualified_name[len(prefix) :]
        if rest.split(".")[0] in _tf1_tables()["compat_v1_tpu"]:
            return "tensorflow.compat.v1.tpu." + rest
    return None


def removed_in_tf2(qualified_name: str) -> str | None:
    """Why a TF 1 symbol has no faithful TF 2 name (tf_upgrade_v2's words), if so."""
    return _tf1_tables()["removed"].get(qualified_name)


# TensorFlow's private names (``tensorflow.python.*``) that TF 1 code used and that
# TensorFlow 2.21 no longer has there, by the public name it has for the same thing.
PRIVATE_TWINS = {
    # TF 1's nest.is_sequence, renamed is_nested (same test: list, tuple, dict,
    # namedtuple or attrs instance, never a string) and exported as tf.nest.is_nested
    "tensorflow.python.util.nest.is_sequence": "tensorflow.nest.is_nested",
    # moved to framework.tensor_conversion_registry; public since TF 1.x
    "tensorflow.python.framework.ops.register_tensor_conversion_function": (
        "tensorflow.register_tensor_conversion_function"
    ),
    # TF 1.14-1.15's feature_column_lib re-exported the Keras layer for v2 columns
    "tensorflow.python.feature_column.feature_column_lib.DenseFeatures": (
        "tensorflow.keras.layers.DenseFeatures"
    ),
    # TF 1.x's private Keras bound the v1 layer classes when TF 2 behaviour was off
    # at import time, as a TF 1 program had it; tf.compat.v1.keras keeps them
    "tensorflow.python.keras.layers.LSTM": "tensorflow.compat.v1.keras.layers.LSTM",
    "tensorflow.python.keras.layers.GRU": "tensorflow.compat.v1.keras.layers.GRU",
    # TF 1.x's feature_column module defined tf.feature_column's column functions
    # (TF 1.13 made them private there, as _numeric_column...; input_layer,
    # linear_model and make_parse_example_spec it still has);
    # tf.compat.v1.feature_column has each, returning columns that v1's
    # input_layer and linear_model take
    **{
        f"tensorflow.python.feature_column.feature_column.{name}": (
            f"tensorflow.compat.v1.feature_column.{name}"
        )
        for name in (
            "bucketized_column",
            "categorical_column_with_hash_bucket",
            "categorical_column_with_identity",
            "categorical_column_with_vocabulary_file",
            "categorical_column_with_vocabulary_list",
            "crossed_column",
            "embedding_column",
            "indicator_column",
            "numeric_column",
            "shared_embedding_columns",
            "weighted_categorical_column",
        )
    },
}
# ... and private names TensorFlow removed with nothing in their place: why, and
# what to write instead.
PRIVATE_REMOVED = {
    "tensorflow.python.framework.ops.register_dense_tensor_like_type": (
        "removed in TensorFlow 2.3, which converts a registered type to a tensor "
        "through register_tensor_conversion_function alone",
        "delete the call and keep the type's tf.register_tensor_conversion_function",
    ),
    "tensorflow.python.util.tf_export.ESTIMATOR_API_NAME": (
        "removed in TensorFlow 2.16 with tf.estimator, whose symbols it exported",
        "delete it: the runtime's names need no export",
    ),
    "tensorflow.python.feature_column.feature_column_v2.LinearModel": (
        "removed in TensorFlow 2.4 (the Keras model of linear_model's v2 columns)",
        "use tf.compat.v1.feature_column.linear_model, or a canned LinearRegressor / "
        "LinearClassifier",
    ),
}
# Private modules TensorFlow removed, with everything in them (the Estimator's own
# machinery, removed with tf.estimator in 2.16): why, and what to write instead.
PRIVATE_REMOVED_MODULES = {
    "tensorflow.python.distribute.estimator_training": (
        "removed in TensorFlow 2.16 with tf.estimator, whose distributed training it ran",
        "use the runtime's Estimator and train_and_evaluate, which run tf.distribute",
    ),
    "tensorflow.python.tpu.tpu_embedding": (
        "removed in TensorFlow 2.16 with TPUEstimator (TF 1's TPU embedding API)",
        "use tf.tpu.experimental.embedding.TPUEmbedding",
    ),
    "tensorflow.python.tpu.tpu_embedding_gradient": (
        "removed in TensorFlow 2.16 with TPUEstimator (TF 1's TPU embedding gradients)",
        "use tf.tpu.experimental.embedding.TPUEmbedding, which applies its own gradients",
    ),
    "tensorflow.python.tpu.session_support": (
        "removed in TensorFlow 2.16 with TPUEstimator (its worker watchdog and shutdown hooks)",
        "drop the hooks: a TPUStrategy cluster handles its workers' failures",
    ),
}


def private_removal(qualified: str) -> tuple[str, str] | None:
    """``(why, instead)`` of a private name TensorFlow removed, alone or with its
    module, or None."""
    return _of_name_or_module(qualified, PRIVATE_REMOVED, PRIVATE_REMOVED_MODULES)


# Runtime names whose TF 1 computation ran in an order TF 1 left open and the runtime
# fixes (MIG111): what may differ, and where the docs say more.
_DECOUPLED_DECAY_ORDER = (
    "TF 1 ran the decoupled weight decay unordered with the forward pass (usually "
    "first, so a step's loss saw the decayed weights); the runtime decays after the "
    "forward pass, so with weight_decay > 0 its numbers differ from a typical TF 1 run",
    "compare a few steps with the TF 1 run; docs/contrib.md, 'Order against the forward pass'",
)
ORDER_LEFT_OPEN = {
    f"contrib.opt.{name}": _DECOUPLED_DECAY_ORDER
    for name in (
        "AdamWOptimizer",
        "MomentumWOptimizer",
        "DecoupledWeightDecayExtension",
        "extend_with_decoupled_weight_decay",
    )
}


# Single symbols outside the Estimator namespaces that the runtime replaces:
# TF1's CrossShardOptimizer calls TPU-only ops (cross_replica_sum); the runtime's
# sums across tf.distribute replicas instead.
RUNTIME_REPLACEMENTS = {
    "tensorflow.compat.v1.tpu.CrossShardOptimizer": "estimator.tpu.CrossShardOptimizer",
    # tf.contrib names TF 2 has nowhere, with TF 1.15's behaviour (runtime/contrib/)
    "tensorflow.contrib.learn.ModeKeys": "contrib.learn.ModeKeys",
    **{
        f"tensorflow.contrib.learn.{name}": f"contrib.learn.{name}"
        for name in ("Experiment", "ExportStrategy", "RunConfig", "make_export_strategy")
    },
    "tensorflow.contrib.data.batch_and_drop_remainder": "contrib.data.batch_and_drop_remainder",
    "tensorflow.contrib.data.padded_batch_and_drop_remainder": (
        "contrib.data.padded_batch_and_drop_remainder"
    ),
    "tensorflow.contrib.training.HParams": "contrib.training.HParams",
    **{
        f"tensorflow.contrib.training.{name}": f"contrib.device_setter.{name}"
        for name in ("GreedyLoadBalancingStrategy", "byte_size_load_fn")
    },
    **{f"tensorflow.contrib.rnn.{name}": f"contrib.rnn.{name}" for name in _CONTRIB_RNN},
    **{f"tensorflow.contrib.opt.{name}": f"contrib.opt.{name}" for name in _CONTRIB_OPT},
    # TF 1.15's arguments (num_gpus=...), which TF 2's MirroredStrategy lacks
    "tensorflow.contrib.distribute.MirroredStrategy": "contrib.distribute.MirroredStrategy",
    **{
        f"tensorflow.contrib.estimator.{name}": f"contrib.estimator.{name}"
        for name in _CONTRIB_ESTIMATOR
    },
    # TF 1.15's contrib.estimator re-exported tensorflow-estimator's own
    "tensorflow.contrib.estimator.add_metrics": "estimator.add_metrics",
    "tensorflow.contrib.estimator.InMemoryEvaluatorHook": (
        "estimator.experimental.InMemoryEvaluatorHook"
    ),
    "tensorflow.contrib.estimator.make_stop_at_checkpoint_step_hook": (
        "estimator.experimental.make_stop_at_checkpoint_step_hook"
    ),
}


# TF 2's canned estimators in tensorflow-estimator's private modules, which real
# code imported, by the public name each was exported as (``canned.dnn.DNNClassifierV2``
# is ``tf.estimator.DNNClassifier``; TF 1's ``canned.dnn.DNNClassifier`` is reported).
_PRIVATE_CANNED_MODULES = {
    "canned.baseline": ("BaselineClassifierV2", "BaselineRegressorV2", "BaselineEstimatorV2"),
    "canned.dnn": ("DNNClassifierV2", "DNNRegressorV2", "DNNEstimatorV2"),
    "canned.dnn_linear_combined": (
        "DNNLinearCombinedClassifierV2",
        "DNNLinearCombinedRegressorV2",
        "DNNLinearCombinedEstimatorV2",
    ),
    "canned.linear": ("LinearClassifierV2", "LinearRegressorV2", "LinearEstimatorV2"),
}
RUNTIME_REPLACEMENTS.update(
    {
        f"tensorflow_estimator.python.estimator.{module}.{name}": (
            f"estimator.{name.removesuffix('V2')}"
        )
        for module, names in _PRIVATE_CANNED_MODULES.items()
        for name in names
    }
)
# LinearSDCA, which tensorflow-estimator defined in canned.linear for both flavours.
RUNTIME_REPLACEMENTS["tensorflow_estimator.python.estimator.canned.linear.LinearSDCA"] = (
    "estimator.experimental.LinearSDCA"
)
# TF 1's classes in the same modules (TF 1.x reached them under tensorflow.python too).
RUNTIME_REPLACEMENTS.update(
    {
        f"{package}.python.estimator.{module}.{name.removesuffix('V2')}": (
            tf1_flavour_of(name.removesuffix("V2"))
        )
        for package in ("tensorflow", "tensorflow_estimator")
        for module, names in _PRIVATE_CANNED_MODULES.items()
        for name in names
    }
)


def namespace(qualified_name: str) -> str | None:
    """The runtime namespace a legacy module name stands for (public or private)."""
    if qualified_name in NAMESPACES:
        return NAMESPACES[qualified_name]
    match = PRIVATE_MODULE.match(qualified_name)
    if match:
        return "estimator" + (match["sub"] or "")
    return None


def runtime_namespace(module_path: str) -> str | None:
    """The runtime namespace a legacy module's ported members all live in
    (``contrib.opt`` for ``tensorflow.contrib.opt``), if they live in one."""
    found = namespace(module_path)
    if found is not None:
        return found
    homes = {
        replaced.rpartition(".")[0]
        for legacy, replaced in RUNTIME_REPLACEMENTS.items()
        if legacy.rpartition(".")[0] == module_path
    }
    if len(homes) == 1 and (home := homes.pop()) in RUNTIME_MODULES:
        return home
    return None


def estimator_api(qualified_name: str) -> tuple[str, str] | None:
    """``(name, runtime path)`` of a legacy name that is Estimator API, or whose TF 2
    name is: the tables composed, so that one run reaches what a second would
    (``tf.tpu.CrossShardOptimizer`` is ``tf.compat.v1.tpu.CrossShardOptimizer`` in
    TF 2, which the runtime replaces)."""
    found = canonical(qualified_name)
    if found is not None:
        return qualified_name, found
    renamed = tf1_replacement(qualified_name)
    if renamed is not None and canonical(renamed) is not None:
        return renamed, canonical(renamed)
    return None


def canonical(qualified_name: str) -> str | None:
    """The runtime path a legacy qualified name stands for, if it is Estimator API."""
    parts = qualified_name.split(".")
    for end in range(len(parts), 0, -1):
        replaced = RUNTIME_REPLACEMENTS.get(".".join(parts[:end]))
        if replaced is not None:
            return ".".join([replaced, *parts[end:]])
        target = namespace(".".join(parts[:end]))
        if target is not None:
            return ".".join([target, *parts[end:]])
    return None


# Namespaces in which the migration acts on every name (rewrites, reports or checks it).
_ACTED_ON_NAMESPACES = frozenset(
    {
        *NAMESPACES,
        "tensorflow.contrib",
        "tensorflow.python.estimator",
        "tensorflow_estimator",
        "npu_bridge",
        PACKAGE,
        FORMER_PACKAGE,
        *(prefix.rstrip(".") for prefix in V1_LAYERS),
    }
)


@functools.cache
def _prefixes_of_names_acted_on() -> frozenset[str]:
    names = [
        *tf1_renames(),
        *tf1_modules(),
        *_tf1_tables()["removed"],
        *RUNTIME_REPLACEMENTS,
        *PRIVATE_TWINS,
        *PRIVATE_REMOVED,
        *PRIVATE_REMOVED_MODULES,
    ]
    return frozenset(
        ".".join(parts[:end])
        for name in names
        for parts in [name.split(".")]
        for end in range(1, len(parts) + 1)
    )


def may_act_under(path: str) -> bool:
    """Whether the migration may act on a name reached through ``path`` (what an
    import binds): a name it knows lies under it, or ``path`` lies in a namespace
    the migration acts on whole. ``tensorflow.python.framework.ops`` is not."""
    if path in _prefixes_of_names_acted_on():
        return True
    parts = path.split(".")
    return any(".".join(parts[:end]) in _ACTED_ON_NAMESPACES for end in range(1, len(parts) + 1))


# Legacy packages TensorFlow 2 stacks do not have: what is left of them after the
# migration cannot be imported (code, why).
_GONE = {
    "tensorflow.examples.tutorials": (
        "MIG104",
        "tf.examples.tutorials (TF 1's MNIST reader) is not part of TensorFlow 2",
    ),
    "tensorflow.contrib.slim": ("MIG102", "tf.contrib.slim does not exist in TensorFlow 2"),
    "tensorflow.contrib": ("MIG102", "tf.contrib does not exist in TensorFlow 2"),
    "npu_bridge": ("MIG101", "npu_bridge is Ascend's adapter for TensorFlow 1.15"),
    "tensorflow_estimator": ("MIG101", "tensorflow_estimator does not work with TensorFlow 2.16+"),
}


def gone(qualified_name: str) -> tuple[str, str] | None:
    """``(code, why)`` if a name lies in a legacy package TF 2 stacks do not have."""
    for package, verdict in _GONE.items():
        if qualified_name == package or qualified_name.startswith(package + "."):
            return verdict
    return None


def in_runtime(qualified_name: str) -> bool:
    """Whether a qualified name is the runtime's own (code already migrated)."""
    return qualified_name == PACKAGE or qualified_name.startswith(PACKAGE + ".")


def current_name(qualified_name: str) -> str | None:
    """The runtime's name for one of its names under its former package name
    (``estimator_revival.contrib.rnn`` is ``estimator_revival.contrib.rnn``), else None."""
    if qualified_name == FORMER_PACKAGE or qualified_name.startswith(FORMER_PACKAGE + "."):
        return PACKAGE + qualified_name[len(FORMER_PACKAGE) :]
    return None


def runtime_path(qualified_name: str) -> str:
    """The canonical name of one of the runtime's own qualified names."""
    return qualified_name.removeprefix(PACKAGE).removeprefix(".")


def available(canonical_name: str) -> bool:
    """Whether the runtime has this name, or the class it is an attribute of."""
    parts = canonical_name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in RUNTIME_SYMBOLS:
            return end == len(parts) or prefix not in RUNTIME_MODULES
    return False


def stable_spelling(tf2_name: str) -> str:
    """How to write the TF 2 name a TF 1 name was renamed to so that a later run
    leaves it: renames followed to their end (``tf.manip.space_to_batch_nd`` is
    ``tf.space_to_batch_nd``, itself TF 2's ``tf.space_to_batch``), and a name TF 2
    kept but changed (``tf.batch_to_space``, TF 2's being TF 1's
    ``batch_to_space_nd``) spelled ``tf.compat.v2.batch_to_space``, which a TF 1
    program's next run cannot take for TF 1's own."""
    seen = {tf2_name}
    while namesake(tf2_name) is None:
        renamed = tf1_replacement(tf2_name)
        if renamed is None or renamed in seen:
            return tf2_name
        tf2_name = renamed
        seen.add(renamed)
    if tf2_name.startswith("tensorflow.compat."):
        return tf2_name
    return "tensorflow.compat.v2." + tf2_name.removeprefix("tensorflow.")


def tf1_replacement(qualified_name: str) -> str | None:
    """The TF 2.16+ name of a TF1-only symbol or module (or of an attribute of one)."""
    parts = qualified_name.split(".")
    for table in (tf1_renames(), tf1_modules()):
        for end in range(len(parts), 1, -1):
            renamed = table.get(".".join(parts[:end]))
            if renamed:
                return ".".join([renamed, *parts[end:]])
    return None
