"""``tf.estimator.DNNLinearCombinedClassifier`` / ``Regressor`` / ``Estimator``
(the TF 2 flavour): wide & deep, a linear model's logits plus a DNN's, each part
trained by its own optimizer."""

import math

import tensorflow as tf
import tf_keras

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.canned.dnn import dnn_logits, layer_summaries
from estimator_revival.canned.heads import RegressionHead, classification_head
from estimator_revival.canned.inputs import require_features_dict
from estimator_revival.canned.linear import linear_logits
from estimator_revival.canned.optimizers import keras_optimizer
from estimator_revival.engine.estimator import Estimator

DNN_LEARNING_RATE = 0.001
LINEAR_LEARNING_RATE = 0.005
_SUM_OVER_BATCH_SIZE = tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE


def linear_learning_rate(column_count: int) -> float:
    """The learning rate of the linear part's optimizer named by a string."""
    return min(LINEAR_LEARNING_RATE, 1.0 / math.sqrt(column_count))


def refuse_sync_replicas(optimizer) -> None:
    """Each part has its own optimizer, which SyncReplicasOptimizer cannot be."""
    if isinstance(optimizer, tf.compat.v1.train.SyncReplicasOptimizer):
        raise ValueError(
            "SyncReplicasOptimizer does not support multi optimizers case. Therefore, it is "
            "not supported in DNNLinearCombined model. If you want to use this optimizer, "
            "please use either DNN or Linear model."
        )


def require_columns(linear_feature_columns, dnn_feature_columns) -> None:
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")


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
    batch_norm=False,
    linear_sparse_combiner="sum",
    loss_reduction=_SUM_OVER_BATCH_SIZE,
):
    """The model_fn of the wide & deep estimators."""
    require_features_dict(features)
    require_columns(linear_feature_columns, dnn_feature_columns)
    logits = []
    if dnn_feature_columns:
        if mode == ModeKeys.TRAIN:
            dnn_optimizer = keras_optimizer(dnn_optimizer, learning_rate=DNN_LEARNING_RATE)
            refuse_sync_replicas(dnn_optimizer)
        if not dnn_hidden_units:
            raise ValueError(
                "dnn_hidden_units must be defined when dnn_feature_columns is specified."
            )
        dnn_part, dnn_variables, dnn_update_ops = dnn_logits(
            features,
            mode,
            head.logits_dimension,
            dnn_hidden_units,
            dnn_feature_columns,
            dnn_activation_fn,
            dnn_dropout,
            batch_norm,
        )
        logits.append(dnn_part)
    if linear_feature_columns:
        if mode == ModeKeys.TRAIN:
            linear_optimizer = keras_optimizer(
                linear_optimizer,
                learning_rate=linear_learning_rate(len(linear_feature_columns)),
            )
            refuse_sync_replicas(linear_optimizer)
        linear_part, linear_variables = linear_logits(
            features, linear_feature_columns, head.logits_dimension, linear_sparse_combiner
        )
        layer_summaries(linear_part, "linear")
        logits.append(linear_part)

    def train_op_fn(loss):
        """Each part's optimizer on its own variables, the DNN's first."""
        if loss_reduction == _SUM_OVER_BATCH_SIZE:
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            if replicas > 1:
                loss *= 1.0 / replicas
        train_ops = []
        if dnn_feature_columns:
            train_ops.extend(dnn_optimizer.get_updates(loss, dnn_variables))
            if dnn_update_ops is not None:
                train_ops.extend(dnn_update_ops)
        if linear_feature_columns:
            train_ops.extend(linear_optimizer.get_updates(loss, linear_variables))
        return tf.group(*train_ops)

    if mode == ModeKeys.TRAIN:
        # The global step is the DNN optimizer's step count when there is a DNN.
        counting = dnn_optimizer if dnn_feature_columns else linear_optimizer
        counting.iterations = tf.compat.v1.train.get_or_create_global_step()
    return head.create_estimator_spec(
        features=features,
        mode=mode,
        labels=labels,
        train_op_fn=train_op_fn,
        logits=logits[0] + logits[1] if len(logits) == 2 else logits[0],
    )


class DNNLinearCombinedEstimator(Estimator):
    """Wide & deep with any head."""

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
        config=None,
        batch_norm=False,
        linear_sparse_combiner="sum",
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
    ):
        require_columns(linear_feature_columns, dnn_feature_columns)

        def model_fn(features, labels, mode, config):
            del config
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
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
                loss_reduction=loss_reduction,
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
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
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
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
            loss_reduction=loss_reduction,
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
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = RegressionHead(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
        )
        super().__init__(
            head,
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
            loss_reduction=loss_reduction,
        )
