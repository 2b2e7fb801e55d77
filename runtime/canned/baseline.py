"""``tf.estimator.BaselineClassifier`` / ``BaselineRegressor`` / ``BaselineEstimator``
(the TF 2 flavour): one learned bias per output, whatever the features; the
simplest model to compare others against."""

import tensorflow as tf
import tf_keras
from tensorflow.python.feature_column import feature_column_v2 as fc

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.canned.heads import RegressionHead, classification_head
from estimator_revival.canned.optimizers import keras_optimizer
from estimator_revival.engine.estimator import Estimator

# The learning rate of an optimizer named by a string.
LEARNING_RATE = 0.3
_SUM_OVER_BATCH_SIZE = tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE


def _weight_column_key(weight_column) -> str | None:
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    if not isinstance(weight_column, fc.NumericColumn):
        raise TypeError(
            "Weight column must be either a string or NumericColumn. "
            f"Given type: {type(weight_column)}."
        )
    return weight_column.key


def batch_size_and_checks(features, weight_key: str | None) -> tuple:
    """The batch size (the first feature's) and the assertions that every other
    feature but the weights has it."""
    size_checks, batch_size = [], None
    for key, feature in features.items():
        if key == weight_key:
            continue
        first_dim = tf.compat.v1.shape(feature)[0]
        if batch_size is None:
            batch_size = first_dim
        else:
            size_checks.append(tf.compat.v1.debugging.assert_equal(batch_size, first_dim))
    return batch_size, size_checks


def baseline_logits(features, units, weight_column=None):
    """The bias (``baseline/bias``) for every example, once every feature but the
    weights is asserted to have the same batch size."""
    batch_size, size_checks = batch_size_and_checks(features, _weight_column_key(weight_column))
    with tf.control_dependencies(size_checks), tf.compat.v1.name_scope("baseline"):
        bias = tf.Variable(initial_value=tf.zeros([units]), name="bias")
        return bias, tf.math.multiply(bias, tf.ones([batch_size, units]))


def baseline_model_fn(
    features,
    labels,
    mode,
    head,
    optimizer="Ftrl",
    weight_column=None,
    loss_reduction=_SUM_OVER_BATCH_SIZE,
):
    """The model_fn of the baseline estimators."""
    bias, logits = baseline_logits(features, head.logits_dimension, weight_column)
    if mode == ModeKeys.TRAIN:
        optimizer = keras_optimizer(optimizer, learning_rate=LEARNING_RATE)
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()

    def train_op_fn(loss):
        if loss_reduction == _SUM_OVER_BATCH_SIZE:
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            if replicas > 1:
                loss *= 1.0 / replicas
        return optimizer.get_updates(loss, [bias])[0]

    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels, train_op_fn=train_op_fn
    )


class BaselineEstimator(Estimator):
    """A bias with any head."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        def model_fn(features, labels, mode, config):
            del config
            return baseline_model_fn(features, labels, mode, head, optimizer)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(Estimator):
    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
    ):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def model_fn(features, labels, mode, config):
            del config
            return baseline_model_fn(
                features, labels, mode, head, optimizer, weight_column, loss_reduction
            )

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(BaselineEstimator):
    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
    ):
        head = RegressionHead(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
        )
        super().__init__(head, model_dir=model_dir, optimizer=optimizer, config=config)
