"""TF 1.15's ``tf.contrib.estimator`` head factories on TF 2.15: each built the
matching v1 head of tensorflow-estimator's ``canned/head.py`` (still in 2.15, as
private functions), with the loss averaged over the batch by default.
``multi_label_head``, ``replicate_model_fn`` and ``TowerOptimizer`` are TF 1.15's
own: their modules of tensorflow-estimator 1.15.1
(``contrib/estimator/python/estimator/``; the heads built on that
``canned/head.py``), which scripts/setup-envs installs beside the legacy
environment."""

import functools
import importlib.util
import os
import types

import tensorflow as tf
from tensorflow.python.ops import nn
from tensorflow_estimator.python.estimator.canned import head as head_lib

__all__ = [
    "binary_classification_head",
    "logistic_regression_head",
    "multi_class_head",
    "multi_label_head",
    "poisson_regression_head",
    "regression_head",
    "replicate_model_fn",
    "TowerOptimizer",
]
_SUM_OVER_BATCH_SIZE = tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE


def binary_classification_head(
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
):
    return head_lib._binary_logistic_head_with_sigmoid_cross_entropy_loss(
        weight_column=weight_column,
        thresholds=thresholds,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        name=name,
    )


def multi_class_head(
    n_classes,
    weight_column=None,
    label_vocabulary=None,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
):
    return head_lib._multi_class_head_with_softmax_cross_entropy_loss(
        n_classes=n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        name=name,
    )


def regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    inverse_link_fn=None,
    name=None,
):
    return head_lib._regression_head(
        weight_column=weight_column,
        label_dimension=label_dimension,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        inverse_link_fn=inverse_link_fn,
        name=name,
    )


def poisson_regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    compute_full_loss=True,
    name=None,
):
    def poisson_loss(labels, logits):
        return nn.log_poisson_loss(
            targets=labels, log_input=logits, compute_full_loss=compute_full_loss
        )

    return head_lib._regression_head(
        weight_column=weight_column,
        label_dimension=label_dimension,
        loss_reduction=loss_reduction,
        loss_fn=poisson_loss,
        inverse_link_fn=tf.math.exp,
        name=name,
    )


def logistic_regression_head(weight_column=None, loss_reduction=_SUM_OVER_BATCH_SIZE, name=None):
    def logistic_loss(labels, logits):
        labels = head_lib._assert_range(
            labels, n_classes=2, message="Labels must be in range [0, 1]"
        )
        return nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    return head_lib._regression_head(
        weight_column=weight_column,
        label_dimension=1,
        loss_reduction=loss_reduction,
        loss_fn=logistic_loss,
        inverse_link_fn=tf.math.sigmoid,
        name=name,
    )


def multi_label_head(n_classes, **arguments):
    return _tf_1_15_contrib_module("head").multi_label_head(n_classes, **arguments)


def replicate_model_fn(model_fn, *args, **kwargs):
    return _tf_1_15_replication().replicate_model_fn(model_fn, *args, **kwargs)


def TowerOptimizer(optimizer_or_optimizer_fn):  # noqa: N802 (TF 1.15's class, built on use)
    return _tf_1_15_replication().TowerOptimizer(optimizer_or_optimizer_fn)


@functools.cache
def _tf_1_15_replication():
    """TF 1.15's replicate_model_fn module, with the two names of TF 1.15 it reads
    that TF 2.15 moved: TF 1's DeviceSpec (its device chooser merges specs in
    place, ``merge_from``, which TF 2's cannot) and ``ops.IndexedSlices``."""
    module = _tf_1_15_contrib_module("replicate_model_fn")
    module.framework_device = _overlaid(module.framework_device, DeviceSpec=tf.compat.v1.DeviceSpec)
    module.ops_lib = _overlaid(module.ops_lib, IndexedSlices=tf.IndexedSlices)
    return module


def _overlaid(module, **names) -> types.ModuleType:
    """``module`` as TF 1.15 had it: ``names`` over its own."""
    view = types.ModuleType(module.__name__)
    view.__getattr__ = lambda name: getattr(module, name)
    vars(view).update(names)
    return view


# Where tensorflow-estimator 1.15.1 is (pip install --target beside the legacy
# environment: migrate prove and scripts/setup-envs put it there), for the legacy
# program on either TensorFlow
ESTIMATOR_1_15 = os.environ.get("LEGACY_ESTIMATOR_1_15", "")


@functools.cache
def _tf_1_15_contrib_module(name: str):
    """A module of tensorflow-estimator 1.15.1's ``tf.contrib.estimator``, imported
    on its own: its imports (``tensorflow_estimator.python.estimator.canned.head``,
    ``...model_fn``...) resolve to the 2.15 package, which kept them."""
    path = os.path.join(
        ESTIMATOR_1_15, "tensorflow_estimator", "contrib", "estimator", "python", "estimator"
    )
    if not os.path.isdir(path):
        raise ImportError(
            f"tf.contrib.estimator's {name} on the legacy side needs tensorflow-estimator 1.15.1 "
            "beside the legacy environment: pip install --no-deps --target "
            "<legacy venv>/estimator-1.15 tensorflow-estimator==1.15.1"
        )
    spec = importlib.util.spec_from_file_location(
        f"tf_1_15_contrib_estimator_{name}", os.path.join(path, f"{name}.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
