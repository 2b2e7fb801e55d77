"""``variable.op`` for the store's variables, which TF 1 code reads for names.

TF 1 code names variables by their op: ``v.op.name`` picks the variables an
optimizer decays or a regularizer covers, maps checkpoint names
(``assignment_map``), filters ``tf.trainable_variables()``. In the Estimator's graph
every variable had a ``VarHandleOp`` (``VariableV2`` for a ref variable). The
runtime's variables are created once, outside any graph, where TensorFlow's
``op`` raises ``AttributeError: Tensor.op is undefined when eager execution is
enabled``. Each of them therefore gets a stand-in op with the TF 1 name and the
variable's device; nothing else of a graph op is reproduced.

The stand-in is for the program's code only. TensorFlow's own code asks
``hasattr(v, "op")`` to tell graph variables from eager ones (the optimizer's slot
keys, ``tf.control_dependencies([v])``, ``strategy.group``) and must keep getting
the eager answer, so a read from TensorFlow's or tf-keras' modules raises as before.
"""

from __future__ import annotations

import functools
import sys
from typing import NamedTuple

from tensorflow.python.distribute.values import DistributedVariable
from tensorflow.python.ops import resource_variable_ops

from estimator_revival.distribute.replication import components


class VariableOp(NamedTuple):
    """What TF 1 code reads from a variable's op."""

    name: str
    type: str
    device: str


def give_graph_op(variable, name: str) -> None:
    """Lets ``variable.op`` (and each per-device component's) answer as the
    variable's op in the Estimator's graph, named ``name``: a replicated
    variable's too, whose ``op`` TensorFlow reads from its first component's."""
    replicated = (variable,) if isinstance(variable, DistributedVariable) else ()
    for component in (*components(variable), *replicated):
        if isinstance(component, (resource_variable_ops.BaseResourceVariable, DistributedVariable)):
            component.__class__ = _with_graph_op(type(component))
            component._tf1_op_name = name


@functools.cache
def _with_graph_op(variable_class: type) -> type:
    """``variable_class`` whose ``op``, where TensorFlow has none (a handle made
    outside any graph), is a :class:`VariableOp`."""

    def op(self):
        try:
            return variable_class.op.__get__(self)
        except AttributeError:
            if _read_by_tensorflow(sys._getframe(1)):
                raise
            return VariableOp(self._tf1_op_name, "VarHandleOp", self.device)

    members = {"op": property(op), "__module__": variable_class.__module__}
    return type(variable_class.__name__, (variable_class,), members)


_TENSORFLOW_PACKAGES = ("tensorflow", "tf_keras", "keras")


def _read_by_tensorflow(frame) -> bool:
    module = frame.f_globals.get("__name__", "")
    return module.split(".", 1)[0] in _TENSORFLOW_PACKAGES
