"""TF1's read order for the global step inside a training step.

In a TF1 Session the ops of one ``session.run`` are ordered only by their data and
control dependencies. The global step's reads depend on nothing, so they ran
first and saw the step before that run's increment, wherever model_fn placed
them: TPU code reads ``tf.reshape(global_step, [1])`` for its host_call *after*
``optimizer.minimize(loss, global_step)``, and its summaries carry the old step.
A ``tf.function`` orders stateful ops as written, which would give the new one.

While model_fn is traced, :func:`reads_before_update` makes such reads return the
step as it was when the step started; a read under ``tf.control_dependencies``
(which TF1 ordered after the update too) still reads the variable.
"""

from __future__ import annotations

import contextlib

import tensorflow as tf


@contextlib.contextmanager
def reads_before_update(global_step: tf.Variable):
    variable = _local_component(global_step)
    at_start = variable.read_value()
    read_now = variable._read_variable_op

    def read(*args, **kwargs):
        graph = tf.compat.v1.get_default_graph()
        if graph._current_control_dependencies():
            return read_now(*args, **kwargs)
        return tf.identity(at_start)

    variable._read_variable_op = read
    try:
        yield
    finally:
        del variable._read_variable_op


def _local_component(variable):
    """The per-device variable this replica reads (the variable itself on one device)."""
    if isinstance(variable, tf.distribute.DistributedValues):
        return variable._get_on_device_or_primary()
    return variable
