"""TF1's read order for variables inside a training step.

In a TF1 Session the ops of one ``session.run`` are ordered only by their data and
control dependencies. A variable read depends on nothing, so it was ready at once
and (unless the executor was starved: it was a race) ran first and saw the value
before that run's updates, wherever model_fn placed it: TPU code reads
``tf.reshape(global_step, [1])`` for its host_call *after*
``optimizer.minimize(loss, global_step)``, and its summaries carry the old step;
``tf.summary.scalar("loss_scale", manager.get_loss_scale())`` after ``minimize``
logs the scale the step used, not the updated one. A ``tf.function`` orders
stateful ops as written, which would give the new values.

Discovery finds, in the legacy graph, the variables model_fn reads after an op
that may write them (:func:`read_after_written`). While model_fn is traced,
:func:`reads_before_update` makes reads of those (and of the global step) return
the value as it was when the step started; a read under
``tf.control_dependencies`` (which TF1 ordered after the update too) still reads
the variable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

import tensorflow as tf

from estimator_revival.tf1.unfetched_updates import variables_taken

# Ops that take a variable's handle and only read it (or its metadata).
_READ_ONLY_OPS = frozenset(
    {"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape",
     "VarIsInitializedOp", "Identity"}
)  # fmt: skip


def read_after_written(model_ops: Iterable[tf.Operation]) -> frozenset:
    """Names of the variables that ``model_ops`` (a legacy graph's, in creation
    order) read, with no control dependency, after an op that takes their handle
    and may write it (an update, a ``cond`` whose branch updates it...)."""
    touched: set[str] = set()
    read_after: set[str] = set()
    for op in model_ops:
        if op.type == "ReadVariableOp" and not op.control_inputs:
            read_after |= variables_taken(op) & touched
        else:
            touched |= variables_it_may_write(op)
    return frozenset(read_after)


def variables_it_may_write(op: tf.Operation) -> set[str]:
    """Names of the variables whose handle (or ref) ``op`` takes other than to read
    it: an update, a ``cond`` whose branch updates it..."""
    return set() if op.type in _READ_ONLY_OPS else variables_taken(op)


@contextlib.contextmanager
def reads_before_update(variables: Iterable[tf.Variable]):
    overridden = [_local_component(variable) for variable in variables]
    for variable in overridden:
        variable._read_variable_op = _read_as_at_start(variable)
    try:
        yield
    finally:
        for variable in overridden:
            del variable._read_variable_op


def _read_as_at_start(variable):
    at_start = variable.read_value()
    read_now = type(variable)._read_variable_op.__get__(variable)

    def read(*args, **kwargs):
        graph = tf.compat.v1.get_default_graph()
        if graph._current_control_dependencies():
            return read_now(*args, **kwargs)
        return tf.identity(at_start)

    return read


def _local_component(variable):
    """The per-device variable this replica reads (the variable itself on one device)."""
    if isinstance(variable, tf.distribute.DistributedValues):
        return variable._get_on_device_or_primary()
    return variable
