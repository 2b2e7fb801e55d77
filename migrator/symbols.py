"""What the migrator knows about names: where the legacy Estimator API lived, what
the runtime provides, and the TF1 renames (data generated from tf_upgrade_v2).

Canonical names are paths inside the runtime, e.g. ``estimator.EstimatorSpec``;
the runtime module for a canonical name is ``runtime.<path>``.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

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
    "npu_bridge.estimator.npu.npu_estimator": "npu",
    "npu_bridge.estimator.npu.npu_config": "npu",
    "npu_bridge.npu_init": "npu",
}

# Private modules (``tensorflow.python.estimator.model_fn``,
# ``tensorflow_estimator.python.estimator.export.export_output``): each stands for
# the public namespace its symbols were exported to. One module level below the
# (sub)package, so that a lowercase function in it is not taken for a module.
PRIVATE_MODULE = re.compile(
    r"^(?:tensorflow|tensorflow_estimator)\.python\.estimator"
    r"(?P<sub>\.export|\.inputs|\.tpu)?(?:\.[a-z_]+)?$"
)

# Everything the runtime exports, by canonical name. tests/test_migrator_symbols.py
# checks each one really exists in `runtime`.
RUNTIME_SYMBOLS = frozenset(
    {
        "estimator",
        "estimator.BestExporter",
        "estimator.CheckpointSaverHook",
        "estimator.CheckpointSaverListener",
        "estimator.Estimator",
        "estimator.EstimatorSpec",
        "estimator.EvalSpec",
        "estimator.Exporter",
        "estimator.FeedFnHook",
        "estimator.FinalExporter",
        "estimator.FinalOpsHook",
        "estimator.GlobalStepWaiterHook",
        "estimator.LatestExporter",
        "estimator.LoggingTensorHook",
        "estimator.ModeKeys",
        "estimator.NanLossDuringTrainingError",
        "estimator.NanTensorHook",
        "estimator.ProfilerHook",
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
        "estimator.train_and_evaluate",
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
        "estimator.inputs.numpy_input_fn",
        "estimator.inputs.pandas_input_fn",
        "npu",
        "npu.NPUEstimator",
        "npu.NPUEstimatorSpec",
        "npu.NPURunConfig",
    }
)

# Canonical names that are modules (members are looked up inside them).
RUNTIME_MODULES = frozenset(
    {"estimator", "estimator.export", "estimator.inputs", "estimator.tpu", "npu"}
)

# TF 1 layers, which TF 2.16+ serves through Keras 3 unless tf-keras is selected.
V1_LAYERS = ("tensorflow.layers.", "tensorflow.compat.v1.layers.")

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
    "npu": "npu_runtime",
}

# TF1 modules that survive only under tf.compat.v1; members not in the generated
# table are sent there too (tf_upgrade_v2 handled these modules by code).
TF1_ONLY_MODULES = {
    "tensorflow.layers": "tensorflow.compat.v1.layers",
    "tensorflow.logging": "tensorflow.compat.v1.logging",
    "tensorflow.metrics": "tensorflow.compat.v1.metrics",
    "tensorflow.losses": "tensorflow.compat.v1.losses",
    "tensorflow.saved_model.builder": "tensorflow.compat.v1.saved_model.builder",
}

# TF1's summary ops kept their names in TF 2 but became v2 ops that need a step.
# A call without ``step=`` is TF1 code and goes to tf.compat.v1.summary.
V1_SUMMARY_OPS = frozenset(
    f"tensorflow.summary.{name}" for name in ("scalar", "histogram", "image", "audio", "text")
)
V1_ONLY_SUMMARY = {
    f"tensorflow.summary.{name}": f"tensorflow.compat.v1.summary.{name}"
    for name in (
        "merge",
        "merge_all",
        "FileWriter",
        "FileWriterCache",
        "Summary",
        "SummaryDescription",
        "Event",
        "SessionLog",
        "TaggedRunMetadata",
        "tensor_summary",
        "get_summary_description",
    )
}

# tf.contrib.summary calls: TF 2's functions take (name, data, step=...) where
# contrib's took (name, tensor, family, step): a call converts only when it passes
# no more than two arguments by position and only these keywords (renamed as shown).
CONTRIB_SUMMARY_CALLS = {
    "tensorflow.contrib.summary.scalar": {"step": "step", "name": "name"},
    "tensorflow.contrib.summary.histogram": {"step": "step", "name": "name"},
    "tensorflow.contrib.summary.image": {
        "step": "step",
        "name": "name",
        "max_images": "max_outputs",
    },
}
# contrib's record switches took no argument; TF 2's record_if takes the condition.
CONTRIB_RECORD_SWITCHES = {
    "tensorflow.contrib.summary.always_record_summaries": "True",
    "tensorflow.contrib.summary.never_record_summaries": "False",
}
# Their TF 2 names (the generated table leaves out contrib symbols whose
# arguments changed; the migrator converts these calls itself).
CONTRIB_SUMMARY_RENAMES = {
    **{
        name: "tensorflow.compat.v2.summary." + name.rsplit(".", 1)[1]
        for name in CONTRIB_SUMMARY_CALLS
    },
    **{name: "tensorflow.compat.v2.summary.record_if" for name in CONTRIB_RECORD_SWITCHES},
    "tensorflow.contrib.summary.create_file_writer": "tensorflow.compat.v2.summary.create_file_writer",
}

# tf.contrib symbols with an exact TF 2 equivalent (same signature, same numbers).
CONTRIB_RENAMES = {
    "tensorflow.contrib.framework.get_or_create_global_step": (
        "tensorflow.compat.v1.train.get_or_create_global_step"
    ),
    "tensorflow.contrib.framework.get_global_step": "tensorflow.compat.v1.train.get_global_step",
    "tensorflow.contrib.layers.xavier_initializer": "tensorflow.compat.v1.glorot_uniform_initializer",
    "tensorflow.contrib.layers.flatten": "tensorflow.compat.v1.layers.flatten",
    "tensorflow.contrib.cluster_resolver.TPUClusterResolver": (
        "tensorflow.distribute.cluster_resolver.TPUClusterResolver"
    ),
}


@functools.cache
def tf1_renames() -> dict[str, str]:
    """Generated by scripts/generate_rename_table.py from TensorFlow's tables."""
    text = resources.files("migrator.data").joinpath("tf1_renames.json").read_text()
    return {**json.loads(text), **V1_ONLY_SUMMARY, **CONTRIB_SUMMARY_RENAMES, **CONTRIB_RENAMES}


# Single symbols outside the Estimator namespaces that the runtime replaces:
# TF1's CrossShardOptimizer calls TPU-only ops (cross_replica_sum); the runtime's
# sums across tf.distribute replicas instead.
RUNTIME_REPLACEMENTS = {
    "tensorflow.compat.v1.tpu.CrossShardOptimizer": "estimator.tpu.CrossShardOptimizer",
}


def namespace(qualified_name: str) -> str | None:
    """The runtime namespace a legacy module name stands for (public or private)."""
    if qualified_name in NAMESPACES:
        return NAMESPACES[qualified_name]
    match = PRIVATE_MODULE.match(qualified_name)
    if match:
        return "estimator" + (match["sub"] or "")
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
        *TF1_ONLY_MODULES,
        "tensorflow.contrib",
        "tensorflow.python.estimator",
        "tensorflow_estimator",
        "npu_bridge",
        "runtime",
        *(prefix.rstrip(".") for prefix in V1_LAYERS),
    }
)


@functools.cache
def _prefixes_of_names_acted_on() -> frozenset[str]:
    names = [*tf1_renames(), *RUNTIME_REPLACEMENTS, *V1_SUMMARY_OPS]
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


def in_runtime(qualified_name: str) -> bool:
    """Whether a qualified name is the runtime's own (code already migrated)."""
    return qualified_name == "runtime" or qualified_name.startswith("runtime.")


def available(canonical_name: str) -> bool:
    """Whether the runtime has this name, or the class it is an attribute of."""
    parts = canonical_name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in RUNTIME_SYMBOLS:
            return end == len(parts) or prefix not in RUNTIME_MODULES
    return False


def tf1_replacement(qualified_name: str) -> str | None:
    """The TF 2.16+ name of a TF1-only symbol (or of an attribute of one)."""
    parts = qualified_name.split(".")
    for end in range(len(parts), 1, -1):
        renamed = tf1_renames().get(".".join(parts[:end]))
        if renamed:
            return ".".join([renamed, *parts[end:]])
    for module, target in TF1_ONLY_MODULES.items():
        if qualified_name.startswith(module + "."):
            return target + qualified_name[len(module) :]
    return None
