"""``tf.estimator.RegressionHead``: squared error on ``label_dimension`` outputs;
and the two regression heads with their own loss and inverse link,
``PoissonRegressionHead`` and ``LogisticRegressionHead``."""

import tensorflow as tf
import tf_keras
from tensorflow.python.saved_model.model_utils import export_output

from estimator_revival.canned.heads import checks
from estimator_revival.canned.heads.head import Head, update_with_broadcast_weights
from estimator_revival.canned.keys import (
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)


class RegressionHead(Head):
    def __init__(
        self,
        label_dimension=1,
        weight_column=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        inverse_link_fn=None,
        name=None,
    ):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(
            weight_column=weight_column, loss_reduction=loss_reduction, loss_fn=loss_fn, name=name
        )
        self._label_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self) -> int:
        return self._label_dimension

    def _processed_labels(self, logits, labels):
        labels = checks.dense_labels(labels, logits, expected_dimension=self._label_dimension)
        return tf.cast(labels, dtype=tf.float32)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = checks.custom_loss(
                self._loss_fn, labels, logits, features, self._label_dimension
            )
        else:
            loss = tf.compat.v1.losses.mean_squared_error(
                labels=labels, predictions=logits, reduction=tf.compat.v1.losses.Reduction.NONE
            )
        weights = checks.example_weights(features, self._weight_column, logits, per_logit=True)
        return loss, weights

    def predictions(self, logits):
        logits = checks.logits_with_final_dim(logits, self._label_dimension)
        with tf.compat.v1.name_scope("predictions", values=(logits,)):
            if self._inverse_link_fn:
                return {
                    PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits),
                    PredictionKeys.LOGITS: logits,
                }
            return {PredictionKeys.PREDICTIONS: logits}

    def metrics(self, regularization_losses=None) -> dict:
        key = self._summary_key
        names = [MetricKeys.LOSS_MEAN, MetricKeys.PREDICTION_MEAN, MetricKeys.LABEL_MEAN]
        if regularization_losses is not None:
            names.append(MetricKeys.LOSS_REGULARIZATION)
        with tf.compat.v1.name_scope("metrics", values=(regularization_losses,)):
            return {key(name): tf_keras.metrics.Mean(name=name) for name in names}

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        key = self._summary_key
        predictions, _, _, weights = self._update_loss_mean(eval_metrics, features, logits, labels)
        predicted_value = predictions[PredictionKeys.PREDICTIONS]
        eval_metrics[key(MetricKeys.LABEL_MEAN)].update_state(values=labels, sample_weight=weights)
        update_with_broadcast_weights(
            eval_metrics[key(MetricKeys.PREDICTION_MEAN)], predicted_value, weights
        )
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics

    def _export_outputs(self, predictions) -> dict:
        regression = export_output.RegressionOutput(value=predictions[PredictionKeys.PREDICTIONS])
        return {
            DEFAULT_SERVING_KEY: regression,
            REGRESS_SERVING_KEY: regression,
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


class PoissonRegressionHead(RegressionHead):
    """Counts: the Poisson log loss on ``log(rate)`` logits, predictions ``exp``."""

    def __init__(
        self,
        label_dimension=1,
        weight_column=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        compute_full_loss=True,
        name=None,
    ):
        self._compute_full_loss = compute_full_loss
        super().__init__(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._poisson_loss,
            inverse_link_fn=tf.math.exp,
            name=name,
        )

    def _poisson_loss(self, labels, logits):
        return tf.nn.log_poisson_loss(
            targets=labels, log_input=logits, compute_full_loss=self._compute_full_loss
        )


class LogisticRegressionHead(RegressionHead):
    """Values in [0, 1]: sigmoid cross-entropy, predictions ``sigmoid``."""

    def __init__(
        self,
        weight_column=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        name=None,
    ):
        super().__init__(
            label_dimension=1,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._logistic_loss,
            inverse_link_fn=tf.math.sigmoid,
            name=name,
        )

    def _logistic_loss(self, labels, logits):
        labels = checks.labels_in_range(labels, 2, message="Labels must be in range [0, 1]")
        return tf.compat.v1.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
