"""``tf.contrib.lookup`` as TF 1.15 had it: TensorFlow's own lookup tables (TF
1.15's contrib module re-exported ``tensorflow.python.ops.lookup_ops``, which TF
2 still ships, partly outside its public API), and the two functions contrib
wrapped to take the vocabulary as ``mapping``."""

from __future__ import annotations

from tensorflow.python.ops import lookup_ops
from tensorflow.python.ops.lookup_ops import DenseHashTable as MutableDenseHashTable  # noqa: F401
from tensorflow.python.ops.lookup_ops import (  # noqa: F401  (tf.contrib.lookup's names)
    FastHashSpec,
    HasherSpec,
    HashTable,
    IdTableWithHashBuckets,
    KeyValueTensorInitializer,
    MutableHashTable,
    StrongHashSpec,
    TextFileIndex,
    TextFileInitializer,
    index_table_from_file,
    index_to_string_table_from_file,
)


def index_table_from_tensor(
    mapping, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec, dtype=None, name=None
):
    """A table from the strings (or ints) of ``mapping`` to their index."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    keywords = {} if dtype is None else {"dtype": dtype}
    return lookup_ops.index_table_from_tensor(
        vocabulary_list=mapping,
        num_oov_buckets=num_oov_buckets,
        default_value=default_value,
        hasher_spec=hasher_spec,
        name=name,
        **keywords,
    )


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """A table from indices to the strings of ``mapping``."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name
    )
