"""Estimator entry points run eagerly even where the program switched eager off.

TF1-era programs call ``tf.compat.v1.disable_v2_behavior()`` (or
``disable_eager_execution()``) at import time and then use the Estimator, which
built its own graphs and never needed eager execution. The runtime traces
``tf.function`` steps and iterates datasets, which do. Its entry points
therefore switch eager on for their own duration only; the program's other
settings from ``disable_v2_behavior`` (v1 tensor shapes, Keras v1 initializers,
...) stay in effect, as model_fn was written for them.

Eager execution is a per-thread setting, which a new thread takes from the
process default: while an entry point runs, that default is eager too, so the
threads ``tf.distribute`` starts meanwhile (a parameter-server coordinator's,
which build each worker's dataset) are eager as well.

An entry point also starts outside any ``tf.distribute`` scope its caller is in:
the Estimator built its own graph, where the caller's scope did not reach. So an
evaluation that a training hook runs (contrib's ValidationMonitor) creates its
variables as one called by itself would, not on the training's parameter servers.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator

from tensorflow.python.eager import context
from tensorflow.python.framework import ops

_DONE = object()


class _EagerByDefault:
    """Makes eager the process default while at least one entry point runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._program_default = None

    @contextlib.contextmanager
    def held(self):
        with self._lock:
            if not self._running:
                self._program_default = context.default_execution_mode
                context.default_execution_mode = context.EAGER_MODE
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if not self._running:
                    context.default_execution_mode = self._program_default


_EAGER_BY_DEFAULT = _EagerByDefault()


@contextlib.contextmanager
def _outside_strategy_scopes():
    """No strategy scope (nor the variable creators it entered) for the time."""
    graph = ops.get_default_graph()
    strategies, creators = graph._distribution_strategy_stack, graph._variable_creator_stack
    graph._distribution_strategy_stack, graph._variable_creator_stack = [], []
    try:
        yield
    finally:
        graph._distribution_strategy_stack, graph._variable_creator_stack = strategies, creators


@contextlib.contextmanager
def _eager():
    # The thread's own mode first: a thread that never set one reads the process
    # default, which must still be the program's when it is saved for the way out.
    with context.eager_mode(), _EAGER_BY_DEFAULT.held(), _outside_strategy_scopes():
        yield


def runs_eagerly(entry_point: Callable) -> Callable:
    """Runs ``entry_point`` with eager execution on."""

    @functools.wraps(entry_point)
    def eagerly(*args, **kwargs):
        with _eager():
            return entry_point(*args, **kwargs)

    return eagerly


def yields_eagerly(generator_function: Callable) -> Callable:
    """:func:`runs_eagerly` for a generator: eager is on while the generator runs,
    and the caller's mode is back while it holds a yielded value."""

    @functools.wraps(generator_function)
    def eagerly(*args, **kwargs) -> Iterator:
        generator = generator_function(*args, **kwargs)
        while True:
            with _eager():
                item = next(generator, _DONE)
            if item is _DONE:
                return
            yield item

    return eagerly
