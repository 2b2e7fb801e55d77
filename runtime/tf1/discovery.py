"""Builds model_fn once in a throwaway graph laid out like the legacy Estimator's.

The graph is built in exactly the order ``tf.estimator`` built it (seed, global
step, input_fn, model_fn), so the recorded variable initial values and op seeds
are the ones a TF 2.15 Estimator produced. Nothing here survives except the
:class:`Blueprint`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import lookup_ops
from tensorflow.python.training import training_util

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import split_features_labels
from estimator_revival.calls.spec import LOSS_METRIC_KEY, InGraphHook
from estimator_revival.tf1 import (
    graph_slice,
    input_slice,
    random_streams,
    seeds,
    session_config,
    session_setup,
    step_summaries,
    tpu_slices,
    train_step_slice,
    unfetched_updates,
)
from estimator_revival.tf1.own_saver import OwnSaver

log = logging.getLogger("tensorflow")

# the hash table ops a program may create itself and checkpoint (_raw_table)
_RAW_TABLE_TYPES = frozenset({"MutableHashTableV2", "MutableHashTableOfTensorsV2"})


@dataclasses.dataclass(frozen=True)
class VariableRecord:
    """One variable creation as model_fn asked for it."""

    name: str  # the TF1 name, also the checkpoint key
    initial: Callable[[], np.ndarray]  # the value its initializer assigns (initial_value)
    dtype: tf.DType
    trainable: bool
    collections: tuple[str, ...]
    synchronization: tf.VariableSynchronization
    aggregation: tf.VariableAggregation
    # A partition of a partitioned variable: (full name, full shape, offset, shape),
    # the slice it holds of the variable the checkpoint stores under the full name.
    partition: tuple | None = None
    # False for a variable whose shape changes as it is assigned (e.g.
    # streaming_concat's array: validate_shape=False)
    validate_shape: bool = True
    # the collections it joined as it was created (None: all of ``collections``);
    # model_fn adds it to the others itself, in every graph it builds
    created_in: tuple[str, ...] | None = None

    @property
    def initial_value(self) -> np.ndarray:
        return self.initial()

    @property
    def checkpoint_key(self) -> str:
        return self.partition[0] if self.partition else self.name

    @property
    def collections_at_creation(self) -> tuple[str, ...]:
        return self.collections if self.created_in is None else self.created_in

    @property
    def is_local(self) -> bool:
        return tf.compat.v1.GraphKeys.LOCAL_VARIABLES in self.collections

    @property
    def is_saved(self) -> bool:
        """Whether TF1's default Saver held it: global variables only (not local
        ones, nor variables in no collection, such as a Keras metric's that was
        replaced by another's, as the binary head's accuracy_baseline is)."""
        return tf.compat.v1.GraphKeys.GLOBAL_VARIABLES in self.collections


@dataclasses.dataclass(frozen=True)
class TableRecord:
    """A mutable hash table model_fn creates, which TF 1's Saver checkpointed (under
    ``<name>-keys`` and ``<name>-values``) as a SAVEABLE_OBJECTS entry: a
    ``MutableHashTable``, or a ``DenseHashTable`` when ``empty_key`` is set (its
    checkpoint holds its buckets, empty ones included)."""

    name: str
    key_dtype: tf.DType
    value_dtype: tf.DType
    default_value: np.ndarray
    empty_key: np.ndarray | None = None
    deleted_key: np.ndarray | None = None
    initial_num_buckets: int | None = None
    # A hash table op the program creates itself and checkpoints with a
    # SaveableObject of its own: the op's name (None: a lookup_ops table)
    op_name: str | None = None

    @property
    def checkpoint_keys(self) -> tuple[str, str]:
        return f"{self.name}-keys", f"{self.name}-values"


@dataclasses.dataclass(frozen=True)
class Blueprint:
    """What model_fn builds for one mode, recorded from the discovery graph."""

    mode: str
    global_step: VariableRecord
    variables: tuple[VariableRecord, ...]  # created by model_fn, in creation order
    input_seeds: tuple
    model_seeds: tuple
    loss_dtype: tf.DType | None
    returns_hooks: bool  # whether the spec carries training/evaluation/prediction hooks
    writes_summaries: bool  # whether model_fn builds tf.compat.v1.summary ops
    loss_summary_tag: str | None  # Estimator's `loss` summary tag; None: model_fn writes it
    scaffold_init_fn: bool  # whether the spec's Scaffold has an init_fn
    saver: session_setup.SaverSettings | None  # the spec's Scaffold saver's, a plain Saver
    # The spec's Scaffold saver when it has code of its own (own_saver.py)
    own_saver: OwnSaver | None
    # The writes model_fn builds that Estimator's steps never ran, or ran on
    # summary steps alone, and the initializers they ran (unfetched_updates.py)
    writes: unfetched_updates.StepWrites = unfetched_updates.StepWrites()
    # Variables read after an op that may write them, without waiting for it
    # (step_reads.py; a TF 1 graph's reference variables: ref_variables.py)
    read_after_written: frozenset = frozenset()
    tables: tuple[TableRecord, ...] = ()  # checkpointed hash tables, in creation order
    # The seeds each replica's model_fn drew in a legacy MirroredStrategy graph
    # (replicated_discovery.py); empty: every replica draws model_seeds.
    replica_model_seeds: tuple[tuple, ...] = ()
    # EVAL: the metric values Estimator read after the last update (the loss
    # mean's included), when they depend on variables alone (graph_slice.py),
    # and the metrics' updates, from the features and labels (flattened,
    # composites expanded), when they read and write variables alone
    metric_values: graph_slice.GraphSlice | None = None
    metric_updates: graph_slice.GraphSlice | None = None
    # EVAL, TPUEstimator on replicas: each replica's host-call tensors, and the
    # metric updates from their concatenation on the host (tpu_slices.py)
    host_metric_updates: tpu_slices.HostMetricUpdates | None = None
    # PREDICT: the predictions, from the features (flattened, composites
    # expanded), when they depend on features and variables alone
    predictions: graph_slice.GraphSlice | None = None
    # TRAIN: the loss and train_op, from the features and labels, when they read
    # and update variables alone and read none after an update
    train_step: graph_slice.GraphSlice | None = None
    # TRAIN: that step with model_fn's v1 summaries, when they are pure
    # computation on its tensors (step_summaries.py)
    summarized_step: step_summaries.StepSummaries | None = None
    # TRAIN, TPUEstimator on replicas: the step up to the gradients summed
    # across replicas, and from those sums (tpu_slices.py)
    replicated_step: tpu_slices.ReplicatedStep | None = None
    # TRAIN: the step's slices with what hooks fetch, made per set of fetches
    fetching_step: train_step_slice.FetchingStep | None = dataclasses.field(
        default=None, compare=False, repr=False
    )
    # The names the discovery graph held before model_fn ran (input_fn's ops, their
    # name scopes): a trace takes them first, so that model_fn's ops get the names
    # they had there, by which hooks' fetches and the step's writes find them
    names_before_model_fn: frozenset[str] = dataclasses.field(
        default=frozenset(), compare=False, repr=False
    )
    # TRAIN: the spec model_fn returned there (hooks begin with its hooks, in the
    # discovery graph, where the step is its slice)
    spec: object = dataclasses.field(default=None, compare=False, repr=False)
    # TRAIN: the discovery graph, the training graph as the Estimator built it
    # (its model_dir's graph.pbtxt and .meta files: saving/graph_files.py)
    graph: tf.Graph | None = dataclasses.field(default=None, compare=False, repr=False)

    def all_variables(self) -> tuple[VariableRecord, ...]:
        return (self.global_step, *self.variables)


class CreationLog:
    """A variable creator that records each creation and the variable it produced."""

    def __init__(self) -> None:
        self.created: list[tuple[dict, tf.Variable]] = []
        self.depth = 0
        # (first, end) positions in graph.get_operations() of the ops each creation
        # built; Graph.version counts the ops so far, without listing them
        self._creation_spans: list[tuple[int, int]] = []

    def creator(self, next_creator, **kwargs):
        graph = tf.compat.v1.get_default_graph()
        first_op = graph.version
        self.depth += 1
        try:
            variable = next_creator(**kwargs)
        finally:
            self.depth -= 1
        self._creation_spans.append((first_op, graph.version))
        self.created.append((kwargs, variable))
        return variable

    def initializer_ops(self, graph: tf.Graph) -> set[tf.Operation]:
        """The ops that built and initialized the variables, including initializers
        that init_from_checkpoint put in place afterwards."""
        operations = graph.get_operations()
        built = {op for first, end in self._creation_spans for op in operations[first:end]}
        return built | {variable.initializer for _, variable in self.created}


@dataclasses.dataclass(frozen=True)
class InputSignature:
    """What decides model_fn's graph besides model_fn, params and config: the op
    seeds input_fn drew (model_fn's seeds count on from there), the names of the
    ops in the graph when model_fn starts (model_fn's names are made unique
    against them), and the nest of features' and labels' type specs."""

    input_seeds: tuple
    op_names: tuple
    specs: object


@dataclasses.dataclass
class LegacyInputGraph:
    """The legacy graph up to input_fn's tensors, where model_fn's graph starts."""

    mode: str
    graph: tf.Graph
    features: object
    labels: object
    input_seeds: tuple
    creations: CreationLog
    dataset: tf.data.Dataset | None  # the dataset input_fn returned, if it did
    # what input_fn returned computed from its iterators' get_next(), if it did
    iterated: input_slice.IteratedInput | None = None

    def signature(self) -> InputSignature | None:
        """None when the input holds values other than tensors (Python lists,
        numpy arrays), which model_fn may build into its graph as constants."""
        leaves = tf.nest.flatten((self.features, self.labels))
        if not all(leaf is None or isinstance(leaf, _TENSOR_TYPES) for leaf in leaves):
            return None
        specs = tf.nest.map_structure(
            lambda leaf: None if leaf is None else tf.type_spec_from_value(leaf),
            (self.features, self.labels),
        )
        op_names = tuple(op.name for op in self.graph.get_operations())
        return InputSignature(self.input_seeds, op_names, specs)


_TENSOR_TYPES = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)


def legacy_input_graph(mode: str, *, input_fn_result, random_seed: int | None) -> LegacyInputGraph:
    """Builds the legacy graph as Estimator did up to model_fn: the seed, the global
    step, input_fn's tensors. ``input_fn_result`` is a zero-argument callable that
    calls the user's input_fn (inside this graph)."""
    graph = tf.Graph()
    creations = CreationLog()
    input_seeds: list = []
    with graph.as_default():
        tf.compat.v1.random.set_random_seed(random_seed)
        with tf.variable_creator_scope(creations.creator):
            tf.compat.v1.train.create_global_step(graph)
        if mode == ModeKeys.TRAIN:
            training_util._get_or_create_global_step_read(graph)
        with seeds.recording(input_seeds), input_slice.iterators_recorded() as iterators:
            result = input_fn_result()
            features, labels = _graph_input(result)
    if mode == ModeKeys.PREDICT:
        labels = None
    dataset = result if isinstance(result, tf.data.Dataset) else None
    iterated = None if dataset is not None else input_slice.iterated_input(result, iterators)
    return LegacyInputGraph(
        mode, graph, features, labels, tuple(input_seeds), creations, dataset, iterated
    )


def discover(input_graph: LegacyInputGraph, *, call_model_fn) -> Blueprint:
    """Records variables and seeds of ``call_model_fn(features, labels, mode)``
    built on ``input_graph``."""
    mode, graph, creations = input_graph.mode, input_graph.graph, input_graph.creations
    model_seeds: list = []
    with graph.as_default():
        skip_initializers = lambda: creations.depth > 0  # noqa: E731
        with (
            seeds.recording(model_seeds, skip_while=skip_initializers),
            tf.variable_creator_scope(creations.creator),
        ):
            first_model_op = len(graph.get_operations())
            spec = call_model_fn(input_graph.features, input_graph.labels, mode)
            if mode == ModeKeys.TRAIN:  # as the Estimator did, where hooks find it
                graph.add_to_collection(tf.compat.v1.GraphKeys.LOSSES, spec.loss)
            loss_mean = tf.compat.v1.metrics.mean(spec.loss) if mode == ModeKeys.EVAL else None
            initializers = creations.initializer_ops(graph)
            model_ops = [
                op for op in graph.get_operations()[first_model_op:] if op not in initializers
            ]
            writes = unfetched_updates.step_writes(
                model_ops,
                {variable.op.name: variable.initializer for _, variable in creations.created},
                _fetched(graph, spec, mode, loss_mean),
            )
            # Only a training step reads variables its own updates wrote.
            read_after_written = (
                train_step_slice.read_after_written(model_ops)
                if mode == ModeKeys.TRAIN
                else frozenset()
            )
            model_inputs = graph_slice.model_inputs(input_graph.features, input_graph.labels)
            metric_values, metric_updates, host_metric_updates = _metric_slices(
                spec, loss_mean, model_inputs
            )
            predictions = (
                graph_slice.slice_of(spec.predictions, model_inputs)
                if mode == ModeKeys.PREDICT
                else None
            )
            train_step, summarized_step, replicated_step, fetching_step = (
                _train_step_slices(spec, model_inputs, model_ops)
                if mode == ModeKeys.TRAIN
                else (None, None, None, None)
            )
        records = variable_records(graph, creations.created)
        own_saver = OwnSaver.of(spec.scaffold.saver, graph)
        tables = _checkpointed_tables(graph)
    unfetched_updates.log_skipped(writes, mode)
    loss_dtype = spec.loss.dtype if spec.loss is not None else None
    return Blueprint(
        mode=mode,
        global_step=records[0],
        variables=tuple(records[1:]),
        input_seeds=input_graph.input_seeds,
        model_seeds=tuple(model_seeds),
        loss_dtype=loss_dtype,
        scaffold_init_fn=spec.scaffold.init_fn is not None,
        saver=None if own_saver else session_setup.saver_settings(spec.scaffold.saver),
        own_saver=own_saver,
        writes=writes,
        read_after_written=read_after_written,
        tables=tables,
        metric_values=metric_values,
        metric_updates=metric_updates,
        host_metric_updates=host_metric_updates,
        predictions=predictions,
        train_step=train_step,
        replicated_step=replicated_step,
        summarized_step=summarized_step,
        fetching_step=fetching_step,
        graph=graph if mode == ModeKeys.TRAIN else None,
        spec=spec if mode == ModeKeys.TRAIN else None,
        names_before_model_fn=_names_and_scopes(graph.get_operations()[:first_model_op]),
        writes_summaries=bool(graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)),
        loss_summary_tag=_loss_summary_tag(graph),
        returns_hooks=bool(
            spec.training_hooks
            or spec.training_chief_hooks
            or spec.evaluation_hooks
            or spec.prediction_hooks
        ),
    )


def _train_step_slices(spec, model_inputs, model_ops) -> tuple:
    """The training step's slice, and where it has one: when model_fn has v1
    summaries, the step's slices writing them (step_summaries.py); on
    TPUEstimator's replicas, the step's slices around its gradient sums
    (tpu_slices.py); the step's slices with hooks' fetches
    (train_step_slice.py). None where there is none."""
    random = random_streams.occurrences(model_ops)
    outputs = (spec.loss, spec.train_op)
    step = train_step_slice.step_slice(outputs, model_inputs, model_ops, random)
    if step is None:  # a read after an update, or ops no slice can replay
        return None, None, None, None
    graph = spec.loss.graph
    replicated = tpu_slices.replicated_step(graph, spec, model_inputs, random=random)
    if _in_graph_hooks(spec):  # their work runs in a trace of model_fn (a host_call's)
        return None, None, replicated, None
    fetching = train_step_slice.FetchingStep(
        loss=spec.loss,
        train_op=spec.train_op,
        model_inputs=model_inputs,
        model_ops=model_ops,
        random=random,
    )
    summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    if not summaries:
        return step, None, replicated, fetching
    summarized = step_summaries.sliced(summaries, outputs, model_inputs, step=step, random=random)
    return step, summarized, replicated, fetching


def _names_and_scopes(ops) -> frozenset[str]:
    """The names ``ops`` took in their graph: their own, and their name scopes'."""
    names = set()
    for op in ops:
        parts = op.name.split("/")
        names.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return frozenset(names)


def _in_graph_hooks(spec) -> bool:
    hooks = (*spec.training_hooks, *spec.training_chief_hooks)
    return any(isinstance(hook, InGraphHook) for hook in hooks)


def _fetched(graph: tf.Graph, spec, mode: str, loss_mean) -> tuple:
    """What Estimator's Session ran in steps of ``mode`` (hooks' fetches aside):
    ``(every step, on summary steps)``."""
    if mode == ModeKeys.TRAIN:
        summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
        return (spec.train_op, spec.loss), summaries
    if mode == ModeKeys.EVAL:
        return (spec.eval_metric_ops, loss_mean), ()
    return spec.predictions, ()


def _metric_slices(spec, loss_mean, model_inputs) -> tuple:
    """The slices computing EVAL's metric values from the metric variables, its
    metric updates from the model's inputs, and those updates as TPUEstimator
    on replicas ran them (tpu_slices.py)."""
    eval_metric_ops = spec.eval_metric_ops
    if loss_mean is None or LOSS_METRIC_KEY in eval_metric_ops:
        return None, None, None  # not evaluating, or the trace raises Estimator's error
    metrics = {**eval_metric_ops, LOSS_METRIC_KEY: loss_mean}
    values = graph_slice.slice_of({name: value for name, (value, _) in metrics.items()})
    updates = [update for _, (_, update) in sorted(metrics.items())]
    host_updates = tpu_slices.host_metric_updates(spec.loss.graph, updates, spec.loss, model_inputs)
    return values, graph_slice.slice_of(updates, model_inputs, writes=True), host_updates


def _loss_summary_tag(graph: tf.Graph) -> str | None:
    """The tag of the ``loss`` summary Estimator added after model_fn.

    Estimator skipped it when model_fn had a summary op named ``loss``; otherwise
    ``summary.scalar('loss', ...)`` took the next free name scope, ``loss_1`` when
    model_fn already used ``loss`` (BERT's ``variable_scope("loss")``).
    """
    summaries = graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    if any(summary.op.name == "loss" for summary in summaries):
        return None
    with graph.as_default(), graph.name_scope(None):
        return graph.unique_name("loss", mark_as_used=False)


def _graph_input(result) -> tuple:
    """Turns an input_fn result into graph tensors the way Estimator did."""
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        result = iterator.get_next()
    return split_features_labels(result)


def variable_records(graph: tf.Graph, created) -> list[VariableRecord]:
    """The records of the variables ``created`` in ``graph`` (``(kwargs,
    variable)`` as :class:`CreationLog` logged them), with their initial values."""
    values = InitialValues([variable for _, variable in created])
    records = []
    for index, (kwargs, variable) in enumerate(created):
        records.append(
            VariableRecord(
                name=variable.op.name,
                initial=functools.partial(values.value, index),
                dtype=variable.dtype.base_dtype,
                trainable=variable.trainable,
                collections=_collections_of(graph, variable),
                created_in=collections_at_creation(kwargs, variable.trainable),
                synchronization=kwargs.get("synchronization") or tf.VariableSynchronization.AUTO,
                aggregation=kwargs.get("aggregation") or tf.VariableAggregation.NONE,
                partition=_partition_of(variable),
                validate_shape=kwargs.get("validate_shape", True),
            )
        )
    return records


class InitialValues:
    """The values the discovery graph's variable initializers assign, each
    variable's ``initial_value`` tensor (which init_from_checkpoint replaces too).

    Constants are read from the graph; the others are computed when one is first
    asked for, all in one Session run (an op runs once per run, so a value two
    initializers share is the same in both, as when the Estimator's session ran
    them all at once). A call that restores a checkpoint asks only for its local
    variables' values, zeros, so it runs no Session at all.
    """

    def __init__(self, variables: list) -> None:
        self._tensors = [variable.initial_value for variable in variables]
        self._values = [tf.get_static_value(tensor) for tensor in self._tensors]

    def value(self, index: int) -> np.ndarray:
        if self._values[index] is None:
            self._compute_the_others()
        return self._values[index]

    def _compute_the_others(self) -> None:
        pending = [index for index, value in enumerate(self._values) if value is None]
        # model_fn may pin ops to devices this machine lacks (`with tf.device("/gpu:0")`
        # multi-tower code): placed as the Estimator's session placed them
        graph = self._tensors[pending[0]].graph
        with tf.compat.v1.Session(graph=graph, config=session_config.placement_config()) as session:
            values = session.run([self._tensors[index] for index in pending])
        for index, value in zip(pending, values, strict=True):
            self._values[index] = value
        self._tensors = None  # the discovery graph can go


def _checkpointed_tables(graph: tf.Graph) -> tuple[TableRecord, ...]:
    """The mutable hash tables in SAVEABLE_OBJECTS (lookup_ops' tables, and table
    ops a program's own saveable saves); other saveables are left out of the
    runtime's checkpoints, with a warning naming them."""
    tables = []
    for saveable in graph.get_collection(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS):
        table = saveable.op
        raw = _raw_table(saveable)
        if raw is not None:
            tables.append(_raw_table_record(saveable.name, raw))
            continue
        if not isinstance(table, lookup_ops.MutableHashTable | lookup_ops.DenseHashTable):
            log.warning(
                "%s (%s) is not saved in the runtime's checkpoints: only variables, "
                "MutableHashTables and DenseHashTables are.",
                saveable.name,
                type(table).__name__,
            )
            continue
        record = TableRecord(
            name=saveable.name,
            key_dtype=table.key_dtype,
            value_dtype=table.value_dtype,
            default_value=tf.get_static_value(table._default_value),
        )
        if isinstance(table, lookup_ops.DenseHashTable):
            record = dataclasses.replace(
                record,
                empty_key=_constant(table._empty_key, table.key_dtype),
                deleted_key=_constant(table._deleted_key, table.key_dtype),
                initial_num_buckets=table._initial_num_buckets,
            )
        tables.append(record)
    return tuple(tables)


def _raw_table(saveable) -> tf.Operation | None:
    """The hash table op a program's own SaveableObject saves, as TF 1 code
    checkpointed a table op it created itself: its two specs, ``<name>-keys`` and
    ``<name>-values``, are what ``LookupTableExportV2`` exports of it."""
    specs = {spec.name: spec.tensor for spec in saveable.specs}
    keys, values = specs.get(f"{saveable.name}-keys"), specs.get(f"{saveable.name}-values")
    if len(specs) != 2 or not isinstance(keys, tf.Tensor) or not isinstance(values, tf.Tensor):
        return None
    export = keys.op
    if export.type != "LookupTableExportV2" or values.op is not export:
        return None
    table = export.inputs[0].op
    return table if table.type in _RAW_TABLE_TYPES else None


def _raw_table_record(name: str, table: tf.Operation) -> TableRecord:
    value_dtype = tf.as_dtype(table.get_attr("value_dtype"))
    value_shape = (
        tf.TensorShape(table.get_attr("value_shape"))
        if table.type == "MutableHashTableOfTensorsV2"
        else tf.TensorShape([])
    )
    return TableRecord(
        name=name,
        key_dtype=tf.as_dtype(table.get_attr("key_dtype")),
        value_dtype=value_dtype,
        default_value=np.zeros(value_shape, value_dtype.as_numpy_dtype),
        op_name=table.name,
    )


def _constant(value, dtype: tf.DType) -> np.ndarray:
    """A table argument (a Python or numpy value, or a constant tensor) as numpy."""
    if isinstance(value, tf.Tensor):
        return tf.get_static_value(value)
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


def _partition_of(variable) -> tuple | None:
    info = variable._get_save_slice_info()
    if info is None:
        return None
    return (info.full_name, tuple(info.full_shape), tuple(info.var_offset), tuple(info.var_shape))


def collections_at_creation(kwargs, trainable: bool) -> tuple[str, ...]:
    """The collections a graph variable created with ``kwargs`` joined."""
    keys = tf.compat.v1.GraphKeys
    collections = list(kwargs.get("collections") or [keys.GLOBAL_VARIABLES])
    if trainable and keys.TRAINABLE_VARIABLES not in collections:
        collections.append(keys.TRAINABLE_VARIABLES)
    return tuple(collections)


def _collections_of(graph: tf.Graph, variable) -> tuple[str, ...]:
    return tuple(
        key
        for key in graph.get_all_collection_keys()
        if any(member is variable for member in graph.get_collection(key))
    )
