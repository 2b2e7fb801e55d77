"""``variable.initializer`` for the store's variables, built where it is asked for.

The store's variables are created once, outside any graph, so they have no
initializer op. Where TF 1 code asks for one (``v.initializer``, and so
``variables_initializer``) and it has to do something (a hook's session runs it,
a step of the legacy graph ran it), the runtime builds one: an assignment of the
variable's recorded initial value, in the graph being built.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops


@contextlib.contextmanager
def built_by(build: Callable[[tf.Variable], tf.Operation | None]) -> Iterator[None]:
    """While active, a resource variable's ``initializer`` is ``build(variable)``,
    or its own where that returns None (a variable not of the store)."""
    cls = resource_variable_ops.BaseResourceVariable
    original = cls.initializer

    def initializer(variable):
        built = build(variable)
        return original.fget(variable) if built is None else built

    cls.initializer = property(initializer)
    try:
        yield
    finally:
        cls.initializer = original
