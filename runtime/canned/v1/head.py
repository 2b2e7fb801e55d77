"""The heads of the TF 1 canned estimators (tensorflow-estimator's ``canned/head.py``).

A TF 1 head computes labels, the loss per example, predictions and export
signatures as the TF 2 head of its kind does, so it wraps one for those. What is
TF 1's own: the loss reduced by ``tf.compat.v1.losses`` (``SUM`` by default), v1
metrics, ``optimizer.minimize(loss, global_step)`` followed by the ``UPDATE_OPS``
collection, and a mean-loss summary next to the loss's when the loss is summed.
"""

from typing import NamedTuple

import tensorflow as tf
import tf_keras

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.canned.heads import (
    BinaryClassHead,
    MultiClassHead,
    MultiLabelHead,
    RegressionHead,
    checks,
)
from estimator_revival.canned.heads.multi_label import class_slice
from estimator_revival.canned.keys import MetricKeys, PredictionKeys

_LOSS_REDUCTION = tf.compat.v1.losses.Reduction


class LossSpec(NamedTuple):
    """What ``create_loss`` returns, as TF 1's heads named it."""

    training_loss: tf.Tensor
    unreduced_loss: tf.Tensor
    weights: tf.Tensor | float
    processed_labels: tf.Tensor


class Head:
    """TF 1's head interface (tensorflow-estimator's private ``canned.head._Head``),
    which custom heads subclassed: ``name``, ``logits_dimension``, ``create_loss``
    and ``create_estimator_spec``, or ``_create_tpu_estimator_spec``, which the
    default ``create_estimator_spec`` turns into an ``EstimatorSpec``. As in
    TensorFlow, a subclass is not required to define them (the interface's
    ``__metaclass__ = abc.ABCMeta`` was Python 2's, ignored by Python 3): calling
    one it lacks raises NotImplementedError."""

    @property
    def name(self):
        raise NotImplementedError("Calling an abstract method.")

    @property
    def logits_dimension(self):
        raise NotImplementedError("Calling an abstract method.")

    def create_loss(self, features, mode, logits, labels):
        raise NotImplementedError("Calling an abstract method.")

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ) -> EstimatorSpec:
        try:
            tpu_estimator_spec = self._create_tpu_estimator_spec(
                features, mode, logits, labels, optimizer, train_op_fn, regularization_losses
            )
            return tpu_estimator_spec.as_estimator_spec()
        except NotImplementedError:
            raise NotImplementedError(
                "Subclasses of _Head must implement `create_estimator_spec()` or "
                "_create_tpu_estimator_spec()."
            ) from None

    def _create_tpu_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")


class V1Head(Head):
    """A TF 1 head: ``head`` (a TF 2 head of the same kind) for labels, the loss per
    example and predictions; the rest as TF 1 did it."""

    def __init__(self, head, *, loss_reduction=_LOSS_REDUCTION.SUM):
        if loss_reduction not in _LOSS_REDUCTION.all() or loss_reduction == _LOSS_REDUCTION.NONE:
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        self._head = head
        self._loss_reduction = loss_reduction

    @property
    def name(self):
        return self._head.name

    @property
    def logits_dimension(self):
        return self._head.logits_dimension

    @property
    def _weight_column(self):
        return self._head._weight_column

    def _summary_key(self, key: str) -> str:
        return f"{key}/{self.name}" if self.name else key

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        del mode  # the same in every mode
        logits = tf.convert_to_tensor(logits)
        labels = self._head._processed_labels(logits, labels)
        unreduced_loss, weights = self._head._unweighted_loss_and_weights(logits, labels, features)
        training_loss = tf.compat.v1.losses.compute_weighted_loss(
            unreduced_loss, weights=weights, reduction=self._loss_reduction
        )
        return LossSpec(training_loss, unreduced_loss, weights, labels)

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ) -> EstimatorSpec:
        """The spec of ``mode``; in TRAIN, ``optimizer.minimize`` (a v1 optimizer)
        with the global step, or ``train_op_fn(loss)``, builds the train op."""
        with tf.compat.v1.name_scope(self.name, "head"):
            logits = checks.logits_with_final_dim(logits, self.logits_dimension)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._head._export_outputs(predictions),
                )
            training_loss, unreduced_loss, weights, processed_labels = self.create_loss(
                features, mode, logits, labels
            )
            regularization_loss = None
            loss = training_loss
            if regularization_losses:
                regularization_loss = tf.math.add_n(regularization_losses)
                loss = tf.math.add_n([training_loss, regularization_loss])
            if mode == ModeKeys.TRAIN:
                train_op = _train_op(loss, optimizer, train_op_fn)
                mean_loss = None
                if self._loss_reduction == _LOSS_REDUCTION.SUM:
                    weight_sum = tf.math.reduce_sum(
                        weights * tf.compat.v1.ones_like(unreduced_loss)
                    )
                    mean_loss = training_loss / weight_sum
        if mode == ModeKeys.EVAL:
            with tf.compat.v1.name_scope(None, "metrics"):
                eval_metric_ops = self._eval_metric_ops(
                    processed_labels, predictions, weights, unreduced_loss
                )
                if regularization_loss is not None:
                    eval_metric_ops[self._summary_key(MetricKeys.LOSS_REGULARIZATION)] = (
                        tf.compat.v1.metrics.mean(
                            values=regularization_loss, name=MetricKeys.LOSS_REGULARIZATION
                        )
                    )
            return EstimatorSpec(
                mode=mode, predictions=predictions, loss=loss, eval_metric_ops=eval_metric_ops
            )
        with tf.compat.v1.name_scope(""):
            tf.compat.v1.summary.scalar(self._summary_key(MetricKeys.LOSS), loss)
            if mean_loss is not None:
                tf.compat.v1.summary.scalar(self._summary_key(MetricKeys.LOSS_MEAN), mean_loss)
            if regularization_loss is not None:
                tf.compat.v1.summary.scalar(
                    self._summary_key(MetricKeys.LOSS_REGULARIZATION), regularization_loss
                )
        return EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op)

    def _eval_metric_ops(self, labels, predictions, weights, unreduced_loss) -> dict:
        raise NotImplementedError

    def _predictions(self, logits) -> dict:
        """The predictions TF 1's head of this kind made: the TF 2 head's."""
        return self._head.predictions(logits)

    def _loss_mean(self, unreduced_loss, weights) -> dict:
        """``average_loss``: the weighted mean of the loss per example."""
        return {
            self._summary_key(MetricKeys.LOSS_MEAN): tf.compat.v1.metrics.mean(
                values=unreduced_loss, weights=weights, name=MetricKeys.LOSS_MEAN
            )
        }


def _train_op(loss, optimizer, train_op_fn):
    if optimizer is not None:
        if train_op_fn is not None:
            raise ValueError("train_op_fn and optimizer cannot both be set.")
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    elif train_op_fn is not None:
        train_op = train_op_fn(loss)
    else:
        raise ValueError("train_op_fn and optimizer cannot both be None.")
    update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    return tf.group(train_op, *update_ops) if update_ops else train_op


class _BinaryHead(V1Head):
    def _eval_metric_ops(self, labels, predictions, weights, unreduced_loss) -> dict:
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        logistic = predictions[PredictionKeys.LOGISTIC]
        return {
            **self._main_metric_ops(labels, class_ids, logistic, weights, unreduced_loss),
            **_threshold_metric_ops(
                self._head._thresholds, self._summary_key, labels, logistic, weights
            ),
        }

    def _main_metric_ops(self, labels, class_ids, logistic, weights, unreduced_loss) -> dict:
        key = self._summary_key
        metrics = tf.compat.v1.metrics
        labels_mean = _mean_of(labels, weights, name=MetricKeys.LABEL_MEAN)
        return {
            **self._loss_mean(unreduced_loss, weights),
            key(MetricKeys.ACCURACY): metrics.accuracy(
                labels=labels, predictions=class_ids, weights=weights, name=MetricKeys.ACCURACY
            ),
            key(MetricKeys.PRECISION): metrics.precision(
                labels=labels, predictions=class_ids, weights=weights, name=MetricKeys.PRECISION
            ),
            key(MetricKeys.RECALL): metrics.recall(
                labels=labels, predictions=class_ids, weights=weights, name=MetricKeys.RECALL
            ),
            key(MetricKeys.PREDICTION_MEAN): _mean_of(
                logistic, weights, name=MetricKeys.PREDICTION_MEAN
            ),
            key(MetricKeys.LABEL_MEAN): labels_mean,
            key(MetricKeys.ACCURACY_BASELINE): _accuracy_baseline(labels_mean),
            key(MetricKeys.AUC): _auc(labels, logistic, weights, "ROC", name=MetricKeys.AUC),
            key(MetricKeys.AUC_PR): _auc(labels, logistic, weights, "PR", name=MetricKeys.AUC_PR),
        }


