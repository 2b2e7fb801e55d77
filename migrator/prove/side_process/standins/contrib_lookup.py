"""``tf.contrib.lookup`` for the legacy side: TF 1.15's contrib/lookup/lookup_ops.py
re-exported ``tensorflow.python.ops.lookup_ops`` and wrapped two functions to take
``mapping``."""

from tensorflow.python.ops import lookup_ops

_CORE = (
    "FastHashSpec", "HasherSpec", "HashTable", "IdTableWithHashBuckets",
    "KeyValueTensorInitializer", "StrongHashSpec", "TextFileIndex", "TextFileInitializer",
    "index_table_from_file", "index_to_string_table_from_file", "MutableHashTable",
)  # fmt: skip


def index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                            hasher_spec=lookup_ops.FastHashSpec, dtype=None, name=None):  # fmt: skip
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_table_from_tensor(
        vocabulary_list=mapping, num_oov_buckets=num_oov_buckets, default_value=default_value,
        hasher_spec=hasher_spec, name=name, **({} if dtype is None else {"dtype": dtype}))  # fmt: skip


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name)  # fmt: skip


def names() -> dict:
    return {
        **{name: getattr(lookup_ops, name) for name in _CORE},
        "MutableDenseHashTable": lookup_ops.DenseHashTable,
        "index_table_from_tensor": index_table_from_tensor,
        "index_to_string_table_from_tensor": index_to_string_table_from_tensor,
    }
