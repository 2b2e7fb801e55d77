"""What every head does: a loss from logits and labels, and the EstimatorSpec of
each mode (predictions and signatures, the eval metrics, the train op and the loss
summary). Subclasses say how labels become a loss, which predictions, metrics and
export outputs they have."""

import tensorflow as tf
import tf_keras
from tensorflow.python.saved_model.model_utils import export_output

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.canned.heads import checks, vocabulary
from estimator_revival.canned.keys import (
    CLASSIFY_SERVING_KEY,
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)


class Head:
    """A canned estimator's head (``tf.estimator.Head``, TF 2 flavour)."""

    logits_dimension: int

    def __init__(self, *, weight_column, loss_reduction, loss_fn, name):
        checks.validate_loss_reduction(loss_reduction)
        if loss_fn:
            checks.validate_loss_fn(loss_fn)
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def loss_reduction(self):
        return self._loss_reduction

    def _summary_key(self, key: str) -> str:
        return f"{key}/{self._name}" if self._name else key

    # -- what subclasses define --------------------------------------------------

    def _processed_labels(self, logits, labels):
        raise NotImplementedError

    def _unweighted_loss_and_weights(self, logits, labels, features):
        raise NotImplementedError

    _PREDICTION_KEYS: tuple[str, ...] = ()  # what predictions() gives by default

    def predictions(self, logits, keys=None):
        """The predictions named in ``keys`` (by default all the head has)."""
        keys = keys or self._PREDICTION_KEYS
        logits = checks.logits_with_final_dim(logits, self.logits_dimension)
        with tf.compat.v1.name_scope("predictions", values=(logits,)):
            predictions = {PredictionKeys.LOGITS: logits} if PredictionKeys.LOGITS in keys else {}
            self._add_predictions(predictions, logits, keys)
            return predictions

    def _add_predictions(self, predictions: dict, logits, keys) -> None:
        """Adds the head's predictions but the logits."""
        raise NotImplementedError

    def metrics(self, regularization_losses=None) -> dict:
        raise NotImplementedError

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        raise NotImplementedError

    def _export_outputs(self, predictions) -> dict:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The training loss, reduced as ``loss_reduction`` says, plus regularization."""
        del mode  # the same in every mode
        with tf.compat.v1.name_scope(
            "losses", values=(logits, labels, regularization_losses, features)
        ):
            logits = checks.logits_with_final_dim(logits, self.logits_dimension)
            labels = self._processed_labels(logits, labels)
            unweighted_loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
            training_loss = tf_keras.__internal__.losses.compute_weighted_loss(
                unweighted_loss, sample_weight=weights, reduction=self._loss_reduction
            )
            if regularization_losses is None:
                return training_loss
            return training_loss + tf.math.add_n(regularization_losses)

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ) -> EstimatorSpec:
        """The spec of ``mode``; in TRAIN, ``optimizer`` (a Keras optimizer) minimizes
        the loss over ``trainable_variables``, or ``train_op_fn(loss)`` builds the op."""
        with tf.compat.v1.name_scope(self._name, "head"):
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._export_outputs(predictions),
                )
            loss = self.loss(
                logits=logits,
                labels=labels,
                features=features,
                mode=mode,
                regularization_losses=regularization_losses,
            )
            if mode == ModeKeys.EVAL:
                eval_metrics = self.metrics(regularization_losses=regularization_losses)
            else:
                train_op = train_op_for(
                    loss,
                    optimizer=optimizer,
                    train_op_fn=train_op_fn,
                    update_ops=update_ops,
                    trainable_variables=trainable_variables,
                    loss_reduction=self._loss_reduction,
                )
        if mode == ModeKeys.EVAL:
            eval_metric_ops = self.update_metrics(
                eval_metrics, features, logits, labels, regularization_losses
            )
            return EstimatorSpec(
                mode=mode, predictions=predictions, loss=loss, eval_metric_ops=eval_metric_ops
            )
        loss_summaries(loss, regularization_losses, summary_key=self._summary_key)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op)

    def _update_loss_mean(self, eval_metrics, features, logits, labels):
        """What every head's update_metrics starts with: adds the batch's unweighted
        loss to ``average_loss``; returns the predictions, the checked logits, the
        processed labels and the example weights."""
        predictions = self.predictions(logits)
        logits = checks.logits_with_final_dim(logits, self.logits_dimension)
        processed_labels = self._processed_labels(logits, labels)
        unweighted_loss, weights = self._unweighted_loss_and_weights(
            logits, processed_labels, features
        )
        eval_metrics[self._summary_key(MetricKeys.LOSS_MEAN)].update_state(
            values=unweighted_loss, sample_weight=weights
        )
        return predictions, logits, processed_labels, weights

    def _update_regularization_metric(self, eval_metrics, regularization_losses) -> None:
        if regularization_losses is not None:
            eval_metrics[self._summary_key(MetricKeys.LOSS_REGULARIZATION)].update_state(
                values=tf.math.add_n(regularization_losses)
            )


def loss_summaries(loss, regularization_losses, *, summary_key=lambda key: key) -> None:
    """The training loss's summary (and the regularization's), outside any name scope."""
    with tf.compat.v1.name_scope(""):
        tf.compat.v1.summary.scalar(summary_key(MetricKeys.LOSS), loss)
        if regularization_losses is not None:
            tf.compat.v1.summary.scalar(
                summary_key(MetricKeys.LOSS_REGULARIZATION), tf.math.add_n(regularization_losses)
            )


def train_op_for(loss, *, optimizer, train_op_fn, update_ops, trainable_variables, loss_reduction):
    """``optimizer`` minimizing ``loss`` over ``trainable_variables`` (averaged over
    replicas when the loss is), or ``train_op_fn(loss)``; then ``update_ops``."""
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops should be a list or a tuple. Given type: {type(update_ops)}.")
    with tf.compat.v1.name_scope(""), tf.compat.v1.name_scope("training"):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            _validate_optimizer(optimizer)
            _validate_trainable_variables(trainable_variables)
            if loss_reduction == tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE:
                replicas = tf.distribute.get_strategy().num_replicas_in_sync
                if replicas > 1:
                    loss *= 1.0 / replicas
            train_op = optimizer.get_updates(loss, trainable_variables)[0]
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops is not None:
            train_op = tf.group(train_op, *update_ops)
        return train_op


def _validate_optimizer(optimizer) -> None:
    if not isinstance(
        optimizer, tf_keras.optimizers.Optimizer | tf_keras.optimizers.legacy.Optimizer
    ):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
            f"Received optimizer of type {type(optimizer)}"
        )


def _validate_trainable_variables(trainable_variables) -> None:
    if trainable_variables is None:
        raise ValueError(f"trainable_variables cannot be None. Given {trainable_variables}")
    if not isinstance(trainable_variables, (list, tuple)):
        raise ValueError(
            "trainable_variables should be a list or a tuple. "
            f"Given type: {type(trainable_variables)}."
        )


def add_class_predictions(
    predictions: dict, keys, *, class_logits, logits, n_classes: int, label_vocabulary
) -> None:
    """A classifier's class predictions: the most likely class (of ``class_logits``)
    by id and by name, and every class's id and name."""
    if PredictionKeys.CLASS_IDS in keys or PredictionKeys.CLASSES in keys:
        class_ids = tf.compat.v1.math.argmax(class_logits, axis=-1, name=PredictionKeys.CLASS_IDS)
        class_ids = tf.compat.v1.expand_dims(class_ids, axis=-1)
        if PredictionKeys.CLASS_IDS in keys:
            predictions[PredictionKeys.CLASS_IDS] = class_ids
        if PredictionKeys.CLASSES in keys:
            predictions[PredictionKeys.CLASSES] = class_names(label_vocabulary, class_ids)
    if PredictionKeys.ALL_CLASS_IDS in keys:
        predictions[PredictionKeys.ALL_CLASS_IDS] = all_class_ids(logits, n_classes)
    if PredictionKeys.ALL_CLASSES in keys:
        predictions[PredictionKeys.ALL_CLASSES] = all_classes(logits, n_classes, label_vocabulary)


def class_names(label_vocabulary, class_ids):
    if label_vocabulary:
        return vocabulary.class_names(label_vocabulary, class_ids)
    return tf.strings.as_string(class_ids, name="str_classes")


def all_class_ids(logits, n_classes: int):
    """``[[0, 1, ..., n_classes - 1]]`` for each example."""
    batch_size = tf.compat.v1.shape(logits)[0]
    return tf.tile(tf.compat.v1.expand_dims(tf.range(n_classes), axis=0), [batch_size, 1])


def all_classes(logits, n_classes: int, label_vocabulary=None):
    """Every class's name (its vocabulary entry, or its id as a string) per example."""
    batch_size = tf.compat.v1.shape(logits)[0]
    if label_vocabulary:
        classes = tf.convert_to_tensor([label_vocabulary])
    else:
        classes = tf.strings.as_string(tf.expand_dims(tf.range(n_classes), axis=0))
    return tf.tile(classes, [batch_size, 1])


def classification_outputs(predictions, n_classes: int, label_vocabulary) -> dict:
    """The signatures of a multi-class or multi-label head: ``classification``
    (every class's probability and name), also the default, and ``predict``."""
    probabilities = predictions[PredictionKeys.PROBABILITIES]
    classification = export_output.ClassificationOutput(
        scores=probabilities, classes=all_classes(probabilities, n_classes, label_vocabulary)
    )
    return {
        DEFAULT_SERVING_KEY: classification,
        CLASSIFY_SERVING_KEY: classification,
        PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
    }


def update_with_broadcast_weights(metric, values, weights) -> None:
    values = tf.cast(values, dtype=tf.float32)
    if weights is not None:
        weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, values)
    metric.update_state(values=values, sample_weight=weights)
