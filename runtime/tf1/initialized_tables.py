"""Lookup tables a TF 1 graph initialized once per Session, run inside a slice.

An input_fn that maps labels or words to ids builds a table
(``tf.contrib.lookup.index_table_from_tensor``, ``index_table_from_file``,
``HashTable(KeyValueTensorInitializer(...))``) whose initializer joins
``TABLE_INITIALIZERS``; the Estimator's Scaffold ran that collection with its
local init, once per call, and every step's lookups read the table. In a slice
the table is the function's own: its ``HashTableV2`` kernel creates it the first
time it runs and keeps it for the life of the function, and the initializer runs
before the first lookup of every run. Initializing a table again with the same
entries is no change (TensorFlow's kernels compare them and return), so every
run reads the table the Session read.
"""

from __future__ import annotations

import tensorflow as tf

# Tables filled by their initializers, and what reads or fills them.
CREATORS = frozenset({"HashTable", "HashTableV2"})
READERS = frozenset(
    {"LookupTableFind", "LookupTableFindV2", "LookupTableSize", "LookupTableSizeV2"}
)
INITIALIZERS = frozenset(
    {
        "InitializeTable",
        "InitializeTableV2",
        "InitializeTableFromTextFile",
        "InitializeTableFromTextFileV2",
        "LookupTableImportV2",
    }
)


def is_table_op(op: tf.Operation) -> bool:
    """Whether a slice of tables may run ``op`` (it creates, fills or reads one)."""
    return op.type in CREATORS | READERS | INITIALIZERS


def initializers_of(table: tf.Operation) -> list[tf.Operation]:
    """The ops that fill the table ``table`` creates, in creation order."""
    consumers = {op for output in table.outputs for op in output.consumers()}
    return sorted((op for op in consumers if op.type in INITIALIZERS), key=lambda op: op._id)


def initialized_before(op: tf.Operation) -> list[str]:
    """Control inputs ``op`` takes in a slice: the initializers of the tables it
    reads, so that it never reads one before it is filled."""
    if op.type not in READERS:
        return []
    table = op.inputs[0].op
    return [f"^{initializer.name}" for initializer in initializers_of(table)]
