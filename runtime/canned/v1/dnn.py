"""``tf.compat.v1.estimator.DNNClassifier`` / ``DNNRegressor`` / ``DNNEstimator``:
feature columns (v1 or v2) into v1 dense layers under the ``dnn`` variable scope,
then a TF 1 head."""

import tensorflow as tf
import tf_keras
from tensorflow.python.feature_column import feature_column as feature_column_v1
from tensorflow.python.feature_column import feature_column_lib

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.canned.dnn import layer_summaries
from estimator_revival.canned.inputs import require_features_dict
from estimator_revival.canned.v1.head import classification_head, regression_head
from estimator_revival.canned.v1.optimizers import get_optimizer_instance
from estimator_revival.engine.estimator import Estimator

_LEARNING_RATE = 0.05


def input_layer(feature_columns, name: str = "input_layer"):
    """The layer turning features into one dense tensor: Keras's ``DenseFeatures``
    for v2 columns, the v1 ``InputLayer`` otherwise, as TF 1's canned models chose."""
    if feature_column_lib.is_feature_column_v2(feature_columns):
        return tf.compat.v1.keras.layers.DenseFeatures(feature_columns=feature_columns, name=name)
    return feature_column_v1.InputLayer(
        feature_columns=feature_columns, name=name, create_scope_now=False
    )


def _scope_above_model() -> str:
    """The name scope the Keras model's own scope was opened in."""
    current = tf.compat.v2.__internal__.get_name_scope()
    return current.rsplit("/", 1)[0] + "/"


class DNNModel(tf_keras.Model):
    """Input layer, hidden layers (each with optional dropout and batch norm), logits,
    made as TF 1's ``_DNNModel`` made them: v1 layers in variable scopes opened at
    construction, so variables are ``dnn/hiddenlayer_0/kernel`` and unseeded
    initializers draw the op seeds they drew."""

    def __init__(
        self,
        units,
        hidden_units,
        feature_columns,
        activation_fn,
        dropout,
        input_layer_partitioner,
        batch_norm,
        name,
    ):
        super().__init__(name=name)
        self.input_layer = input_layer(feature_columns)
        self._hidden = []  # (dense, dropout or None, batch norm or None, scope name)
        for index, width in enumerate(hidden_units):
            with tf.compat.v1.variable_scope(f"hiddenlayer_{index}") as scope:
                dense = tf.compat.v1.layers.Dense(
                    units=width,
                    activation=activation_fn,
                    kernel_initializer=tf.compat.v1.glorot_uniform_initializer(),
                    name=scope,
                    _scope=scope,
                )
                setattr(self, scope.name, dense)
                dropout_layer = norm = None
                if dropout is not None:
                    dropout_layer = tf.compat.v1.layers.Dropout(rate=dropout)
                    setattr(self, dropout_layer.name, dropout_layer)
                if batch_norm:
                    norm = tf.compat.v1.layers.BatchNormalization(
                        momentum=0.999,  # tf.contrib.layers.batch_norm's; 0.99 diverged
                        trainable=True,
                        name=f"batchnorm_{index}",
                        _scope=f"batchnorm_{index}",
                    )
                    setattr(self, norm.name, norm)
                self._hidden.append((dense, dropout_layer, norm, scope.name))
        with tf.compat.v1.variable_scope("logits") as scope:
            self._logits = tf.compat.v1.layers.Dense(
                units=units,
                activation=None,
                kernel_initializer=tf.compat.v1.glorot_uniform_initializer(),
                name=scope,
                _scope=scope,
            )
            setattr(self, scope.name, self._logits)
            self._logits_scope = scope.name
        self._input_layer_partitioner = input_layer_partitioner

    def call(self, features, mode):
        training = mode == ModeKeys.TRAIN
        # Keras opened a name scope named for the model; TF 1 built under the one before it.
        with tf.compat.v1.name_scope(_scope_above_model()):
            with tf.compat.v1.variable_scope(
                "input_from_feature_columns", partitioner=self._input_layer_partitioner
            ):
                try:
                    net = self.input_layer(features, training=training)
                except TypeError:  # the v1 InputLayer takes no training argument
                    net = self.input_layer(features)
            for dense, dropout, norm, scope_name in self._hidden:
                net = dense(net)
                if dropout is not None and training:
                    net = dropout(net, training=True)
                if norm is not None:
                    net = norm(net, training=training)
                layer_summaries(net, scope_name)
            logits = self._logits(net)
            layer_summaries(logits, self._logits_scope)
            return logits


def dnn_logits(
    features,
    mode,
    units,
    hidden_units,
    feature_columns,
    activation_fn,
    dropout,
    input_layer_partitioner,
    batch_norm,
):
    """The DNN's logits, its variables made in the current variable scope."""
    if not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")
    model = DNNModel(
        units,
        hidden_units,
        feature_columns,
        activation_fn,
        dropout,
        input_layer_partitioner,
        batch_norm,
        name="dnn",
    )
    return model(features, mode)


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
    input_layer_partitioner=None,
    config=None,
    batch_norm=False,
):
    """The model_fn of the TF 1 DNN estimators."""
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    require_features_dict(features)
    num_ps_replicas = config.num_ps_replicas if config else 0
    partitioner = tf.compat.v1.min_max_variable_partitioner(max_partitions=num_ps_replicas)
    with tf.compat.v1.variable_scope(
        "dnn", values=tuple(features.values()), partitioner=partitioner
    ):
        input_layer_partitioner = input_layer_partitioner or (
            tf.compat.v1.min_max_variable_partitioner(
                max_partitions=num_ps_replicas, min_slice_size=64 << 20
            )
        )
        logits = dnn_logits(
            features,
            mode,
            head.logits_dimension,
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            input_layer_partitioner,
            batch_norm,
        )
        return head.create_estimator_spec(
            features=features, mode=mode, labels=labels, optimizer=optimizer, logits=logits
        )


class DNNEstimator(Estimator):
    """A DNN with any TF 1 head."""

    def __init__(
        self,
        head,
        hidden_units,
        feature_columns,
        model_dir=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        feature_columns = tuple(feature_columns or [])

        def model_fn(features, labels, mode, config):
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
                input_layer_partitioner=input_layer_partitioner,
                config=config,
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
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
            input_layer_partitioner=input_layer_partitioner,
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM,
        batch_norm=False,
    ):
        super().__init__(
            regression_head(
                label_dimension=label_dimension,
                weight_column=weight_column,
                loss_reduction=loss_reduction,
            ),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )
