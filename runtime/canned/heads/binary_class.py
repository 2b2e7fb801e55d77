"""``tf.estimator.BinaryClassHead``: sigmoid cross-entropy on one logit."""

import tensorflow as tf
import tf_keras
from tensorflow.python.saved_model.model_utils import export_output

from estimator_revival.canned.heads import checks, vocabulary
from estimator_revival.canned.heads.head import (
    Head,
    add_class_predictions,
    all_classes,
    update_with_broadcast_weights,
)
from estimator_revival.canned.keys import (
    CLASSIFY_SERVING_KEY,
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)

_PREDICTIONS = (
    PredictionKeys.LOGITS,
    PredictionKeys.LOGISTIC,
    PredictionKeys.PROBABILITIES,
    PredictionKeys.CLASS_IDS,
    PredictionKeys.CLASSES,
    PredictionKeys.ALL_CLASS_IDS,
    PredictionKeys.ALL_CLASSES,
)


class BinaryClassHead(Head):
    logits_dimension = 1
    _PREDICTION_KEYS = _PREDICTIONS

    def __init__(
        self,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
    ):
        vocabulary.validate(label_vocabulary)
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds not in (0, 1): {(thresholds,)}.")
        super().__init__(
            weight_column=weight_column, loss_reduction=loss_reduction, loss_fn=loss_fn, name=name
        )
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary

    def _processed_labels(self, logits, labels):
        labels = checks.dense_labels(labels, logits, expected_dimension=1)
        if self._label_vocabulary is not None:
            labels = vocabulary.class_ids(self._label_vocabulary, labels)
        labels = tf.cast(labels, dtype=tf.float32)
        return checks.labels_in_range(labels, n_classes=2)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = checks.custom_loss(self._loss_fn, labels, logits, features, 1)
        else:
            loss = tf.compat.v1.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        weights = checks.example_weights(features, self._weight_column, logits)
        return loss, weights

    def _add_predictions(self, predictions: dict, logits, keys) -> None:
        if PredictionKeys.LOGISTIC in keys:
            predictions[PredictionKeys.LOGISTIC] = tf.math.sigmoid(
                logits, name=PredictionKeys.LOGISTIC
            )
        two_class_logits = tf.concat(
            (tf.compat.v1.zeros_like(logits), logits), axis=-1, name="two_class_logits"
        )
        if PredictionKeys.PROBABILITIES in keys:
            predictions[PredictionKeys.PROBABILITIES] = tf.compat.v1.nn.softmax(
                two_class_logits, name=PredictionKeys.PROBABILITIES
            )
        add_class_predictions(
            predictions,
            keys,
            class_logits=two_class_logits,
            logits=logits,
            n_classes=2,
            label_vocabulary=self._label_vocabulary,
        )

    def _threshold_keys(self, pattern: str) -> list[str]:
        return [self._summary_key(pattern % threshold) for threshold in self._thresholds]

    def metrics(self, regularization_losses=None) -> dict:
        key = self._summary_key
        metrics = tf_keras.metrics
        with tf.compat.v1.name_scope("metrics", values=(regularization_losses,)):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.ACCURACY): metrics.Accuracy(name=MetricKeys.ACCURACY),
                key(MetricKeys.PRECISION): metrics.Precision(name=MetricKeys.PRECISION),
                key(MetricKeys.RECALL): metrics.Recall(name=MetricKeys.RECALL),
                key(MetricKeys.PREDICTION_MEAN): metrics.Mean(name=MetricKeys.PREDICTION_MEAN),
                key(MetricKeys.LABEL_MEAN): metrics.Mean(name=MetricKeys.LABEL_MEAN),
                key(MetricKeys.ACCURACY_BASELINE): metrics.Mean(name=MetricKeys.ACCURACY_BASELINE),
                key(MetricKeys.AUC): metrics.AUC(name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): metrics.AUC(curve="PR", name=MetricKeys.AUC_PR),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
            at_thresholds = zip(
                self._thresholds,
                self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD),
                self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD),
                self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD),
                strict=True,
            )
            for threshold, accuracy, precision, recall in at_thresholds:
                eval_metrics[accuracy] = metrics.BinaryAccuracy(name=accuracy, threshold=threshold)
                eval_metrics[precision] = metrics.Precision(name=precision, thresholds=threshold)
                eval_metrics[recall] = metrics.Recall(name=recall, thresholds=threshold)
        return eval_metrics

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        key = self._summary_key
        predictions, logits, labels, weights = self._update_loss_mean(
            eval_metrics, features, logits, labels
        )
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        for name in (MetricKeys.ACCURACY, MetricKeys.PRECISION, MetricKeys.RECALL):
            eval_metrics[key(name)].update_state(
                y_true=labels, y_pred=class_ids, sample_weight=weights
            )
        logistic = self.predictions(logits, [PredictionKeys.LOGISTIC])[PredictionKeys.LOGISTIC]
        update_with_broadcast_weights(
            eval_metrics[key(MetricKeys.PREDICTION_MEAN)], logistic, weights
        )
        update_with_broadcast_weights(eval_metrics[key(MetricKeys.LABEL_MEAN)], labels, weights)
        self._update_accuracy_baseline(eval_metrics)
        for name in (MetricKeys.AUC, MetricKeys.AUC_PR):
            _update_auc(eval_metrics[key(name)], labels, logistic, weights)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        threshold_keys = (
            self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD)
            + self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD)
            + self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD)
        )
        for threshold_key in _interleaved(threshold_keys, len(self._thresholds)):
            eval_metrics[threshold_key].update_state(
                y_true=labels, y_pred=logistic, sample_weight=weights
            )
        return eval_metrics

    def _update_accuracy_baseline(self, eval_metrics) -> None:
        """The accuracy of always predicting the more frequent class, made from the
        label mean's total and count: max(total, count - total) / count."""
        label_mean = eval_metrics[self._summary_key(MetricKeys.LABEL_MEAN)]
        baseline = eval_metrics[self._summary_key(MetricKeys.ACCURACY_BASELINE)]
        baseline.add_update(tf.no_op())
        baseline.total = tf.math.maximum(label_mean.total, label_mean.count - label_mean.total)
        baseline.count = label_mean.count

    def _export_outputs(self, predictions) -> dict:
        classification = export_output.ClassificationOutput(
            scores=predictions[PredictionKeys.PROBABILITIES],
            classes=all_classes(
                predictions[PredictionKeys.PROBABILITIES], 2, self._label_vocabulary
            ),
        )
        return {
            DEFAULT_SERVING_KEY: classification,
            CLASSIFY_SERVING_KEY: classification,
            REGRESS_SERVING_KEY: export_output.RegressionOutput(
                value=predictions[PredictionKeys.LOGISTIC]
            ),
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


def _update_auc(metric, labels, predictions, weights) -> None:
    predictions = tf.cast(predictions, dtype=tf.float32)
    if weights is not None:
        weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, predictions)
    metric.update_state(y_true=labels, y_pred=predictions, sample_weight=weights)


def _interleaved(keys: list[str], count: int) -> list[str]:
    """accuracy/precision/recall keys per threshold, in the order TF updated them."""
    return [keys[kind * count + index] for index in range(count) for kind in range(3)]
