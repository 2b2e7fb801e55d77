"""``tf.compat.v1.estimator.BaselineClassifier`` / ``BaselineRegressor`` /
``BaselineEstimator``: one learned bias per output (``baseline/bias``), trained by
a v1 optimizer."""

import tensorflow as tf

from estimator_revival.canned.baseline import LEARNING_RATE, batch_size_and_checks
from estimator_revival.canned.v1.head import classification_head, regression_head
from estimator_revival.canned.v1.optimizers import get_optimizer_instance
from estimator_revival.engine.estimator import Estimator


def _weight_column_key(weight_column) -> str | None:
    """TF 1's baseline took the weight column by its feature's name."""
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    raise TypeError(
        "Weight column must be either a string or _NumericColumn. "
        f"Given type: {type(weight_column)}."
    )


def baseline_model_fn(features, labels, mode, head, optimizer, weight_column=None):
    """The model_fn of the TF 1 baseline estimators."""
    batch_size, size_checks = batch_size_and_checks(features, _weight_column_key(weight_column))
    units = head.logits_dimension
    with tf.control_dependencies(size_checks), tf.compat.v1.variable_scope("baseline"):
        bias = tf.compat.v1.get_variable(
            "bias", shape=[units], initializer=tf.compat.v1.initializers.zeros
        )
        logits = tf.math.multiply(bias, tf.ones([batch_size, units]))

    def train_op_fn(loss):
        minimizer = get_optimizer_instance(optimizer, learning_rate=LEARNING_RATE)
        return minimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())

    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels, train_op_fn=train_op_fn
    )


class BaselineEstimator(Estimator):
    """A bias with any TF 1 head."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        def model_fn(features, labels, mode):
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
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
    ):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def model_fn(features, labels, mode):
            return baseline_model_fn(features, labels, mode, head, optimizer, weight_column)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(BaselineEstimator):
    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
    ):
        head = regression_head(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
        )
        super().__init__(head, model_dir=model_dir, optimizer=optimizer, config=config)
