"""Estimator entry points run eagerly even where the program switched eager off.

TF1-era programs call ``tf.compat.v1.disable_v2_behavior()`` (or
``disable_eager_execution()``) at import time and then use the Estimator, which
built its own graphs and never needed eager execution. The runtime traces
``tf.function`` steps and iterates datasets, which do. Its entry points
therefore switch eager on for their own duration only; the program's other
settings from ``disable_v2_behavior`` (v1 tensor shapes, Keras v1 initializers,
...) stay in effect, as model_fn was written for them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from tensorflow.python.eager import context

_DONE = object()


def runs_eagerly(entry_point: Callable) -> Callable:
    """Runs ``entry_point`` with eager execution on."""

    @functools.wraps(entry_point)
    def eagerly(*args, **kwargs):
        with context.eager_mode():
            return entry_point(*args, **kwargs)

    return eagerly


def yields_eagerly(generator_function: Callable) -> Callable:
    """:func:`runs_eagerly` for a generator: eager is on while the generator runs,
    and the caller's mode is back while it holds a yielded value."""

    @functools.wraps(generator_function)
    def eagerly(*args, **kwargs) -> Iterator:
        generator = generator_function(*args, **kwargs)
        while True:
            with context.eager_mode():
                item = next(generator, _DONE)
            if item is _DONE:
                return
            yield item

    return eagerly
