"""``tf.estimator.MultiHead``: several named heads trained together, as
tensorflow-estimator 2.15 merged them.

Logits come as a dict by head name, or one tensor split along its last dimension
in the heads' order; labels as a dict by head name. The loss is the (weighted) sum
of the heads' losses; eval metrics are the heads' own (their keys end in the head's
name) with each head's loss as ``loss/<name>``; predictions are keyed
``(head name, key)``; the first head serves by default, and every head's
signatures are exported under its name.
"""

import tensorflow as tf
import tf_keras
from tensorflow.python.saved_model.model_utils import export_output

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.canned.heads.head import loss_summaries, train_op_for
from estimator_revival.canned.keys import DEFAULT_SERVING_KEY, PREDICT_SERVING_KEY, MetricKeys


class MultiHead:
    """A head made of named heads (``tf.estimator.MultiHead``); the first one is
    served by default."""

    def __init__(self, heads, head_weights=None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(
                "heads and head_weights must have the same size. "
                f"Given len(heads): {len(heads)}. Given len(head_weights): {len(head_weights)}."
            )
        for head in heads:
            if head.name is None:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._loss_keys = tuple(f"{MetricKeys.LOSS}/{head.name}" for head in self._heads)

    @property
    def name(self) -> str:
        return "_".join(head.name for head in self._heads)

    @property
    def logits_dimension(self) -> int:
        return sum(head.logits_dimension for head in self._heads)

    @property
    def loss_reduction(self):
        reductions = [head.loss_reduction for head in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(
                f"The loss_reduction must be the same for different heads. Given: {reductions}"
            )
        return reductions[0]

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The heads' losses, weighted and summed, plus the regularization."""
        logits_by_head = self._logits_by_head(logits, labels)
        losses = tuple(
            head.loss(
                logits=logits_by_head[head.name],
                labels=labels[head.name],
                features=features,
                mode=mode,
            )
            for head in self._heads
        )
        with tf.compat.v1.name_scope("merge_losses", values=losses + self._head_weights):
            if self._head_weights:
                losses = [
                    tf.math.multiply(loss, w)
                    for loss, w in zip(losses, self._head_weights, strict=True)
                ]
            merged = tf.math.add_n(losses)
            if regularization_losses is None:
                return merged
            return merged + tf.math.add_n(regularization_losses)

    def predictions(self, logits, keys=None):
        """Every head's predictions, keyed ``(head name, key)``."""
        del keys  # TensorFlow's MultiHead ignored them too
        logits_by_head = self._logits_by_head(logits)
        predictions = {}
        with tf.compat.v1.name_scope("merge_pred"):
            for head in self._heads:
                for key, value in head.predictions(logits=logits_by_head[head.name]).items():
                    predictions[(head.name, key)] = value
        return predictions

    def metrics(self, regularization_losses=None) -> dict:
        """Each head's loss mean, and the regularization's (the heads add their own)."""
        eval_metrics = {}
        if regularization_losses is not None:
            eval_metrics[self._regularization_key] = tf_keras.metrics.Mean(
                name=MetricKeys.LOSS_REGULARIZATION
            )
        with tf.compat.v1.name_scope("merge_eval"):
            for key in self._loss_keys:
                eval_metrics[key] = tf_keras.metrics.Mean(name=key)
        return eval_metrics

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        logits_by_head = self._logits_by_head(logits, labels)
        if regularization_losses is not None:
            eval_metrics[self._regularization_key].update_state(
                values=tf.math.add_n(regularization_losses)
            )
        for head, loss_key in zip(self._heads, self._loss_keys, strict=True):
            head_logits, head_labels = logits_by_head[head.name], labels[head.name]
            loss = head.loss(logits=head_logits, labels=head_labels, features=features)
            eval_metrics[loss_key].update_state(values=loss)
            updated = head.update_metrics(head.metrics(), features, head_logits, head_labels)
            eval_metrics.update(updated or {})
        return eval_metrics

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
        """The merged spec of ``mode``; each head's own spec is built first, as
        TensorFlow's did (their loss summaries, their export outputs)."""
        with tf.compat.v1.name_scope(self.name, "multi_head"):
            logits_by_head = self._logits_by_head(logits, labels)
            head_specs = [
                head.create_estimator_spec(
                    features=features,
                    mode=mode,
                    logits=logits_by_head[head.name],
                    labels=labels[head.name] if labels else None,
                    train_op_fn=lambda loss: tf.no_op(),
                )
                for head in self._heads
            ]
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._merged_export_outputs(head_specs),
                )
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                eval_metrics = self.metrics(regularization_losses=regularization_losses)
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    loss=loss,
                    eval_metric_ops=self.update_metrics(
                        eval_metrics, features, logits, labels, regularization_losses
                    ),
                )
            if mode != ModeKeys.TRAIN:
                raise ValueError(f"mode={mode} unrecognized")
            train_op = train_op_for(
                loss,
                optimizer=optimizer,
                train_op_fn=train_op_fn,
                update_ops=update_ops,
                trainable_variables=trainable_variables,
                loss_reduction=self.loss_reduction,
            )
            loss_summaries(loss, regularization_losses)
            eval_metrics = {}
            for spec in head_specs:
                eval_metrics.update(spec.eval_metric_ops or {})
            return EstimatorSpec(
                mode=mode,
                loss=loss,
                train_op=train_op,
                predictions=predictions,
                eval_metric_ops=eval_metrics,
            )

    @property
    def _regularization_key(self) -> str:
        return f"{MetricKeys.LOSS_REGULARIZATION}/{self.name}"

    def _logits_by_head(self, logits, labels=None) -> dict:
        """``logits`` by head name (split if one tensor); checks both dicts' keys."""
        names = [head.name for head in self._heads]
        if isinstance(logits, dict):
            missing = list(set(names) - set(logits))
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            by_head = logits
        else:
            by_head = self._split(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict. Given: {labels}")
            missing = list(set(names) - set(labels))
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return by_head

    def _split(self, logits) -> dict:
        """One logits tensor cut along its last dimension, in the heads' order."""
        with tf.compat.v1.name_scope("split_logits", values=[logits]):
            logits = tf.convert_to_tensor(logits)
            dimensions = [head.logits_dimension for head in self._heads]
            shape = logits.shape.as_list()
            if shape[-1] is not None and shape[-1] != sum(dimensions):
                raise ValueError(
                    f"Could not split logits of shape {shape!r} among the heads with "
                    f"individual logits dimensions: {dimensions!r}. The last dimension of "
                    f"the logits tensor should equal {shape[-1]} but is {sum(dimensions)}."
                )
            batch_shape = tf.compat.v1.shape(logits)[:-1]
            zeros = tf.compat.v1.zeros_like(batch_shape)
            minus_ones = -1 * tf.compat.v1.ones_like(batch_shape)
            by_head, begin = {}, 0
            for head in self._heads:
                by_head[head.name] = tf.slice(
                    logits,
                    begin=tf.concat([zeros, [begin]], axis=0),
                    size=tf.concat([minus_ones, [head.logits_dimension]], axis=0),
                )
                begin += head.logits_dimension
        return by_head

    def _merged_export_outputs(self, head_specs) -> dict:
        """The first head's default signature as the default; every head's under
        ``<name>`` (its default) and ``<name>/<key>``; one ``predict`` signature
        with every head's predictions as ``<name>/<key>``."""
        outputs = {DEFAULT_SERVING_KEY: _default_output(head_specs[0], self._heads[0].name)}
        merged_predictions = {}
        for head, spec in zip(self._heads, head_specs, strict=True):
            for key, output in spec.export_outputs.items():
                outputs[head.name if key == DEFAULT_SERVING_KEY else f"{head.name}/{key}"] = output
                if key == PREDICT_SERVING_KEY and isinstance(output, export_output.PredictOutput):
                    for name, tensor in output.outputs.items():
                        merged_predictions[f"{head.name}/{name}"] = tensor
        outputs[PREDICT_SERVING_KEY] = export_output.PredictOutput(merged_predictions)
        return outputs


def _default_output(spec: EstimatorSpec, head_name: str):
    outputs = spec.export_outputs
    if len(outputs) == 1:
        return next(iter(outputs.values()))
    if DEFAULT_SERVING_KEY not in outputs:
        raise ValueError(
            f"{head_name} did not specify default export_outputs. Given: {outputs} "
            "Suggested fix: Use one of the heads in tf.estimator, or include key "
            f"{DEFAULT_SERVING_KEY} in export_outputs."
        )
    return outputs[DEFAULT_SERVING_KEY]
