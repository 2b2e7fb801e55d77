"""The argument type checks the Estimator API made on lists of hooks, listeners and the like."""

from __future__ import annotations


def instances_of(items, cls, message: str) -> tuple:
    """``items`` as a tuple, each an instance of ``cls``; otherwise a TypeError
    with ``message`` (``{}``: the item), worded per API as TensorFlow worded it."""
    items = tuple(items or [])
    for item in items:
        if not isinstance(item, cls):
            raise TypeError(message.format(item))
    return items
