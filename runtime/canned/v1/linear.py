"""``tf.compat.v1.estimator.LinearClassifier`` / ``LinearRegressor`` /
``LinearEstimator``: one weight per feature column value and a bias under the
``linear`` variable scope, trained by v1 FTRL unless told otherwise."""

import tensorflow as tf
from tensorflow.python.feature_column import feature_column as feature_column_v1
from tensorflow.python.feature_column import feature_column_lib

from estimator_revival.canned.inputs import require_features_dict
from estimator_revival.canned.linear import (
    LEARNING_RATE,
    default_learning_rate,
    sdca_model_fn,
    summarized_linear_model,
    weight_summaries,
)
from estimator_revival.canned.sdca import LinearSDCA, check_arguments
from estimator_revival.canned.v1.head import classification_head, regression_head
from estimator_revival.canned.v1.optimizers import get_optimizer_instance
from estimator_revival.engine.estimator import Estimator


def linear_logits(features, feature_columns, units: int, sparse_combiner: str):
    """The logits, with the bias and zero-weight summaries: Keras's linear model for
    v2 columns, the v1 ``_LinearModel`` otherwise, as TF 1's canned models chose."""
    if feature_column_lib.is_feature_column_v2(feature_columns):
        _, logits = summarized_linear_model(
            features, feature_columns, units, sparse_combiner, name="linear_model"
        )
        return logits
    model = feature_column_v1._LinearModel(
        feature_columns=feature_columns,
        units=units,
        sparse_combiner=sparse_combiner,
        name="linear_model",
    )
    logits = model(features)
    variables = model.cols_to_vars()
    weight_summaries(variables.pop("bias"), variables.values(), units)
    return logits


def default_optimizer(feature_columns):
    """v1 FTRL at the TF 2 flavour's ``default_learning_rate``."""
    return tf.compat.v1.train.FtrlOptimizer(learning_rate=default_learning_rate(feature_columns))


def linear_model_fn(
    features,
    labels,
    mode,
    head,
    feature_columns,
    optimizer,
    partitioner,
    config,
    sparse_combiner="sum",
):
    """The model_fn of the TF 1 linear estimators."""
    require_features_dict(features)
    num_ps_replicas = config.num_ps_replicas if config else 0
    partitioner = partitioner or tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps_replicas, min_slice_size=64 << 20
    )
    with tf.compat.v1.variable_scope(
        "linear", values=tuple(features.values()), partitioner=partitioner
    ):
        if isinstance(optimizer, LinearSDCA):
            return sdca_model_fn(
                features, labels, mode, head, feature_columns, optimizer, name="linear_model"
            )
        logits = linear_logits(features, feature_columns, head.logits_dimension, sparse_combiner)
        optimizer = get_optimizer_instance(
            optimizer or default_optimizer(feature_columns), learning_rate=LEARNING_RATE
        )
        return head.create_estimator_spec(
            features=features, mode=mode, labels=labels, optimizer=optimizer, logits=logits
        )


class LinearEstimator(Estimator):
    """A linear model with any TF 1 head."""

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        feature_columns = tuple(feature_columns or [])

        def model_fn(features, labels, mode, config):
            return linear_model_fn(
                features,
                labels,
                mode,
                head=head,
                feature_columns=feature_columns,
                optimizer=optimizer,
                partitioner=partitioner,
                config=config,
                sparse_combiner=sparse_combiner,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class LinearClassifier(LinearEstimator):
    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
        sparse_combiner="sum",
    ):
        check_arguments(optimizer, feature_columns, sparse_combiner, n_classes=n_classes)
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            partitioner=partitioner,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )


class LinearRegressor(LinearEstimator):
    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
        sparse_combiner="sum",
    ):
        check_arguments(
            optimizer, feature_columns, sparse_combiner, label_dimension=label_dimension
        )
        super().__init__(
            regression_head(
                label_dimension=label_dimension,
                weight_column=weight_column,
                loss_reduction=loss_reduction,
            ),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            partitioner=partitioner,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )
