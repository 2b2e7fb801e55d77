"""The real variables, keyed by their TF1 names, and the creator scope that hands
them to model_fn while it is traced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from unittest import mock

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_lookup_ops, lookup_ops, resource_variable_ops
from tensorflow.python.training.saving import saveable_object, saveable_object_util

from estimator_revival.distribute.replication import assign_in_own_scope, components
from estimator_revival.tf1.discovery import TableRecord, VariableRecord, collections_at_creation
from estimator_revival.tf1.variable_ops import give_graph_op

GLOBAL_STEP_NAME = "global_step"
_TABLE_KINDS = (lookup_ops.MutableHashTable, lookup_ops.DenseHashTable)
# the functions creating the table ops a program's own saveable may checkpoint,
# and the ops' types (their default names)
_TABLE_OPS = {
    "mutable_hash_table_v2": "MutableHashTableV2",
    "mutable_hash_table_of_tensors_v2": "MutableHashTableOfTensorsV2",
}


class VariableStore:
    """Creates each discovered variable once and keeps it by name.

    Model variables are created under the training strategy, local (metric)
    variables under the evaluation strategy.
    """

    def __init__(
        self,
        strategy: tf.distribute.Strategy,
        *,
        local_strategy: tf.distribute.Strategy | None = None,
    ) -> None:
        self._strategy = strategy
        self._local_strategy = local_strategy or strategy
        self._variables: dict[str, tf.Variable] = {}
        self._records: dict[str, VariableRecord] = {}
        self._pending: Iterator[VariableRecord] = iter(())
        self._what = "model_fn"
        self._materializing = False
        self._made_by_hooks: list[str] | None = None
        self._tables: dict[str, lookup_ops.MutableHashTable | lookup_ops.DenseHashTable] = {}
        self._table_ops: dict[str, str] = {}  # {table op name: its table's name}
        self._empty_contents: dict[str, tuple] = {}  # {name: a new table's (keys, values)}

    def materialize(self, records: Sequence[VariableRecord]) -> list[str]:
        """Creates the variables not seen before; returns their names.

        Also works while :meth:`serving` is active, e.g. for an evaluation that a
        saving listener runs in the middle of training.
        """
        new = [record for record in records if record.name not in self._variables]
        self._materializing = True
        for record in new:
            strategy = self._local_strategy if record.is_local else self._strategy
            with strategy.scope():
                self._variables[record.name] = tf.Variable(
                    initial_value=record.initial_value,
                    name=record.name,
                    dtype=record.dtype,
                    trainable=record.trainable,
                    synchronization=record.synchronization,
                    aggregation=record.aggregation,
                    shape=None if record.validate_shape else tf.TensorShape(None),
                )
                give_graph_op(self._variables[record.name], record.name)
                self._records[record.name] = record
        self._materializing = False
        return [record.name for record in new]

    def materialize_tables(self, records: Sequence[TableRecord]) -> None:
        """Creates the hash tables not seen before (eagerly: they outlive a trace)."""
        for record in records:
            if record.op_name is not None:
                self._table_ops[record.op_name] = record.name
            if record.name not in self._tables:
                table = _eager_table(record)
                self._tables[record.name] = table
                self._empty_contents[record.name] = table.export()

    def restore_tables(self, contents: dict) -> None:
        """Replaces each table's contents with ``{name: (keys, values)}``."""
        for name, (keys, values) in contents.items():
            self._tables[name]._restore_from_tensors({"-keys": keys, "-values": values})

    def empty_tables(self, names: Sequence[str]) -> None:
        """Empties tables, as a fresh Session's new tables were (a dense table gets
        back its first buckets, all empty)."""
        self.restore_tables({name: self._empty_contents[name] for name in names})

    def checkpoint_var_list(self) -> dict:
        """``{checkpoint key: variable or list of partitions}``, as TF1's Saver keyed them.

        Variables that are not global (metrics a TRAIN-mode model_fn builds too)
        are left out, as the Saver's default list of global variables left them out.
        """
        var_list: dict = {}
        for name, record in self._records.items():
            if not record.is_saved:
                continue
            variable = self._variables[name]
            if isinstance(variable, tf.distribute.DistributedValues):
                # Mirrored: the primary copy; sync-on-read: the value reduced
                # across replicas (what TF1's Saver saved for them).
                (make_saveable,) = variable._gather_saveables_for_checkpoint().values()
                if record.partition is None:
                    var_list[name] = make_saveable(name=name)
                    continue
                variable = variable._primary
            if record.partition is None:
                var_list[name] = variable
            else:
                # A saveable per slice: Saver's own path for variable slices
                # needs graph variables (it reads `variable.op`).
                full_name, full_shape, offset, shape = record.partition
                spec = tf.Variable.SaveSliceInfo(full_name, full_shape, offset, shape).spec
                saveable = saveable_object_util.ResourceVariableSaveable(
                    variable, spec, record.checkpoint_key
                )
                var_list.setdefault(record.checkpoint_key, []).append(saveable)
        var_list.update(self._tables)  # saved as <name>-keys and <name>-values
        return var_list

    def __getitem__(self, name: str) -> tf.Variable:
        return self._variables[name]

    def __contains__(self, name: str) -> bool:
        return name in self._variables

    def items(self):
        return self._variables.items()

    def variables(self) -> list[tf.Variable]:
        return list(self._variables.values())

    def names(self) -> list[str]:
        return sorted(self._variables)

    @property
    def global_step(self) -> tf.Variable:
        return self._variables[GLOBAL_STEP_NAME]

    def reset(self, names: Sequence[str]) -> None:
        """Assigns the recorded initial values again (metric variables per evaluate)."""
        for name in names:
            assign_in_own_scope(self._variables[name], self._records[name].initial_value)

    @contextlib.contextmanager
    def values_kept(self, *, inside_training: bool) -> Iterator[None]:
        """The variables as they were before, once the block ends: a call inside
        another shares the outer call's variables, where the Estimator's two
        sessions had a variable each. The local (metric) ones always (an
        evaluation a training call's listener runs); inside a training call, all
        of them (an Experiment's validation evaluates an older checkpoint than
        the variables training goes on from)."""
        kept = {
            name: [component.numpy() for component in components(self._variables[name])]
            for name, record in self._records.items()
            if record.is_local or inside_training
        }
        try:
            yield
        finally:
            for name, values in kept.items():
                for component, value in zip(components(self._variables[name]), values, strict=True):
                    component.assign(value)

    def trainable_names(self) -> list[str]:
        return [name for name, record in self._records.items() if record.trainable]

    def restore(self, values: dict) -> None:
        for name, value in values.items():
            variable = self._variables[name]
            if self._records[name].validate_shape and variable.shape != np.shape(value):
                raise tf.errors.InvalidArgumentError(
                    None,
                    None,
                    # TF 1's Saver.restore, on a variable of another shape
                    "Restoring from checkpoint failed. This is most likely due to a mismatch "
                    "between the current graph and the graph from the checkpoint. Please "
                    "ensure that you have not altered the graph expected based on the "
                    "checkpoint. Original error:\n\nAssign requires shapes of both tensors "
                    f"to match. lhs shape= {variable.shape.as_list()} rhs shape= "
                    f"{list(np.shape(value))} (variable {name})",
                )
            assign_in_own_scope(variable, value)

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """While active, variable creations return the variables named by :meth:`expect`.

        Enter it outside the ``tf.function`` call so that it is active in the
        traced graph, in ``init_scope`` and in replica threads alike.
        """
        with tf.variable_creator_scope(self._serve), self._tables_served():
            yield

    @contextlib.contextmanager
    def _tables_served(self) -> Iterator[None]:
        """While active, a hash table model_fn creates in a trace uses the store's
        table of its name (the one checkpoints save and restore), and builds no
        saveable (its export op would run in every step)."""
        tables = self._tables
        originals = [(kind, kind._create_resource, kind._Saveable) for kind in _TABLE_KINDS]

        def served(original_create, original_saveable):
            def create_resource(table):
                if tf.executing_eagerly() or table._name not in tables:
                    return original_create(table)
                table._table_name = table._name
                return tables[table._name].resource_handle

            def no_saveable(table, name, table_name=None):
                if tf.executing_eagerly() or name not in tables:
                    return original_saveable(table, name, table_name)
                return saveable_object.SaveableObject(table, [], name)

            return create_resource, no_saveable

        for kind, original_create, original_saveable in originals:
            kind._create_resource, kind._Saveable = served(original_create, original_saveable)
        try:
            with self._table_ops_served():
                yield
        finally:
            for kind, original_create, original_saveable in originals:
                kind._create_resource, kind._Saveable = original_create, original_saveable

    @contextlib.contextmanager
    def _table_ops_served(self) -> Iterator[None]:
        """The same for a hash table op a program creates itself (and checkpoints
        with a saveable of its own): the op of the name it had in the discovery
        graph is the store's table of its saveable's name."""
        originals = {function: getattr(gen_lookup_ops, function) for function in _TABLE_OPS}

        def served(function):
            original = originals[function]

            def create_table(*args, name=None, **kwargs):
                if not tf.executing_eagerly() and self._table_ops:
                    graph = tf.compat.v1.get_default_graph()
                    op_name = graph.unique_name(name or _TABLE_OPS[function], mark_as_used=False)
                    if op_name in self._table_ops:
                        graph.unique_name(name or _TABLE_OPS[function])  # (the name is taken)
                        return self._tables[self._table_ops[op_name]].resource_handle
                return original(*args, name=name, **kwargs)

            return create_table

        with mock.patch.multiple(gen_lookup_ops, **{name: served(name) for name in _TABLE_OPS}):
            yield

    def expect(self, records: Sequence[VariableRecord], *, what: str) -> None:
        """Starts a new model_fn call: its i-th creation gets the i-th record's variable."""
        self._pending = iter(records)
        self._what = what

    @contextlib.contextmanager
    def made_by_hooks(self) -> Iterator[list[str]]:
        """While hooks' ``begin()`` runs in a trace, after model_fn: a variable a
        hook creates (a counter, a stop signal) becomes one of the store's, in the
        graph's collections, saved with the model's when it is a global variable,
        as the Estimator's Saver saved it. Yields the names of those variables."""
        self._made_by_hooks = []
        try:
            yield self._made_by_hooks
        finally:
            self._made_by_hooks = None

    def _serve(self, next_creator, **kwargs):
        if self._materializing:
            return next_creator(**kwargs)
        record = next(self._pending, None)
        if record is None and self._made_by_hooks is not None:
            return self._made_by_hook(kwargs)
        if record is None:
            raise RuntimeError(
                f"{self._what} created a variable ({kwargs.get('name')!r}) that it did not "
                "create while building the legacy graph; model_fn must create the same "
                "variables every time it is called."
            )
        variable = self._variables[record.name]
        # variable_scope marks each partition it builds with its slice of the full
        # variable, and slot_creator then reads `partition.op`, which variables
        # outside the graph do not have. The store keeps slices itself, so the mark
        # is dropped from a partition when a slot is made for it (named
        # `<partition>/<slot>`, under the variable scope minimize() ran in, if any).
        for name, other in self._records.items():
            if other.partition is not None and f"/{name}/" in f"/{record.name}":
                for component in components(self._variables[name]):
                    component._save_slice_info = None
        graph = tf.compat.v1.get_default_graph()
        for collection in record.collections_at_creation:
            _add_once(graph, collection, variable)
        if not tf.executing_eagerly():
            _take_name_as_legacy_graph_did(graph, kwargs.get("name"))
        return variable

    def _made_by_hook(self, kwargs) -> tf.Variable:
        """The store's variable for a creation in a hook's ``begin()``: named as in
        the legacy graph, created once (outside the trace, past tf.function's own
        creator), its initial value kept as its record's."""
        graph = tf.compat.v1.get_default_graph()
        with graph.name_scope(kwargs.get("name") or "Variable") as scope:
            name = scope.rstrip("/")
        if name not in self._variables:
            initial_value = kwargs.get("initial_value")
            if tf.is_symbolic_tensor(initial_value):
                raise RuntimeError(
                    f"A hook's begin() created the variable {name!r} from a tensor of "
                    "model_fn's graph; under the runtime a variable a hook creates needs an "
                    "initial value that does not depend on the graph (a number, an array "
                    "or an initializer)."
                )
            with tf.init_scope():
                variable = resource_variable_ops.ResourceVariable(
                    initial_value=initial_value,
                    name=name + "/",  # absolute: the name the legacy graph gave it
                    dtype=kwargs.get("dtype"),
                    trainable=kwargs.get("trainable"),
                    shape=kwargs.get("shape"),
                )
                initial = variable.numpy()
            self._variables[name] = variable
            self._records[name] = VariableRecord(
                name=name,
                initial=lambda: initial,
                dtype=variable.dtype,
                trainable=variable.trainable,
                collections=collections_at_creation(kwargs, variable.trainable),
                synchronization=variable.synchronization,
                aggregation=variable.aggregation,
            )
        self._made_by_hooks.append(name)
        variable = self._variables[name]
        for collection in self._records[name].collections:
            _add_once(graph, collection, variable)
        return variable

    def name_of_handle(self, handle) -> str | None:
        """The name of the variable whose handle (of a component) ``handle`` is."""
        for name, variable in self._variables.items():
            if any(component.handle is handle for component in components(variable)):
                return name
        return None

    def records(self, names: Sequence[str]) -> list[VariableRecord]:
        return [self._records[name] for name in names]

    def register_global_step(self) -> None:
        """Makes ``tf.compat.v1.train.get_global_step()`` find the step in the current
        graph, as the only one, as in the legacy Estimator's fresh graph. (A traced
        graph starts with a copy of the process's default graph's collections, where
        TF 2-style code may have created a global step eagerly; with two there,
        ``get_global_step()`` returns None.)"""
        graph = tf.compat.v1.get_default_graph()
        graph.clear_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP)
        graph.add_to_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP, self.global_step)
        _add_once(graph, tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, self.global_step)


def _add_once(graph: tf.Graph, collection: str, variable) -> None:
    # Identity, not ==: comparing variables with == builds a tensor.
    if not any(member is variable for member in graph.get_collection(collection)):
        graph.add_to_collection(collection, variable)


def _take_name_as_legacy_graph_did(graph: tf.Graph, name: str | None) -> None:
    """Marks the name the variable's ops had in the legacy graph as used, so that
    ops named after it come out as they did there: a ``tf.summary.scalar("loss_scale")``
    next to a variable ``loss_scale`` was tagged ``loss_scale_1``. (``get_variable``
    passes its full name and creates it outside any name scope.)"""
    scope = graph.get_name_scope()
    own = name or "Variable"
    graph.unique_name(f"{scope}/{own}" if scope else own, mark_as_used=True)


def _eager_table(record: TableRecord):
    """A new table for ``record``, saved by name through ``checkpoint_var_list``."""
    if record.empty_key is None:
        return lookup_ops.MutableHashTable(
            record.key_dtype,
            record.value_dtype,
            record.default_value,
            name=record.name,
            checkpoint=False,
        )
    return lookup_ops.DenseHashTable(
        record.key_dtype,
        record.value_dtype,
        record.default_value,
        empty_key=record.empty_key,
        deleted_key=record.deleted_key,
        initial_num_buckets=record.initial_num_buckets,
        name=record.name,
        checkpoint=False,
    )
