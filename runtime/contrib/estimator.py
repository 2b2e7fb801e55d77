"""``tf.contrib.estimator``'s pieces that Estimator code used: the optimizer
extender, the head factories TF 1's ``*Estimator`` canned classes took (TF
1.15's built the v1 heads of tensorflow-estimator's ``canned/head.py``, the loss
averaged over the batch by default), the early-stopping hooks, and in-graph
replication over towers (replicate_model_fn.py)."""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.canned.heads import (
    LogisticRegressionHead,
    PoissonRegressionHead,
    RegressionHead,
)
from estimator_revival.canned.v1 import head as v1_head
from estimator_revival.contrib.replicate_model_fn import (  # noqa: F401  (contrib's names)
    TowerOptimizer,
    replicate_model_fn,
)
from estimator_revival.engine.early_stopping import (  # noqa: F401  (tf.contrib.estimator's names)
    make_early_stopping_hook,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from estimator_revival.tf1.wrapped_optimizer import TransformGradients

_SUM_OVER_BATCH_SIZE = tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE


def clip_gradients_by_norm(optimizer, clip_norm) -> tf.compat.v1.train.Optimizer:
    """``optimizer`` with its gradients clipped by their global norm before they are
    applied (TF 1.15: ``tf.clip_by_global_norm(gradients, clip_norm)``)."""

    def clip(grads_and_vars):
        gradients, variables = zip(*grads_and_vars, strict=True)
        clipped, _ = tf.clip_by_global_norm(gradients, clip_norm)
        return list(zip(clipped, variables, strict=True))

    return TransformGradients(optimizer, clip, name="ClipByNorm" + optimizer.get_name())


def binary_classification_head(
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
) -> v1_head.V1Head:
    return v1_head.binary_head(
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
) -> v1_head.V1Head:
    return v1_head.multi_class_head(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        name=name,
    )


def multi_label_head(
    n_classes,
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    classes_for_class_based_metrics=None,
    name=None,
) -> v1_head.V1Head:
    return v1_head.multi_label_head(
        n_classes,
        weight_column=weight_column,
        thresholds=thresholds,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        classes_for_class_based_metrics=classes_for_class_based_metrics,
        name=name,
    )


def regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    inverse_link_fn=None,
    name=None,
) -> v1_head.V1Head:
    return v1_head.regression_head(
        RegressionHead,
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
) -> v1_head.V1Head:
    return v1_head.regression_head(
        PoissonRegressionHead,
        weight_column=weight_column,
        label_dimension=label_dimension,
        loss_reduction=loss_reduction,
        compute_full_loss=compute_full_loss,
        name=name,
    )


def logistic_regression_head(
    weight_column=None, loss_reduction=_SUM_OVER_BATCH_SIZE, name=None
) -> v1_head.V1Head:
    return v1_head.regression_head(
        LogisticRegressionHead,
        weight_column=weight_column,
        loss_reduction=loss_reduction,
        name=name,
    )
