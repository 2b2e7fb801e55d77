"""The names TF 1 code imported from tensorflow-estimator's private canned modules:
the keys (``canned.metric_keys.MetricKeys``, ``canned.prediction_keys.PredictionKeys``),
TF 1's head interface that custom heads subclassed (``canned.head._Head``), the head
factories of ``canned.head`` and the optimizer helper
(``canned.optimizers.get_optimizer_instance``), under the names they had: ``migrate``
maps those modules here."""

import inspect

import tensorflow as tf

from estimator_revival.canned.keys import MetricKeys, PredictionKeys
from estimator_revival.canned.v1.head import Head as _Head
from estimator_revival.canned.v1.head import classification_head
from estimator_revival.canned.v1.optimizers import get_optimizer_instance
from estimator_revival.contrib import estimator as contrib_estimator


def _summed_by_default(factory):
    """``factory`` (a ``tf.contrib.estimator`` head factory) with the loss summed
    unless the call says otherwise: TF 1.15's contrib factories called these private
    ones, with the loss averaged over the batch instead."""
    signature = inspect.signature(factory)

    def summed(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs).arguments
        arguments.setdefault("loss_reduction", tf.compat.v1.losses.Reduction.SUM)
        return factory(**arguments)

    summed.__signature__ = signature.replace(
        parameters=[
            parameter.replace(default=tf.compat.v1.losses.Reduction.SUM)
            if name == "loss_reduction"
            else parameter
            for name, parameter in signature.parameters.items()
        ]
    )
    return summed


_binary_logistic_head_with_sigmoid_cross_entropy_loss = _summed_by_default(
    contrib_estimator.binary_classification_head
)
_multi_class_head_with_softmax_cross_entropy_loss = _summed_by_default(
    contrib_estimator.multi_class_head
)
_regression_head = _summed_by_default(contrib_estimator.regression_head)
# (n_classes, weight_column, label_vocabulary, loss_reduction): binary or multi-class
_binary_logistic_or_multi_class_head = classification_head

__all__ = [
    "MetricKeys",
    "PredictionKeys",
    "_Head",
    "_binary_logistic_head_with_sigmoid_cross_entropy_loss",
    "_binary_logistic_or_multi_class_head",
    "_multi_class_head_with_softmax_cross_entropy_loss",
    "_regression_head",
    "get_optimizer_instance",
]
