"""``tf.contrib.training``'s parameter-server placement strategy for
``tf.compat.v1.train.replica_device_setter(ps_strategy=...)``, as TF 1.15 defined it:
each variable goes to the ps task with the least load so far, and its load is
added there (``byte_size_load_fn``: its size in bytes).

The runtime places variables itself (``ParameterServerStrategy`` from TF_CONFIG,
docs/runtime.md); a model_fn's device functions only name the devices of the
graph it is discovered in. The strategy keeps the program running and placing as
it did.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf


class GreedyLoadBalancingStrategy:
    """Picks, per variable op, the ps task with the smallest load (the first such)."""

    def __init__(self, num_tasks: int, load_fn) -> None:
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op) -> int:
    """The byte size of a variable op's value (of its single output otherwise)."""
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    if op.type == "VarHandleOp":  # a resource variable: its value's dtype and shape
        dtype, shape = tf.as_dtype(op.get_attr("dtype")), tf.TensorShape(op.get_attr("shape"))
    else:
        dtype, shape = op.outputs[0].dtype.base_dtype, op.outputs[0].shape
        if not shape.is_fully_defined() and "shape" in op.node_def.attr:
            # TF 1's scalar Variable ops got their output shape only after creation
            shape = tf.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * dtype.size
