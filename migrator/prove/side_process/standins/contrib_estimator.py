"""TF 1.15's ``tf.contrib.estimator`` head factories on TF 2.15: each built the
matching v1 head of tensorflow-estimator's ``canned/head.py`` (still in 2.15, as
private functions), with the loss averaged over the batch by default.
``multi_label_head`` is TF 1.15's own: its module of tensorflow-estimator 1.15.1
(``contrib/estimator/python/estimator/head.py``, built on that ``canned/head.py``),
which scripts/setup-envs installs beside the legacy environment."""

import functools
import importlib.util
import os

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
    return _tf_1_15_contrib_heads().multi_label_head(n_classes, **arguments)


# Where tensorflow-estimator 1.15.1 is (pip install --target beside the legacy
# environment: migrate prove and scripts/setup-envs put it there), for the legacy
# program on either TensorFlow
ESTIMATOR_1_15 = os.environ.get("LEGACY_ESTIMATOR_1_15", "")


@functools.cache
def _tf_1_15_contrib_heads():
    """tensorflow-estimator 1.15.1's contrib head module, imported on its own: its
    imports (``tensorflow_estimator.python.estimator.canned.head``...) resolve to
    the 2.15 package, which kept them."""
    path = os.path.join(
        ESTIMATOR_1_15, "tensorflow_estimator", "contrib", "estimator", "python", "estimator"
    )
    if not os.path.isdir(path):
        raise ImportError(
            "tf.contrib.estimator's heads on the legacy side need tensorflow-estimator 1.15.1 "
            "beside the legacy environment: pip install --no-deps --target "
            "<legacy venv>/estimator-1.15 tensorflow-estimator==1.15.1"
        )
    spec = importlib.util.spec_from_file_location(
        "tf_1_15_contrib_estimator_head", os.path.join(path, "head.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
