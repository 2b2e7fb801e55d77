"""``tf.estimator.LinearClassifier`` / ``LinearRegressor`` / ``LinearEstimator``
(the TF 2 flavour): one weight per feature column value and a bias, trained by
FTRL unless told otherwise."""

import math

import tensorflow as tf
import tf_keras
from tensorflow.python.feature_column import feature_column_v2 as fc
from tensorflow.python.ops import variable_scope

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.canned.heads import RegressionHead, classification_head
from estimator_revival.canned.inputs import require_features_dict, require_v2_columns
from estimator_revival.canned.optimizers import keras_optimizer
from estimator_revival.canned.partitions import parts
from estimator_revival.canned.sdca import LinearSDCA, check_arguments, loss_type_of
from estimator_revival.engine.estimator import Estimator

# The learning rate of an optimizer named by a string, and the most the default
# FTRL gets.
LEARNING_RATE = 0.2


class _WeightedSum(tf_keras.layers.Layer):
    """Each column's weights (``<column>/weights``, zeros) applied to its values,
    summed, plus ``bias_weights``."""

    def __init__(self, feature_columns, units, sparse_combiner, name):
        super().__init__(name=name)
        self._columns = fc._normalize_feature_columns(feature_columns)
        for column in self._columns:
            if not isinstance(column, fc.DenseColumn | fc.CategoricalColumn):
                raise ValueError(
                    "Items of feature_columns must be either a DenseColumn or "
                    f"CategoricalColumn. Given: {column}"
                )
        self._units = units
        self._sparse_combiner = sparse_combiner
        self._state_manager = fc._StateManagerImpl(self, self.trainable)
        self.bias = None

    def build(self, _):
        with variable_scope._pure_variable_scope(self.name):
            for column in self._columns:
                with variable_scope._pure_variable_scope(_scope_name(column)):
                    column.create_state(self._state_manager)
                    if isinstance(column, fc.CategoricalColumn):
                        rows = column.num_buckets
                    else:
                        rows = column.variable_shape.num_elements()
                    self._state_manager.create_variable(
                        column,
                        name="weights",
                        dtype=tf.float32,
                        shape=(rows, self._units),
                        initializer=tf_keras.initializers.zeros(),
                        trainable=self.trainable,
                    )
            self.bias = self.add_weight(
                name="bias_weights",
                dtype=tf.float32,
                shape=[self._units],
                initializer=tf_keras.initializers.zeros(),
                trainable=self.trainable,
                use_resource=True,
                getter=tf.compat.v1.get_variable,
            )
        super().build(None)

    def call(self, features):
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        with tf.compat.v1.name_scope(self.name):
            cache = fc.FeatureTransformationCache(features)
            sums = []
            for column in self._columns:
                with tf.compat.v1.name_scope(_scope_name(column)):
                    sums.append(
                        fc._create_weighted_sum(
                            column=column,
                            transformation_cache=cache,
                            state_manager=self._state_manager,
                            sparse_combiner=self._sparse_combiner,
                            weight_var=self._state_manager.get_variable(column, "weights"),
                        )
                    )
            fc._verify_static_batch_size_equality(sums, self._columns)
            without_bias = tf.math.add_n(sums, name="weighted_sum_no_bias")
            return tf.nn.bias_add(without_bias, self.bias, name="weighted_sum")


def _scope_name(column) -> str:
    return fc._sanitize_column_name_for_variable_scope(column.name)


class LinearModel(tf_keras.Model):
    """``tf.estimator.LinearModel``'s graph: the weighted sum as a Keras model."""

    def __init__(self, feature_columns, units=1, sparse_combiner="sum", name=None):
        super().__init__(name=name)
        self.layer = _WeightedSum(feature_columns, units, sparse_combiner, name=self.name)

    def call(self, features):
        return self.layer(features)

    @property
    def bias(self):
        return self.layer.bias


def zero_fraction(variables):
    """The fraction of zeros over all ``variables`` together, as TF summarized it."""
    with tf.compat.v1.name_scope("zero_fraction"):
        variables = tf.nest.flatten(variables)
        with tf.compat.v1.name_scope("total_size"):
            sizes = [tf.compat.v1.size(x, out_type=tf.int64) for x in variables]
            total_size = tf.math.add_n(sizes)
        with tf.compat.v1.name_scope("total_zero"):
            total_zero = tf.math.add_n(
                [
                    tf.compat.v1.cond(
                        tf.math.equal(size, tf.constant(0, dtype=tf.int64)),
                        true_fn=lambda: tf.constant(0, dtype=tf.float32),
                        false_fn=lambda x=x, size=size: (
                            tf.math.zero_fraction(x) * tf.cast(size, dtype=tf.float32)
                        ),
                        name="zero_count",
                    )
                    for x, size in zip(variables, sizes, strict=True)
                ]
            )
        with tf.compat.v1.name_scope("compute"):
            size_float = tf.cast(total_size, dtype=tf.float32, name="float32_size")
            fraction = total_zero / size_float
        return tf.identity(fraction, name="zero_fraction_or_nan")


def summarized_linear_model(features, feature_columns, units, sparse_combiner, name):
    """The linear model and its logits, with the bias and zero-weight summaries."""
    model = LinearModel(feature_columns, units, sparse_combiner, name=name)
    logits = model(features)
    weight_summaries(model.bias, model.variables, units)
    return model, logits


def linear_logits(features, feature_columns, units, sparse_combiner):
    """The logits and the model's variables, with the bias and zero-weight summaries."""
    require_v2_columns(feature_columns)
    model, logits = summarized_linear_model(
        features, feature_columns, units, sparse_combiner, name="linear/linear_model"
    )
    return logits, model.variables


def weight_summaries(bias, variables, units: int) -> None:
    """The bias (a scalar for one unit, else a histogram) and the fraction of zero
    weights among the model's other ``variables``, as TF summarized a linear model
    (partitioned ones part by part)."""
    bias_parts = parts(bias)
    weights = [
        part
        for variable in variables
        for part in parts(variable)
        if all(part is not bias_part for bias_part in bias_parts)
    ]
    bias = bias_parts[0]
    if units > 1:
        tf.compat.v1.summary.histogram("bias", bias)
    else:
        tf.compat.v1.summary.scalar("bias", bias[0])
    tf.compat.v1.summary.scalar("fraction_of_zero_weights", zero_fraction(weights))


def default_learning_rate(feature_columns) -> float:
    """The default FTRL's: it shrinks with the number of columns."""
    return min(LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns)))


def default_optimizer(feature_columns):
    """FTRL at ``default_learning_rate``."""
    return tf_keras.optimizers.legacy.Ftrl(learning_rate=default_learning_rate(feature_columns))


def linear_model_fn(features, labels, mode, head, feature_columns, optimizer, sparse_combiner):
    """The model_fn of the linear estimators."""
    require_features_dict(features)
    if isinstance(optimizer, LinearSDCA):
        return sdca_model_fn(
            features, labels, mode, head, feature_columns, optimizer, name="linear/linear_model"
        )
    logits, variables = linear_logits(
        features, feature_columns, head.logits_dimension, sparse_combiner
    )
    if mode == ModeKeys.TRAIN:
        optimizer = keras_optimizer(
            optimizer or default_optimizer(feature_columns), learning_rate=LEARNING_RATE
        )
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
    return head.create_estimator_spec(
        features=features,
        mode=mode,
        labels=labels,
        optimizer=optimizer,
        trainable_variables=variables,
        logits=logits,
    )


def sdca_model_fn(features, labels, mode, head, feature_columns, optimizer, *, name):
    """The model_fn of a linear model trained by ``LinearSDCA``: TF's train op then
    its chief hook's update of the weights from their unshrunk twins, in one op."""
    model, logits = summarized_linear_model(features, feature_columns, 1, "sum", name=name)
    if mode != ModeKeys.TRAIN:
        return head.create_estimator_spec(
            features=features, mode=mode, labels=labels, logits=logits
        )
    sdca_model, train_op = optimizer.get_train_step(
        model.layer._state_manager,
        head._weight_column,
        loss_type_of(head),
        feature_columns,
        features,
        labels,
        model.bias,
        tf.compat.v1.train.get_global_step(),
    )
    spec = head.create_estimator_spec(
        features=features,
        mode=mode,
        labels=labels,
        train_op_fn=lambda unused_loss: train_op,
        logits=logits,
    )
    return spec._replace(train_op=sdca_model.update_weights(spec.train_op, spec.loss))


class LinearEstimator(Estimator):
    """A linear model with any head."""

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        feature_columns = tuple(feature_columns or [])

        def model_fn(features, labels, mode, config):
            del config
            return linear_model_fn(
                features, labels, mode, head, feature_columns, optimizer, sparse_combiner
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
        warm_start_from=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        check_arguments(optimizer, feature_columns, sparse_combiner, n_classes=n_classes)
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
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
        warm_start_from=None,
        loss_reduction=tf_keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        check_arguments(
            optimizer, feature_columns, sparse_combiner, label_dimension=label_dimension
        )
        head = RegressionHead(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
        )
        super().__init__(
            head,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )
