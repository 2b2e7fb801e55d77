"""``tf.estimator.MultiClassHead``: softmax cross-entropy over ``n_classes`` logits."""

import tensorflow as tf
import tf_keras

from estimator_revival.canned.heads import checks, vocabulary
from estimator_revival.canned.heads.head import Head, add_class_predictions, classification_outputs
from estimator_revival.canned.keys import MetricKeys, PredictionKeys

_PREDICTIONS = (
    PredictionKeys.LOGITS,
    PredictionKeys.PROBABILITIES,
    PredictionKeys.CLASS_IDS,
    PredictionKeys.CLASSES,
    PredictionKeys.ALL_CLASS_IDS,
    PredictionKeys.ALL_CLASSES,
)


class MultiClassHead(Head):
    _PREDICTION_KEYS = _PREDICTIONS

    def __init__(
        self,
        n_classes,
        weight_column=None,
        label_vocabulary=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
    ):
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        vocabulary.validate(label_vocabulary)
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(
                '"label_vocabulary" does not have "n_classes" items. '
                f"len(label_vocabulary)={len(label_vocabulary)}, n_classes={n_classes}, "
                f"label_vocabulary={label_vocabulary}"
            )
        super().__init__(
            weight_column=weight_column, loss_reduction=loss_reduction, loss_fn=loss_fn, name=name
        )
        if isinstance(n_classes, int) and n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _processed_labels(self, logits, labels):
        labels = checks.dense_labels(labels, logits, expected_dimension=1)
        if self._label_vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
            label_ids = labels
        else:
            if labels.dtype != tf.string:
                raise ValueError(
                    "Labels dtype should be string if there is a vocabulary. "
                    f"Instead got {labels.dtype}"
                )
            label_ids = vocabulary.class_ids(self._label_vocabulary, labels)
        return checks.labels_in_range(label_ids, self._n_classes)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = checks.custom_loss(self._loss_fn, labels, logits, features, 1)
        else:
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
                labels=labels, logits=logits, reduction=tf.compat.v1.losses.Reduction.NONE
            )
            loss = tf.compat.v1.expand_dims(loss, axis=-1)
        weights = checks.example_weights(features, self._weight_column, logits)
        return loss, weights

    def _add_predictions(self, predictions: dict, logits, keys) -> None:
        if PredictionKeys.PROBABILITIES in keys:
            predictions[PredictionKeys.PROBABILITIES] = tf.compat.v1.nn.softmax(
                logits, name=PredictionKeys.PROBABILITIES
            )
        add_class_predictions(
            predictions,
            keys,
            class_logits=logits,
            logits=logits,
            n_classes=self._n_classes,
            label_vocabulary=self._label_vocabulary,
        )

    def metrics(self, regularization_losses=None) -> dict:
        key = self._summary_key
        with tf.compat.v1.name_scope("metrics", values=(regularization_losses,)):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): tf_keras.metrics.Mean(name=MetricKeys.LOSS_MEAN)
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = tf_keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
            eval_metrics[key(MetricKeys.ACCURACY)] = tf_keras.metrics.Accuracy(
                name=MetricKeys.ACCURACY
            )
        return eval_metrics

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        key = self._summary_key
        predictions, _, label_ids, weights = self._update_loss_mean(
            eval_metrics, features, logits, labels
        )
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        eval_metrics[key(MetricKeys.ACCURACY)].update_state(
            y_true=label_ids, y_pred=class_ids, sample_weight=weights
        )
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics

    def _export_outputs(self, predictions) -> dict:
        return classification_outputs(predictions, self._n_classes, self._label_vocabulary)
