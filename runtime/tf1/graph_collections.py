"""Gives each traced model_fn call the graph collections a fresh TF1 graph had.

``FuncGraph`` shares the variable collections and the variable store with the
outermost graph, so that ``get_variable`` is stable across re-traces. A legacy
Estimator built a new graph per call instead; model_fn code relies on that
(names without reuse, ``trainable_variables()`` in creation order).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tensorflow as tf
from tensorflow.python.ops import variable_scope

FRESH_PER_CALL = (
    tf.compat.v1.GraphKeys.GLOBAL_VARIABLES,
    tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
    tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES,
    variable_scope._VARSTORE_KEY,
    variable_scope._VARSCOPESTORE_KEY,
)


@contextlib.contextmanager
def fresh_collections() -> Iterator[None]:
    """Empty, unshared variable collections in the default graph while active."""
    graph = tf.compat.v1.get_default_graph()
    collections = graph._collections  # no public API swaps a collection list
    saved = {key: collections.get(key) for key in FRESH_PER_CALL}
    for key in FRESH_PER_CALL:
        collections[key] = []
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                collections.pop(key, None)
            else:
                collections[key] = value
