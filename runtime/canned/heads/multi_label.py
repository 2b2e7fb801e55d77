"""``tf.estimator.MultiLabelHead``: any number of ``n_classes`` labels per example,
a sigmoid cross-entropy per class averaged over the classes."""

import tensorflow as tf
import tf_keras

from estimator_revival.canned.heads import checks, vocabulary
from estimator_revival.canned.heads.head import (
    Head,
    all_classes,
    classification_outputs,
    update_with_broadcast_weights,
)
from estimator_revival.canned.keys import MetricKeys, PredictionKeys

_PREDICTIONS = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASSES)
# The per-class metrics, by class id and by class name
_CLASS_METRICS = (
    (MetricKeys.PROBABILITY_MEAN_AT_CLASS, MetricKeys.PROBABILITY_MEAN_AT_NAME),
    (MetricKeys.AUC_AT_CLASS, MetricKeys.AUC_AT_NAME),
    (MetricKeys.AUC_PR_AT_CLASS, MetricKeys.AUC_PR_AT_NAME),
)


class MultiLabelHead(Head):
    """Labels are a multi-hot ``[batch, n_classes]`` tensor, or a SparseTensor of
    class ids (of class names with ``label_vocabulary``)."""

    _PREDICTION_KEYS = _PREDICTIONS

    def __init__(
        self,
        n_classes,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        classes_for_class_based_metrics=None,
        name=None,
    ):
        if n_classes is None or n_classes < 2:
            raise ValueError(
                f"n_classes must be > 1 for multi-label classification. Given: {n_classes}"
            )
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {threshold}")
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError(
                    "label_vocabulary must be a list or tuple. "
                    f"Given type: {type(label_vocabulary)}"
                )
            if len(label_vocabulary) != n_classes:
                raise ValueError(
                    f"Length of label_vocabulary must be n_classes ({n_classes}). "
                    f"Given: {len(label_vocabulary)}"
                )
        super().__init__(
            weight_column=weight_column, loss_reduction=loss_reduction, loss_fn=loss_fn, name=name
        )
        self._n_classes = n_classes
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._class_ids = _class_ids(classes_for_class_based_metrics, n_classes, label_vocabulary)

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _processed_labels(self, logits, labels):
        if labels is None:
            raise ValueError(checks.LABEL_NONE)
        if isinstance(labels, tf.sparse.SparseTensor):
            labels = self._indicator(labels)
        else:
            labels = checks.labels_in_range(
                labels,
                2,
                message="labels must be an integer indicator Tensor with values in [0, 1]",
            )
        return checks.dense_labels(labels, logits, expected_dimension=self.logits_dimension)

    def _indicator(self, labels: tf.sparse.SparseTensor):
        """Sparse class ids (or names) as a multi-hot int64 ``[batch, n_classes]``."""
        if labels.dtype == tf.string:
            ids = vocabulary.class_ids(self._label_vocabulary, labels.values)
            labels = tf.sparse.SparseTensor(labels.indices, ids, labels.dense_shape)
            return tf.cast(tf.sparse.to_indicator(labels, self._n_classes), tf.int64)
        if not labels.values.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.values.dtype}.")
        checked = checks.labels_in_range(
            labels.values,
            self._n_classes,
            message=f"labels must be an integer SparseTensor with values in [0, {self._n_classes})",
        )
        with tf.control_dependencies([checked]):
            return tf.cast(tf.sparse.to_indicator(labels, self._n_classes), tf.int64)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = checks.custom_loss(self._loss_fn, labels, logits, features, 1)
        else:
            loss = tf.compat.v1.losses.sigmoid_cross_entropy(
                multi_class_labels=labels,
                logits=logits,
                reduction=tf.compat.v1.losses.Reduction.NONE,
            )
            loss = tf.math.reduce_mean(loss, axis=-1, keepdims=True)
        weights = checks.example_weights(features, self._weight_column, logits)
        return loss, weights

    def _add_predictions(self, predictions: dict, logits, keys) -> None:
        if PredictionKeys.PROBABILITIES in keys:
            predictions[PredictionKeys.PROBABILITIES] = tf.math.sigmoid(
                logits, name=PredictionKeys.PROBABILITIES
            )
        if PredictionKeys.CLASSES in keys:
            predictions[PredictionKeys.CLASSES] = all_classes(
                logits, self._n_classes, self._label_vocabulary
            )

    # -- metric keys, as tensorflow-estimator named them ----------------------------

    def _threshold_keys(self, template: str) -> list[str]:
        return [self._summary_key(template % threshold) for threshold in self._thresholds]

    def metrics(self, regularization_losses=None) -> dict:
        key = self._summary_key
        with tf.compat.v1.name_scope(None, "metrics", (regularization_losses,)):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): tf_keras.metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.AUC): tf_keras.metrics.AUC(name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): tf_keras.metrics.AUC(curve="PR", name=MetricKeys.AUC_PR),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = tf_keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
            for threshold, accuracy, precision, recall in zip(
                self._thresholds,
                self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD),
                self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD),
                self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD),
                strict=True,
            ):
                eval_metrics[accuracy] = tf_keras.metrics.BinaryAccuracy(
                    name=accuracy, threshold=threshold
                )
                eval_metrics[precision] = tf_keras.metrics.Precision(
                    name=precision, thresholds=threshold
                )
                eval_metrics[recall] = tf_keras.metrics.Recall(name=recall, thresholds=threshold)
            for probability_mean, auc, auc_pr in self._class_metric_keys():
                eval_metrics[probability_mean] = tf_keras.metrics.Mean(name=probability_mean)
                eval_metrics[auc] = tf_keras.metrics.AUC(name=auc)
                eval_metrics[auc_pr] = tf_keras.metrics.AUC(curve="PR", name=auc_pr)
        return eval_metrics

    def class_metric_names(self, class_id: int) -> tuple[str, ...]:
        """A class's probability mean, AUC and PR AUC names: by its vocabulary
        entry, or by its id."""
        if self._label_vocabulary is None:
            return tuple(by_id % class_id for by_id, _ in _CLASS_METRICS)
        name = self._label_vocabulary[class_id]
        return tuple(by_name % name for _, by_name in _CLASS_METRICS)

    def _class_metric_keys(self) -> list[tuple[str, ...]]:
        return [
            tuple(self._summary_key(name) for name in self.class_metric_names(class_id))
            for class_id in self._class_ids
        ]

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        key = self._summary_key
        predictions, _, labels, weights = self._update_loss_mean(
            eval_metrics, features, logits, labels
        )
        probabilities = predictions[PredictionKeys.PROBABILITIES]
        for name in (key(MetricKeys.AUC), key(MetricKeys.AUC_PR)):
            eval_metrics[name].update_state(
                y_true=labels, y_pred=probabilities, sample_weight=weights
            )
        self._update_regularization_metric(eval_metrics, regularization_losses)
        for names in zip(
            self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD),
            self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD),
            self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD),
            strict=True,
        ):
            for name in names:
                eval_metrics[name].update_state(
                    y_true=labels, y_pred=probabilities, sample_weight=weights
                )
        for class_id, (probability_mean, auc, auc_pr) in zip(
            self._class_ids, self._class_metric_keys(), strict=True
        ):
            class_probabilities = class_slice(probabilities, class_id)
            class_labels = class_slice(labels, class_id)
            update_with_broadcast_weights(
                eval_metrics[probability_mean], class_probabilities, weights
            )
            for name in (auc, auc_pr):
                eval_metrics[name].update_state(
                    y_true=class_labels, y_pred=class_probabilities, sample_weight=weights
                )
        return eval_metrics

    def _export_outputs(self, predictions) -> dict:
        return classification_outputs(predictions, self._n_classes, self._label_vocabulary)


def _class_ids(classes, n_classes: int, label_vocabulary) -> tuple[int, ...]:
    """``classes_for_class_based_metrics`` as class ids (names looked up)."""
    if not classes:
        return ()
    classes = tuple(classes)
    if isinstance(classes[0], str):
        if not label_vocabulary:
            raise ValueError(
                "label_vocabulary must be provided when classes_for_class_based_metrics "
                "are strings."
            )
        return tuple(label_vocabulary.index(name) for name in classes)
    for class_id in classes:
        if class_id < 0 or class_id >= n_classes:
            raise ValueError(
                f"All classes_for_class_based_metrics must be in range [0, {n_classes - 1}]. "
                f"Given: {class_id}"
            )
    return classes


def class_slice(values, class_id: int):
    """``values[..., class_id:class_id + 1]`` for any batch rank."""
    batch_rank = tf.rank(values) - 1
    begin = tf.concat([tf.zeros([batch_rank], dtype=tf.int32), [class_id]], axis=0)
    size = tf.concat([-1 * tf.ones([batch_rank], dtype=tf.int32), [1]], axis=0)
    return tf.slice(values, begin=begin, size=size)