def _threshold_metric_ops(thresholds, key, labels, predictions, weights) -> dict:
    """Accuracy, precision and recall of predicting a positive (a probability at
    or above the threshold) at each of ``thresholds``, under ``key(name)``."""
    metric_ops = {}
    for threshold in thresholds:
        accuracy = MetricKeys.ACCURACY_AT_THRESHOLD % threshold
        with tf.compat.v1.name_scope(accuracy, values=(predictions, labels, weights)) as scope:
            above = tf.cast(tf.math.greater_equal(predictions, threshold), tf.float32)
            metric_ops[key(accuracy)] = tf.compat.v1.metrics.accuracy(
                labels=labels, predictions=above, weights=weights, name=scope
            )
        for template, metric in (
            (MetricKeys.PRECISION_AT_THRESHOLD, tf.compat.v1.metrics.precision_at_thresholds),
            (MetricKeys.RECALL_AT_THRESHOLD, tf.compat.v1.metrics.recall_at_thresholds),
        ):
            name = template % threshold
            with tf.compat.v1.name_scope(name, values=(predictions, labels, weights)) as scope:
                value, update = metric(
                    labels=labels,
                    predictions=predictions,
                    thresholds=(threshold,),
                    weights=weights,
                    name=scope,
                )
                metric_ops[key(name)] = (tf.compat.v1.squeeze(value), tf.compat.v1.squeeze(update))
    return metric_ops


class _MultiLabelHead(V1Head):
    """TF 1.15's ``tf.contrib.estimator.multi_label_head``: logits and probabilities
    only (no class names), v1 metrics over every class and per chosen class."""

    def _predictions(self, logits) -> dict:
        keys = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES)
        return self._head.predictions(logits, keys=keys)

    def _eval_metric_ops(self, labels, predictions, weights, unreduced_loss) -> dict:
        key = self._summary_key
        metrics = tf.compat.v1.metrics
        probabilities = predictions[PredictionKeys.PROBABILITIES]
        return {
            **self._loss_mean(unreduced_loss, weights),
            key(MetricKeys.AUC): metrics.auc(
                labels=labels, predictions=probabilities, weights=weights, name=MetricKeys.AUC
            ),
            key(MetricKeys.AUC_PR): metrics.auc(
                labels=labels,
                predictions=probabilities,
                weights=weights,
                curve="PR",
                name=MetricKeys.AUC_PR,
            ),
            **_threshold_metric_ops(self._head._thresholds, key, labels, probabilities, weights),
            **self._class_metric_ops(labels, probabilities, weights),
        }

    def _class_metric_ops(self, labels, probabilities, weights) -> dict:
        """The mean probability, AUC and PR AUC of each class the head was given."""
        key = self._summary_key
        metric_ops = {}
        for class_id in self._head._class_ids:
            class_probabilities = class_slice(probabilities, class_id)
            class_labels = class_slice(labels, class_id)
            mean, auc, auc_pr = self._head.class_metric_names(class_id)
            metric_ops[key(mean)] = _mean_of(class_probabilities, weights, name=mean)
            metric_ops[key(auc)] = _auc(class_labels, class_probabilities, weights, "ROC", name=auc)
            metric_ops[key(auc_pr)] = _auc(
                class_labels, class_probabilities, weights, "PR", name=auc_pr
            )
        return metric_ops


class _MultiClassHead(V1Head):
    def _eval_metric_ops(self, labels, predictions, weights, unreduced_loss) -> dict:
        key = self._summary_key
        metrics = tf.compat.v1.metrics
        return {
            **self._loss_mean(unreduced_loss, weights),
            key(MetricKeys.ACCURACY): metrics.accuracy(
                labels=labels,
                predictions=predictions[PredictionKeys.CLASS_IDS],
                weights=weights,
                name=MetricKeys.ACCURACY,
            ),
        }


class _RegressionHead(V1Head):
    def _eval_metric_ops(self, labels, predictions, weights, unreduced_loss) -> dict:
        key = self._summary_key
        metrics = tf.compat.v1.metrics
        return {
            key(MetricKeys.LOSS_MEAN): metrics.mean(values=unreduced_loss, weights=weights),
            key(MetricKeys.PREDICTION_MEAN): _mean_of(
                predictions[PredictionKeys.PREDICTIONS], weights, name=MetricKeys.PREDICTION_MEAN
            ),
            key(MetricKeys.LABEL_MEAN): metrics.mean(values=labels, weights=weights),
        }


def _mean_of(values, weights, *, name: str):
    """The weighted mean of ``values`` as float32 (weights broadcast to them)."""
    with tf.compat.v1.name_scope(name, values=(values, weights)) as scope:
        values = tf.cast(values, dtype=tf.float32)
        if weights is not None:
            weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, values)
        return tf.compat.v1.metrics.mean(values, weights=weights, name=scope)


def _accuracy_baseline(labels_mean):
    """Always predicting the more frequent class: max(mean, 1 - mean)."""
    with tf.compat.v1.name_scope(None, "accuracy_baseline", labels_mean):
        value, update_op = labels_mean
        return (
            tf.math.maximum(value, 1.0 - value, name="value"),
            tf.math.maximum(update_op, 1 - update_op, name="update_op"),
        )


def _auc(labels, predictions, weights, curve: str, *, name: str):
    with tf.compat.v1.name_scope(name, values=(predictions, labels, weights)) as scope:
        predictions = tf.cast(predictions, dtype=tf.float32)
        if weights is not None:
            weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, predictions)
        return tf.compat.v1.metrics.auc(
            labels=labels, predictions=predictions, weights=weights, curve=curve, name=scope
        )


# The TF 2 heads this module wraps validate a Keras loss reduction, which they do
# not use here: the TF 1 head reduces the loss itself.
_UNUSED_REDUCTION = tf_keras.losses.Reduction.SUM


def binary_head(*, label_vocabulary=None, loss_reduction=_LOSS_REDUCTION.SUM, **arguments):
    """TF 1's binary head: sigmoid cross-entropy on one logit (``arguments``: the
    TF 2 ``BinaryClassHead``'s others)."""
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise TypeError(
            f"label_vocabulary should be a list or tuple. Given type: {type(label_vocabulary)}"
        )
    head = BinaryClassHead(
        label_vocabulary=label_vocabulary, loss_reduction=_UNUSED_REDUCTION, **arguments
    )
    return _BinaryHead(head, loss_reduction=loss_reduction)


def multi_class_head(n_classes, *, loss_reduction=_LOSS_REDUCTION.SUM, **arguments):
    """TF 1's multi-class head: softmax cross-entropy over ``n_classes`` logits."""
    head = MultiClassHead(n_classes, loss_reduction=_UNUSED_REDUCTION, **arguments)
    return _MultiClassHead(head, loss_reduction=loss_reduction)


def multi_label_head(n_classes, *, loss_reduction=_LOSS_REDUCTION.SUM, **arguments):
    """TF 1.15's multi-label head: a sigmoid cross-entropy per class, averaged over
    the ``n_classes`` classes (``arguments``: the TF 2 ``MultiLabelHead``'s others)."""
    if n_classes is None or n_classes < 2:
        raise ValueError(
            f"n_classes must be > 1 for multi-class classification. Given: {n_classes}"
        )
    head = MultiLabelHead(n_classes, loss_reduction=_UNUSED_REDUCTION, **arguments)
    return _MultiLabelHead(head, loss_reduction=loss_reduction)


def regression_head(kind=RegressionHead, *, loss_reduction=_LOSS_REDUCTION.SUM, **arguments):
    """TF 1's regression head of ``kind`` (the TF 2 regression head computing its
    loss per example and predictions: squared error, Poisson, logistic)."""
    head = kind(loss_reduction=_UNUSED_REDUCTION, **arguments)
    return _RegressionHead(head, loss_reduction=loss_reduction)


def classification_head(
    n_classes, weight_column, label_vocabulary, loss_reduction=_LOSS_REDUCTION.SUM
) -> V1Head:
    """A TF 1 classifier's head: binary for two classes, multi-class otherwise."""
    if n_classes == 2:
        return binary_head(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return multi_class_head(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )
