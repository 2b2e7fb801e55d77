"""``tf.estimator.DNNClassifier`` / ``DNNRegressor`` / ``DNNEstimator`` (the TF 2
flavour): feature columns into a stack of dense layers, then a head."""

import tensorflow as tf
import tf_keras

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.canned.heads import RegressionHead, classification_head
from estimator_revival.canned.inputs import require_features_dict, require_v2_columns
from estimator_revival.canned.optimizers import keras_optimizer
from estimator_revival.engine.estimator import Estimator


def layer_summaries(value, tag: str) -> None:
    """The fraction of zeros and the histogram of a layer's output, as TF wrote them."""
    tf.compat.v1.summary.scalar(f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value))
    tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def _scope_name(scope: str) -> str:
    return scope[:-1] if scope.endswith("/") else scope


class DNNModel(tf_keras.Model):
    """Input layer, hidden layers (each with optional dropout and batch norm), logits.

    Layers are made in the order TensorFlow made them, so unseeded initializers draw
    the same op seeds, and named so that variables are ``dnn/hiddenlayer_0/kernel``.
    """

    def __init__(
        self, units, hidden_units, feature_columns, activation_fn, dropout, batch_norm, name
    ):
        super().__init__(name=name)
        with tf.compat.v1.name_scope("input_from_feature_columns") as scope:
            require_v2_columns(feature_columns)
            self._input_layer = tf_keras.layers.DenseFeatures(
                feature_columns=feature_columns, name=scope + "input_layer"
            )
        self._hidden = []  # (dense, dropout or None, batch norm or None, scope name)
        for index, width in enumerate(hidden_units):
            with tf.compat.v1.name_scope(f"hiddenlayer_{index}") as scope:
                layer_name = _scope_name(scope)
                dense = tf_keras.layers.Dense(
                    units=width,
                    activation=activation_fn,
                    kernel_initializer=tf.compat.v1.glorot_uniform_initializer(),
                    name=layer_name,
                )
                dropout_layer = (
                    tf_keras.layers.Dropout(rate=dropout) if dropout is not None else None
                )
                norm = None
                if batch_norm:
                    norm = tf_keras.layers.BatchNormalization(
                        momentum=0.999,  # tf.contrib.layers.batch_norm's; 0.99 diverged
                        trainable=True,
                        name=f"{layer_name}/batchnorm_{index}",
                    )
                self._hidden.append((dense, dropout_layer, norm, layer_name))
        with tf.compat.v1.name_scope("logits") as scope:
            self._logits_name = _scope_name(scope)
            self._logits = tf_keras.layers.Dense(
                units=units,
                activation=None,
                kernel_initializer=tf.compat.v1.glorot_uniform_initializer(),
                name=self._logits_name,
            )

    def call(self, features, mode):
        training = mode == ModeKeys.TRAIN
        net = self._input_layer(features, training=training)
        for dense, dropout, norm, name in self._hidden:
            net = dense(net)
            if dropout is not None and training:
                net = dropout(net, training=True)
            if norm is not None:
                net = norm(net, training=training)
            layer_summaries(net, name)
        logits = self._logits(net)
        layer_summaries(logits, self._logits_name)
        return logits


def dnn_logits(
    features, mode, units, hidden_units, feature_columns, activation_fn, dropout, batch_norm
):
    """The DNN's logits, trainable variables and update ops (batch norm's)."""
    model = DNNModel(
        units, hidden_units, feature_columns, activation_fn, dropout, batch_norm, name="dnn"
    )
    logits = model(features, mode)
    return logits, model.trainable_variables, model.updates


def dnn_model_fn(
    features,
    labels,
    mode,
    head,
    hidden_units,
    feature_columns,
    optimizer="Adagrad",
    activation_fn=tf.nn.relu,
    dropout=None,
    batch_norm=False,
):
    """The model_fn of the DNN estimators."""
    require_features_dict(features)
    logits, trainable_variables, update_ops = dnn_logits(
        features,
        mode,
        head.logits_dimension,
        hidden_units,
        feature_columns,
        activation_fn,
        dropout,
        batch_norm,
    )
    if mode == ModeKeys.TRAIN:
        optimizer = keras_optimizer(optimizer)
        # The optimizer counts its steps in the global step, which hooks read.
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
    return head.create_estimator_spec(
        features=features,
        mode=mode,
        labels=labels,
        optimizer=optimizer,
        logits=logits,
        trainable_variables=trainable_variables,
        update_ops=update_ops,
    )


class DNNEstimator(Estimator):
    """A DNN with any head."""

    def __init__(
        self,
        head,
        hidden_units,
        feature_columns,
        model_dir=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        feature_columns = tuple(feature_columns or [])

        def model_fn(features, labels, mode, config):
            del config
            return dnn_model_fn(
                features,
                labels,
                mode,
                head=head,
                hidden_units=hidden_units,
                feature_columns=feature_columns,
                optimizer=optimizer,
                activation_fn=activation_fn,
                dropout=dropout,
                batch_norm=batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNClassifier(DNNEstimator):
    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )


class DNNRegressor(DNNEstimator):
    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        head = RegressionHead(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
        )
        super().__init__(
            head,
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )
