"""``tf.compat.v1.estimator.DNNLinearCombinedClassifier`` / ``Regressor`` /
``Estimator`` (wide & deep): a DNN's and a linear model's logits summed, each part
trained by its own v1 optimizer, the global step counted once after both."""

import tensorflow as tf

from estimator_revival.canned.dnn import layer_summaries
from estimator_revival.canned.dnn_linear_combined import (
    DNN_LEARNING_RATE,
    linear_learning_rate,
    refuse_sync_replicas,
    require_columns,
)
from estimator_revival.canned.inputs import require_features_dict
from estimator_revival.canned.v1.dnn import dnn_logits
from estimator_revival.canned.v1.head import classification_head, regression_head
from estimator_revival.canned.v1.linear import linear_logits
from estimator_revival.canned.v1.optimizers import get_optimizer_instance
from estimator_revival.engine.estimator import Estimator


def dnn_linear_combined_model_fn(
    features,
    labels,
    mode,
    head,
    linear_feature_columns=None,
    linear_optimizer="Ftrl",
    dnn_feature_columns=None,
    dnn_optimizer="Adagrad",
    dnn_hidden_units=None,
    dnn_activation_fn=tf.nn.relu,
    dnn_dropout=None,
    input_layer_partitioner=None,
    config=None,
    batch_norm=False,
    linear_sparse_combiner="sum",
):
    """The model_fn of the TF 1 wide & deep estimators."""
    require_features_dict(features)
    require_columns(linear_feature_columns, dnn_feature_columns)
    num_ps_replicas = config.num_ps_replicas if config else 0
    input_layer_partitioner = input_layer_partitioner or tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps_replicas, min_slice_size=64 << 20
    )
    parts = []  # (logits, optimizer, variable scope)
    if dnn_feature_columns:
        optimizer = get_optimizer_instance(dnn_optimizer, DNN_LEARNING_RATE)
        refuse_sync_replicas(optimizer)
        if not dnn_hidden_units:
            raise ValueError(
                "dnn_hidden_units must be defined when dnn_feature_columns is specified."
            )
        with tf.compat.v1.variable_scope(
            "dnn",
            values=tuple(features.values()),
            partitioner=tf.compat.v1.min_max_variable_partitioner(max_partitions=num_ps_replicas),
        ) as scope:
            logits = dnn_logits(
                features,
                mode,
                head.logits_dimension,
                dnn_hidden_units,
                dnn_feature_columns,
                dnn_activation_fn,
                dnn_dropout,
                input_layer_partitioner,
                batch_norm,
            )
            parts.append((logits, optimizer, scope.name))
    if linear_feature_columns:
        learning_rate = linear_learning_rate(len(linear_feature_columns))
        optimizer = get_optimizer_instance(linear_optimizer, learning_rate)
        refuse_sync_replicas(optimizer)
        with tf.compat.v1.variable_scope(
            "linear", values=tuple(features.values()), partitioner=input_layer_partitioner
        ) as scope:
            logits = linear_logits(
                features, linear_feature_columns, head.logits_dimension, linear_sparse_combiner
            )
            layer_summaries(logits, scope.name)
            parts.append((logits, optimizer, scope.name))

    def train_op_fn(loss):
        updates = [
            optimizer.minimize(
                loss,
                var_list=tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, scope=scope_name
                ),
            )
            for _, optimizer, scope_name in parts
        ]
        with tf.control_dependencies([tf.group(*updates)]):
            return tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1).op

    logits = parts[0][0] if len(parts) == 1 else parts[0][0] + parts[1][0]
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, train_op_fn=train_op_fn, logits=logits
    )


class DNNLinearCombinedEstimator(Estimator):
    """Wide & deep with any TF 1 head."""

    def __init__(
        self,
        head,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        input_layer_partitioner=None,
        config=None,
        batch_norm=False,
        linear_sparse_combiner="sum",
        warm_start_from=None,
    ):
        require_columns(linear_feature_columns, dnn_feature_columns)

        def model_fn(features, labels, mode, config):
            return dnn_linear_combined_model_fn(
                features,
                labels,
                mode,
                head,
                linear_feature_columns=linear_feature_columns,
                linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns,
                dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units,
                dnn_activation_fn=dnn_activation_fn,
                dnn_dropout=dnn_dropout,
                input_layer_partitioner=input_layer_partitioner,
                config=config,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNLinearCombinedClassifier(DNNLinearCombinedEstimator):
    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        require_columns(linear_feature_columns, dnn_feature_columns)
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )


class DNNLinearCombinedRegressor(DNNLinearCombinedEstimator):
    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        require_columns(linear_feature_columns, dnn_feature_columns)
        super().__init__(
            regression_head(
                label_dimension=label_dimension,
                weight_column=weight_column,
                loss_reduction=loss_reduction,
            ),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )
