"""``tf.contrib.estimator.replicate_model_fn`` and ``TowerOptimizer``: TF 1.15's
in-graph replication of a model_fn over devices ("towers"), built as TF 1.15
built it, so the runtime runs the very graph the Estimator ran.

One model_fn call builds every tower: the batch is split on axis 0 (under
``split_inputs``, on the consolidation device), model_fn runs once per device
(tower 0 unprefixed, the others under ``tower_<i>`` reusing its variables, all
variables on the consolidation device), and each tower's loss is divided by the
number of towers unless ``loss_reduction`` is SUM (``averaged_loss``). Then:

- TRAIN: each ``TowerOptimizer`` scales the loss it differentiates the same way,
  towers before the last return a ``train_op_placeholder`` NoOp after their
  gradients, and the last tower's call adds each variable's gradients up on the
  variable's device (``gradient_aggregating``) and applies them once, in the
  first tower's scopes. The loss is the towers' losses added up (``loss``).
- EVAL: tower 0's metrics, whose update op also adds the other towers' metric
  variables into tower 0's and zeroes them; the loss added up as in TRAIN.
- PREDICT: predictions and export outputs concatenated across towers.

With one device (by default, on a machine without GPUs: its CPU), model_fn
runs once on it, with no split and no scaling.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect

import tensorflow as tf
from tensorflow.core.framework import node_def_pb2

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.estimator.export import (
    ClassificationOutput,
    PredictOutput,
    RegressionOutput,
)

_Reduction = tf.compat.v1.losses.Reduction
_GRAPH_STATES = "replicate_model_fn_graph_states"  # TF 1.15's collection name
_TOWER_SCOPE = "tower_{}"
_VARIABLE_OPS = frozenset({"Variable", "VariableV2", "VarHandleOp"})
_CONCATENATED_OUTPUTS = (PredictOutput, RegressionOutput, ClassificationOutput)


def replicate_model_fn(model_fn, loss_reduction=_Reduction.SUM_BY_NONZERO_WEIGHTS, devices=None):
    """``model_fn`` replicated over ``devices`` (default: every local GPU, else
    the CPU), as TF 1.15's ``tf.contrib.estimator.replicate_model_fn``."""
    if loss_reduction == _Reduction.NONE:
        raise ValueError(
            f"Tower losses need to be reduced in some way, yet {loss_reduction} "
            "reduction is specified."
        )
    devices = list(devices or _local_devices("GPU") or _local_devices("CPU"))
    one_gpu = len(devices) == 1 and "GPU" in devices[0].upper()
    consolidation_device = devices[0] if one_gpu else "/CPU:0"
    towers = _Towers(model_fn, loss_reduction, devices, consolidation_device)
    tf.compat.v1.logging.info(
        f"Replicating the `model_fn` across {devices}.  Variables are going to be placed "
        f"on {[consolidation_device]}.  Consolidation device is going to be "
        f"{consolidation_device}."
    )
    return towers.on_one_device if len(devices) == 1 else towers.replicated


def _local_devices(device_type: str) -> list[str]:
    """This machine's devices of a type as TF 1.15's ``device_lib`` listed them
    (``/device:GPU:0``): the physical ones, whatever logical devices the
    process configured."""
    return [
        f"/device:{device_type}:{index}"
        for index, _ in enumerate(tf.config.list_physical_devices(device_type))
    ]


@dataclasses.dataclass(frozen=True)
class _Towers:
    model_fn: object
    loss_reduction: str
    devices: list
    consolidation_device: str

    def on_one_device(self, features, labels, mode, params=None, config=None) -> EstimatorSpec:
        return self._tower_specs(mode, [features], [labels], params, config)[0]

    def replicated(self, features, labels, mode, params=None, config=None) -> EstimatorSpec:
        feature_shards, label_shards = _split_batch(
            features, labels, len(self.devices), self.consolidation_device
        )
        specs = self._tower_specs(mode, feature_shards, label_shards, params, config)
        if mode == ModeKeys.TRAIN:
            return _train_spec(specs, self.consolidation_device)
        if mode == ModeKeys.EVAL:
            return _eval_spec(specs, self.consolidation_device)
        return _predict_spec(specs, self.consolidation_device)

    def _tower_specs(self, mode, features, labels, params, config) -> list[EstimatorSpec]:
        """model_fn once per device, each on its shard of the batch."""
        declared = inspect.signature(self.model_fn).parameters
        optional = {}
        if "params" in declared:
            optional["params"] = copy.deepcopy(params)
        if "config" in declared:
            optional["config"] = copy.deepcopy(config)
        state = _graph_state()
        state.number_of_towers, state.loss_reduction = len(self.devices), self.loss_reduction
        specs = []
        for index, device in enumerate(self.devices):
            with (
                state.tower(index, _TOWER_SCOPE.format(index) if index else ""),
                tf.compat.v1.device(_device_chooser(device, self.consolidation_device)),
            ):
                spec = self.model_fn(
                    mode=mode,
                    features=features[index],
                    labels=labels[index] if labels else None,
                    **optional,
                )
                if spec.train_op is not None and len(self.devices) > 1 and not state.used:
                    raise ValueError(
                        "Please wrap optimizers with TowerOptimizer in order to use "
                        "replicate_model_fn with multiple `devices`."
                    )
                specs.append(_with_loss(spec, _scaled(spec.loss, state)))
        if not state.same_optimizer_calls_in_every_tower():
            raise ValueError(
                "Each invocation of model_fn was supposed to make the same optimizer calls."
            )
        tf.compat.v1.get_default_graph().clear_collection(_GRAPH_STATES)
        return specs


def _device_chooser(tower_device: str, variable_device: str):
    """Variables on ``variable_device``, every other op on ``tower_device``; a
    device the program gave an op itself wins over both."""

    def choose(op) -> str:
        node = op if isinstance(op, node_def_pb2.NodeDef) else op.node_def
        chosen = variable_device if node.op in _VARIABLE_OPS else tower_device
        own = tf.DeviceSpec.from_string(op.device or "")
        return tf.DeviceSpec.from_string(chosen or "").make_merged_spec(own).to_string()

    return choose


def _split_batch(features, labels, shards: int, device: str) -> tuple:
    with tf.compat.v1.name_scope("split_inputs"), tf.compat.v1.device(device):
        return _split(features, shards), None if labels is None else _split(labels, shards)


def _split(tensors, shards: int) -> list:
    """A tensor, or each of a dict's, in ``shards`` parts on axis 0 (a dict's
    SparseTensors too)."""
    if not isinstance(tensors, dict):
        return tf.split(_divisible(tensors, shards), shards)
    parts = [{} for _ in range(shards)]
    for name, tensor in tensors.items():
        if isinstance(tensor, tf.SparseTensor):
            split = tf.compat.v1.sparse_split(sp_input=tensor, num_split=shards, axis=0)
        else:
            split = tf.split(_divisible(tensor, shards), shards)
        for part, piece in zip(parts, split, strict=True):
            part[name] = piece
    return parts


def _divisible(tensor, shards: int):
    """``tensor``, checked as TF 1.15 checked it: an unknown batch size passes."""
    batch_size = tf.convert_to_tensor(tensor).shape[0]
    if batch_size is not None and batch_size % shards != 0:
        raise ValueError(
            f"Batch size {batch_size} needs to be divisible by the number of GPUs, "
            f"which is {shards}."
        )
    return tensor


def _scaled(loss, state: _GraphState):
    """``loss`` divided by the number of towers, unless the towers' losses are
    summed (or there is one tower)."""
    if loss is None or state.number_of_towers == 1 or state.loss_reduction == _Reduction.SUM:
        return loss
    return tf.compat.v1.div(loss, 1.0 * state.number_of_towers, name="averaged_loss")


def _with_loss(spec: EstimatorSpec, loss) -> EstimatorSpec:
    return spec if spec.loss is None else spec._replace(loss=loss)


def _sum_on(values: list, device: str, name=None):
    """The sum of the towers' values on ``device``; IndexedSlices concatenated."""
    with tf.compat.v1.device(device):
        if isinstance(values[0], tf.IndexedSlices):
            return tf.IndexedSlices(
                tf.concat([value.values for value in values], axis=0),
                tf.concat([value.indices for value in values], axis=0),
                values[0].dense_shape,
            )
        return tf.math.add_n(values, name=name)


