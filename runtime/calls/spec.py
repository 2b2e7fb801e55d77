"""``EstimatorSpec``: what a model_fn returns, validated exactly as TF 2.15 did.

Every error type and message matches ``tensorflow_estimator``'s ``model_fn.py``
(checked against the legacy side by tests/runtime/test_validation_table.py).
"""

from __future__ import annotations

import collections

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_utils

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.type_checks import instances_of

LOSS_METRIC_KEY = "loss"


class InGraphHook(tf.compat.v1.train.SessionRunHook):
    """A hook a spec carries whose work is part of the traced step itself (a
    host_call's ops): nothing to drive, and a step that only runs what it
    fetches (a slice of the discovery graph) would leave that work out."""


_DEFAULT_GRAPH_ERROR = (
    '{0} with "{1}" must be from the default graph. '
    "Possible causes of this error include: \n\n"
    "1) {0} was created outside the context of the default graph."
    "\n\n"
    "2) The object passed through to EstimatorSpec was not created "
    'in the most recent call to "model_fn".'
)

_FIELDS = [
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metric_ops",
    "export_outputs",
    "training_chief_hooks",
    "training_hooks",
    "scaffold",
    "evaluation_hooks",
    "prediction_hooks",
]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """Ops and objects returned from a ``model_fn`` (``tf.estimator.EstimatorSpec``)."""

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_chief_hooks=None,
        training_hooks=None,
        scaffold=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        train_op = validate_train_op(train_op, mode)
        loss = validate_loss(loss, mode)
        predictions = validate_predictions(predictions, mode)
        if mode == ModeKeys.PREDICT:
            export_outputs = export_utils.get_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=validate_eval_metric_ops(eval_metric_ops),
            export_outputs=export_outputs,
            training_chief_hooks=validate_hooks(training_chief_hooks),
            training_hooks=validate_hooks(training_hooks),
            scaffold=validate_scaffold(scaffold),
            evaluation_hooks=validate_hooks(evaluation_hooks),
            prediction_hooks=validate_hooks(prediction_hooks),
        )

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        new_fields = map(kwds.pop, self._fields, list(self))
        return EstimatorSpec(*new_fields)


def _in_default_graph(value) -> bool:
    """Whether ``value`` belongs to the graph model_fn builds. The runtime's
    variables live outside it and are captured when used, so a variable (e.g. the
    one ``variable.assign`` returns as a metric's update) always does."""
    if tf.executing_eagerly() or isinstance(value, tf.Variable):
        return True
    return value.graph is tf.compat.v1.get_default_graph()


def _check_is_tensor(x, name: str):
    if not isinstance(x, tf.__internal__.types.Tensor):
        raise TypeError(f"{name} must be Tensor, given: {x}")
    return x


def validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if not isinstance(train_op, (tf.Operation, tf.__internal__.types.Tensor)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
    if isinstance(train_op, tf.Variable):
        train_op = train_op.op
    if not _in_default_graph(train_op):
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("train_op", train_op.name))
    return train_op


def validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_is_tensor(loss, "loss")
    shape = loss.get_shape()
    if shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not shape.is_compatible_with(tf.TensorShape([])):
        loss = tf.reshape(loss, [])
    if not _in_default_graph(loss):
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("loss", loss.name))
    return loss


def validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        predictions = {k: _check_is_tensor(v, f"predictions[{k}]") for k, v in predictions.items()}
        for key, value in predictions.items():
            if not _in_default_graph(value):
                raise ValueError(
                    _DEFAULT_GRAPH_ERROR.format("prediction values", f"{key}: {value.name}")
                )
        return predictions
    predictions = _check_is_tensor(predictions, "predictions")
    if not _in_default_graph(predictions):
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("prediction values", predictions.name))
    return predictions


def validate_hooks(hooks) -> tuple:
    return instances_of(
        hooks,
        tf.compat.v1.train.SessionRunHook,
        "All hooks must be SessionRunHook instances, given: {}",
    )


def validate_eval_metric_ops(eval_metric_ops) -> dict:
    """Checks the metric dict and turns Keras ``Metric`` objects into (value, update) pairs."""
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    keras_metric = tf.keras.metrics.Metric
    # Inside a traced step Keras runs metric updates itself and records none in
    # `.updates`; the "never updated" check already ran in the discovery graph.
    traced = tf.compat.v1.get_default_graph().building_function
    for key, value in eval_metric_ops.items():
        if isinstance(value, keras_metric):
            if not value.updates and not traced:
                raise ValueError(f'Please call update_state(...) on the "{value.name}" metric')
        elif not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(
                "Values of eval_metric_ops must be (metric_value, update_op) "
                f"tuples, given: {value} for key: {key}"
            )
    for key, value in list(eval_metric_ops.items()):
        if isinstance(value, keras_metric):
            to_check = [*value.updates, value.result()]
        else:
            to_check = tf.nest.flatten(value)
        for tensor in to_check:
            if not _in_default_graph(tensor):
                raise ValueError(
                    _DEFAULT_GRAPH_ERROR.format("eval_metric_ops", f"{key}: {tensor.name}")
                )
    metric_variables = []
    for key, value in eval_metric_ops.items():
        if isinstance(value, keras_metric):
            metric_variables.extend(value.variables)
            update = value.updates[0] if value.updates else tf.no_op()
            eval_metric_ops[key] = (value.result(), update)
    for collection in (
        tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
        tf.compat.v1.GraphKeys.METRIC_VARIABLES,
    ):
        present = {v.ref() for v in tf.compat.v1.get_collection(collection)}
        for variable in metric_variables:
            if variable.ref() not in present:
                present.add(variable.ref())
                tf.compat.v1.add_to_collection(collection, variable)
    return eval_metric_ops


def validate_scaffold(scaffold):
    scaffold = scaffold or tf.compat.v1.train.Scaffold()
    if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold
