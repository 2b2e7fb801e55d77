"""``tensorflow.contrib`` as TF 1.15 code imported it, built from TF 2.15's own
modules (contrib was removed in TF 2.0)."""

import functools
import importlib.abc
import sys
import types

import contrib_crf
import contrib_cudnn_rnn
import contrib_distribute
import contrib_estimator
import contrib_image
import contrib_layers
import contrib_learn
import contrib_lookup
import contrib_metrics
import contrib_mixed_precision
import contrib_opt
import contrib_optimize_loss
import contrib_rnn
import contrib_training
import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2

# TF 1.15's tf.contrib.summary: these functions of summary_ops_v2 (TF 2.15 has them).
_SUMMARY_NAMES = (
    "always_record_summaries", "audio", "create_file_writer", "create_summary_file_writer",
    "eval_dir", "flush", "generic", "histogram", "image", "import_event", "initialize",
    "never_record_summaries", "record_summaries_every_n_global_steps", "scalar",
    "summary_writer_initializer_op", "SummaryWriter",
)  # fmt: skip
_EARLY_STOPPING = (
    "make_early_stopping_hook", "stop_if_higher_hook", "stop_if_lower_hook",
    "stop_if_no_decrease_hook", "stop_if_no_increase_hook",
)  # fmt: skip
_DATA_NAMES = ("map_and_batch", "parallel_interleave", "shuffle_and_repeat", "prefetch_to_device")


def _no_stand_in(name: str) -> str:
    return (
        f"{name} has no stand-in on the legacy side: TensorFlow 2.15 has no tf.contrib, and "
        "the stand-ins cover the modules docs/prove.md lists"
    )


class _NoStandIn(importlib.abc.MetaPathFinder):
    """``import tensorflow.contrib.<module>`` of a module with no stand-in: an
    error naming it, instead of TensorFlow's "No module named"."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("tensorflow.contrib.") and fullname not in sys.modules:
            raise ModuleNotFoundError(_no_stand_in(fullname), name=fullname)
        return None


def _module(name: str, members: dict) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(members)
    module.__getattr__ = functools.partial(_missing, name)
    module.__path__ = []  # a package: `from tensorflow.contrib import x` asks the finders
    sys.modules[name] = module
    return module


def _missing(module: str, attribute: str):
    """A name a stand-in module lacks: an AttributeError naming it."""
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    raise AttributeError(_no_stand_in(f"{module}.{attribute}"))


def _public(namespace) -> dict:
    return {name: getattr(namespace, name) for name in dir(namespace) if not name.startswith("_")}


def install() -> None:
    """Registers ``tensorflow.contrib`` and the submodules the projects use."""
    tpu = _module(
        "tensorflow.contrib.tpu",
        {**_public(tf.compat.v1.tpu), **_public(tf.compat.v1.estimator.tpu)},
    )
    cluster_resolver = _module(
        "tensorflow.contrib.cluster_resolver", _public(tf.distribute.cluster_resolver)
    )
    summary = _module(
        "tensorflow.contrib.summary",
        {
            **{name: getattr(summary_ops_v2, name) for name in _SUMMARY_NAMES},
            "all_summary_ops": summary_ops_v2.all_v2_summary_ops,
            "graph": summary_ops_v2.graph_v1,
            "should_record_summaries": summary_ops_v2._legacy_contrib_should_record_summaries,
        },
    )
    layers = _module(
        "tensorflow.contrib.layers",
        {**_public(contrib_layers), "optimize_loss": contrib_optimize_loss.optimize_loss},
    )
    metrics = _module("tensorflow.contrib.metrics", _public(contrib_metrics))
    mixed_precision = _module(
        "tensorflow.contrib.mixed_precision", _public(contrib_mixed_precision)
    )
    # TF 1.15's tf.contrib.data re-exported tf.data.experimental's transformations.
    data = _module(
        "tensorflow.contrib.data",
        {
            **{name: getattr(tf.data.experimental, name) for name in _DATA_NAMES},
            "batch_and_drop_remainder": contrib_training.batch_and_drop_remainder,
        },
    )
    training = _module(
        "tensorflow.contrib.training",
        {
            "HParams": contrib_training.HParams,
            "checkpoints_iterator": tf.compat.v1.train.checkpoints_iterator,
        },
    )
    # the private path the Cloud ML Engine samples imported HParams from
    for package in ("python", "python.training"):
        _module(f"tensorflow.contrib.training.{package}", {})
    _module(
        "tensorflow.contrib.training.python.training.hparam",
        {"HParams": contrib_training.HParams},
    )
    learn_runner = _module("tensorflow.contrib.learn.learn_runner", {"run": contrib_learn.run})
    export_utils = _module(
        "tensorflow.contrib.learn.utils.saved_model_export_utils",
        {"make_export_strategy": contrib_learn.make_export_strategy},
    )
    learn_utils = _module(
        "tensorflow.contrib.learn.utils", {"saved_model_export_utils": export_utils}
    )
    learn = _module(
        "tensorflow.contrib.learn",
        {
            "ModeKeys": contrib_training.ModeKeys,
            "Experiment": contrib_learn.Experiment,
            "ExportStrategy": contrib_learn.ExportStrategy,
            "RunConfig": contrib_learn.RunConfig,
            "learn_runner": learn_runner,
            "utils": learn_utils,
        },
    )
    # the private paths 2017-2018 scripts imported them from
    _module("tensorflow.contrib.learn.python", {})
    _module("tensorflow.contrib.learn.python.learn", {"learn_runner": learn_runner})
    _module(
        "tensorflow.contrib.learn.python.learn.utils",
        {"saved_model_export_utils": export_utils},
    )
    sys.modules["tensorflow.contrib.learn.python.learn.learn_runner"] = learn_runner
    sys.modules["tensorflow.contrib.learn.python.learn.utils.saved_model_export_utils"] = (
        export_utils
    )
    framework = _module(
        "tensorflow.contrib.framework",
        {
            "get_or_create_global_step": contrib_training.get_or_create_global_step,
            "get_global_step": contrib_training.get_global_step,
        },
    )
    estimator = _module(
        "tensorflow.contrib.estimator",
        {
            "clip_gradients_by_norm": contrib_layers.clip_gradients_by_norm,
            **{name: getattr(contrib_estimator, name) for name in contrib_estimator.__all__},
            # TF 1.15's contrib re-exported tensorflow-estimator's early stopping
            **{name: getattr(tf.estimator.experimental, name) for name in _EARLY_STOPPING},
        },
    )
    lookup = _module("tensorflow.contrib.lookup", contrib_lookup.names())
    rnn = _module(
        "tensorflow.contrib.rnn",
        {
            **contrib_rnn.core_cells(),
            **{
                name: getattr(contrib_rnn, name)
                for name in (
                    "GRUBlockCell",
                    "GRUBlockCellV2",
                    "LSTMBlockCell",
                    "LSTMBlockFusedCell",
                    "LayerNormBasicLSTMCell",
                    "TimeReversedFusedRNN",
                    "stack_bidirectional_dynamic_rnn",
                )
            },
        },
    )
    crf = _module("tensorflow.contrib.crf", _public(contrib_crf))
    cudnn_rnn = _module(
        "tensorflow.contrib.cudnn_rnn",
        {
            name: getattr(contrib_cudnn_rnn, name)
            for name in ("CudnnCompatibleGRUCell", "CudnnCompatibleLSTMCell")
        },
    )
    opt = _module(
        "tensorflow.contrib.opt",
        {
            name: getattr(contrib_opt, name)
            for name in (
                "AdamWOptimizer",
                "LARSOptimizer",
                "LazyAdamOptimizer",
                "MomentumWOptimizer",
                "extend_with_decoupled_weight_decay",
            )
        },
    )
    image = _module(
        "tensorflow.contrib.image",
        {
            name: getattr(contrib_image, name)
            for name in (
                "angles_to_projective_transforms",
                "rotate",
                "transform",
                "translate",
                "translations_to_projective_transforms",
            )
        },
    )
    distribute = _module(
        "tensorflow.contrib.distribute",
        {
            name: getattr(contrib_distribute, name)
            for name in ("MirroredStrategy", "OneDeviceStrategy", "TPUStrategy")
        },
    )
    contrib = _module(
        "tensorflow.contrib",
        {
            "distribute": distribute,
            "image": image,
            "lookup": lookup,
            "rnn": rnn,
            "crf": crf,
            "cudnn_rnn": cudnn_rnn,
            "opt": opt,
            "tpu": tpu,
            "cluster_resolver": cluster_resolver,
            "summary": summary,
            "layers": layers,
            "estimator": estimator,
            "metrics": metrics,
            "mixed_precision": mixed_precision,
            "data": data,
            "training": training,
            "learn": learn,
            "framework": framework,
        },
    )
    tf.contrib = contrib
    tf.compat.v1.contrib = contrib
    sys.meta_path.insert(0, _NoStandIn())