def _train_spec(specs: list, device: str) -> EstimatorSpec:
    """The last tower's spec (hooks that check the optimizer's calls, which it
    alone made); its train_op applies every tower's gradients."""
    return specs[-1]._replace(
        mode=ModeKeys.TRAIN, loss=_sum_on([spec.loss for spec in specs], device, "loss")
    )


def _eval_spec(specs: list, device: str) -> EstimatorSpec:
    updates = [update for spec in specs for _, update in spec.eval_metric_ops.values()]
    with tf.control_dependencies(updates):
        gathered = _gather_metric_variables(len(specs))
    return specs[0]._replace(
        mode=ModeKeys.EVAL,
        loss=_sum_on([spec.loss for spec in specs], device, "loss"),
        eval_metric_ops={
            name: (value, gathered) for name, (value, _) in specs[0].eval_metric_ops.items()
        },
    )


def _gather_metric_variables(towers: int):
    """Adds each metric variable of the other towers into tower 0's and zeroes
    it (so that running the op again adds nothing twice)."""
    if towers == 1:
        return tf.no_op(name="no_eval_metric_reduction")
    variables = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.METRIC_VARIABLES)
    per_tower = len(variables) // towers
    if len(variables) % towers != 0:
        raise ValueError(
            "Different `EstimatorSpec.eval_metric_ops` across `model_fn()` calls. Expected "
            f"{per_tower * towers} local variables, but got {len(variables)} instead."
        )
    zeroed = []
    for index in range(per_tower):
        copies = variables[index + per_tower :: per_tower]
        added = tf.compat.v1.assign_add(variables[index], tf.math.add_n(copies))
        with tf.control_dependencies([added]):
            zeroed += [
                tf.compat.v1.assign(copy_, tf.zeros(tf.shape(copy_), dtype=copy_.dtype))
                for copy_ in copies
            ]
    return tf.group(*zeroed)


def _predict_spec(specs: list, device: str) -> EstimatorSpec:
    with tf.compat.v1.device(device):
        predictions = _concatenated([spec.predictions for spec in specs])
        outputs = {
            name: _concatenated_output(per_tower)
            for name, per_tower in _by_key([spec.export_outputs for spec in specs]).items()
            if isinstance(per_tower[0], _CONCATENATED_OUTPUTS)  # TF 1.15 left out others
        }
    return specs[0]._replace(mode=ModeKeys.PREDICT, predictions=predictions, export_outputs=outputs)


def _concatenated_output(per_tower: list):
    first = per_tower[0]
    if isinstance(first, PredictOutput):
        return PredictOutput(outputs=_concatenated([output.outputs for output in per_tower]))
    if isinstance(first, RegressionOutput):
        return RegressionOutput(value=tf.concat([output.value for output in per_tower], axis=0))
    if isinstance(first, ClassificationOutput):
        scores = classes = None
        if first.scores is not None:
            scores = tf.concat([output.scores for output in per_tower], axis=0)
        if first.classes is not None:
            classes = tf.stack([output.classes for output in per_tower], axis=0)
        return ClassificationOutput(scores=scores, classes=classes)
    raise TypeError(f"not an output of one of {_CONCATENATED_OUTPUTS}: {first!r}")


def _concatenated(dicts: list) -> dict:
    return {name: tf.concat(tensors, axis=0, name=name) for name, tensors in _by_key(dicts).items()}


def _by_key(dicts: list) -> dict:
    """``{key: [each dict's value]}`` over the dicts that are not None."""
    merged = {}
    for mapping in dicts:
        for key, value in mapping.items() if mapping is not None else ():
            merged.setdefault(key, []).append(value)
    return merged


class _GraphState:
    """What the towers' TowerOptimizers share in one graph: the tower being
    built, the first tower's scopes, every tower's gradients per optimizer call."""

    def __init__(self) -> None:
        self.gradients: dict[int, list] = {}
        self.tower_index = 0
        self.number_of_towers = 1
        self.loss_reduction = None
        self.first_tower_scopes = (None, None)
        self.used = False

    @contextlib.contextmanager
    def tower(self, index: int, name_scope: str):
        with (
            tf.compat.v1.variable_scope("", reuse=index > 0) as variable_scope,
            tf.compat.v1.name_scope(name_scope) as full_name_scope,
        ):
            if index == 0:
                self.first_tower_scopes = (variable_scope, full_name_scope)
            self.tower_index = index
            yield

    @property
    def is_the_last_tower(self) -> bool:
        return self.tower_index == self.number_of_towers - 1

    def collect(self, grads_and_vars) -> None:
        self.gradients.setdefault(self.tower_index, []).append(grads_and_vars)

    def latest_of_every_tower(self) -> list:
        """The pairs of the last optimizer call, in every tower so far."""
        call = len(self.gradients[self.tower_index]) - 1
        return [
            pair for tower in range(self.tower_index + 1) for pair in self.gradients[tower][call]
        ]

    def same_optimizer_calls_in_every_tower(self) -> bool:
        calls = sum(len(per_tower) for per_tower in self.gradients.values())
        return calls % self.number_of_towers == 0


def _graph_state() -> _GraphState:
    states = tf.compat.v1.get_default_graph().get_collection_ref(_GRAPH_STATES)
    if not states:
        states.append(_GraphState())
    return states[-1]


class TowerOptimizer(tf.compat.v1.train.Optimizer):
    """Gathers gradients from all towers and applies their sum in the last one
    (TF 1.15's ``tf.contrib.estimator.TowerOptimizer``). Without
    ``replicate_model_fn``, or with one tower, it is the optimizer it wraps."""

    COLLECTION_FOR_GRAPH_STATES = _GRAPH_STATES

    def __init__(self, optimizer_or_optimizer_fn) -> None:
        # (the wrapped optimizer's own state is its; no base-class state here)
        self._optimizer_or_optimizer_fn = optimizer_or_optimizer_fn

    @staticmethod
    def has_been_used() -> bool:
        return _graph_state().used

    def get_slot(self, *args, **kwargs):
        return self._optimizer().get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer().get_slot_names(*args, **kwargs)

    def get_name(self, *args, **kwargs):
        return self._optimizer().get_name(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer().variables(*args, **kwargs)

    def compute_gradients(self, loss, *args, **kwargs):
        """The wrapped optimizer's gradients of the loss scaled as the towers' are."""
        return self._optimizer().compute_gradients(_scaled(loss, _graph_state()), *args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, **kwargs):
        state = _graph_state()
        if state.number_of_towers == 1:
            return self._optimizer().apply_gradients(grads_and_vars, global_step, **kwargs)
        # kept as given: TF 1.15 kept a zip too, which its dependencies below used up
        state.collect(grads_and_vars)
        if not state.is_the_last_tower:
            with tf.control_dependencies(_gradient_tensors(grads_and_vars)):
                return tf.no_op(name="train_op_placeholder")
        # in the first tower's scopes: the update ops' names have no prefix
        variable_scope, name_scope = state.first_tower_scopes
        with tf.compat.v1.variable_scope(variable_scope), tf.compat.v1.name_scope(name_scope):
            return self._apply_summed(state, global_step, **kwargs)

    def _apply_summed(self, state: _GraphState, global_step, **kwargs):
        per_variable: dict = {}
        for grad, var in state.latest_of_every_tower():
            if grad is not None:
                per_variable.setdefault(var.ref(), []).append(grad)
        with tf.compat.v1.name_scope("gradient_aggregating"):
            summed = [
                (_sum_on(grads, ref.deref().device), ref.deref())
                for ref, grads in per_variable.items()
            ]
        return self._optimizer().apply_gradients(summed, global_step=global_step, **kwargs)

    def _optimizer(self) -> tf.compat.v1.train.Optimizer:
        """The wrapped optimizer; one given as a function is built on first use,
        in the graph the towers are built in."""
        if callable(self._optimizer_or_optimizer_fn):
            self._optimizer_or_optimizer_fn = self._optimizer_or_optimizer_fn()
        _graph_state().used = True
        return self._optimizer_or_optimizer_fn


def _gradient_tensors(grads_and_vars) -> list:
    return [
        grad.values if isinstance(grad, tf.IndexedSlices) else grad
        for grad, _ in grads_and_vars
        if grad is not None
    ]
