"""Variables that TF 1's partitioners may have split into parts (a
``PartitionedVariable``, or the list of its parts)."""

import tensorflow as tf


def is_partitioned(variable) -> bool:
    return not isinstance(variable, tf.Variable | tf.Tensor)


def parts(variable) -> list:
    """A variable, or the parts of a partitioned one."""
    return list(variable) if is_partitioned(variable) else [variable]
