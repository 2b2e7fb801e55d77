"""Drives ``SessionRunHook``s without a ``tf.compat.v1.Session``.

``begin`` runs inside a traced step (so hooks find model_fn's tensors in the
default graph) and every other hook method runs with that traced graph as the
default graph, as under MonitoredSession; ``before_run`` fetches are mapped by
name onto the traced step's outputs, ``after_run`` gets their values, and
``run_context.request_stop()`` stops the loop. A hook that touches the session
gets a clear error.
"""

from __future__ import annotations

import contextlib

import numpy as np
import tensorflow as tf
from tensorflow.python.training import basic_session_run_hooks

from runtime.tf1.variable_store import GLOBAL_STEP_NAME

SessionRunHook = tf.compat.v1.train.SessionRunHook
SessionRunArgs = tf.compat.v1.train.SessionRunArgs
SessionRunContext = tf.compat.v1.train.SessionRunContext
SessionRunValues = tf.compat.v1.train.SessionRunValues


class InGraphHook(SessionRunHook):
    """A hook whose work is part of the traced step itself; nothing to drive."""


class SessionUnavailable:
    """Stands where a hook expects a Session; any use explains what to change."""

    def __init__(self, hook) -> None:
        self._hook_name = type(hook).__name__

    def __getattr__(self, name):
        raise RuntimeError(
            f"Hook {self._hook_name} uses the session (session.{name}), but the runtime "
            "runs model_fn with tf.function and has no tf.compat.v1.Session. Request "
            "tensors through before_run(SessionRunArgs(...)) instead, or move the work "
            "into model_fn."
        )


class HookDriver:
    """Calls a list of hooks around each step, as MonitoredSession did."""

    def __init__(self, hooks, *, store, graph: tf.Graph | None = None) -> None:
        """``graph``: the graph model_fn was traced in, where hooks look tensors,
        collections and the global step up (None: a graph with only the step)."""
        self.hooks = list(hooks)
        self._store = store  # where fetched variables are read
        self._pending: list[tuple] = []
        if graph is None:
            graph = tf.Graph()
            graph.add_to_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP, store.global_step)
        self._graph = graph

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def model_graph(self):
        """Makes the model's graph the default graph, as MonitoredSession's hooks had it."""
        return self._graph.as_default()

    def after_create_session(self) -> None:
        with self.model_graph():
            for hook in self.hooks:
                hook.after_create_session(SessionUnavailable(hook), None)

    def before_run(self) -> tuple[str, ...]:
        """Asks every hook for its fetches; returns the tensor names the step must output.

        Variables are read now, before the step, as a TF1 session read them.
        """
        self._context = SessionRunContext(
            original_args=SessionRunArgs(fetches=None), session=SessionUnavailable(self)
        )
        self._pending = []
        names = set()
        for hook in self.hooks:
            with self.model_graph():
                args = hook.before_run(self._context)
            fetches = None
            if args is not None:
                if args.feed_dict:
                    raise ValueError(
                        f"Hook {type(hook).__name__} feeds values (feed_dict); the runtime "
                        "cannot feed a traced step. Compute the value inside model_fn instead."
                    )
                fetches = tf.nest.map_structure(_fetch_key, args.fetches)
                names.update(k for k in tf.nest.flatten(fetches) if isinstance(k, str))
                fetches = tf.nest.map_structure(
                    lambda k: k if isinstance(k, str) else _Value(self._store[k.name].numpy()),
                    fetches,
                )
            self._pending.append((hook, fetches))
        return tuple(sorted(names))

    def after_run(self, fetched: dict) -> bool:
        """Hands each hook its values (``fetched``: the step's output tensors by name);
        returns True when a hook requested a stop."""
        fetched = {name: np.asarray(tensor) for name, tensor in fetched.items()}
        for hook, fetches in self._pending:
            results = None
            if fetches is not None:
                results = tf.nest.map_structure(
                    lambda key: fetched[key] if isinstance(key, str) else key.value, fetches
                )
            with self.model_graph():
                hook.after_run(self._context, SessionRunValues(results, None, None))
        return self._context.stop_requested

    def end(self) -> None:
        with self.model_graph():
            for hook in self.hooks:
                hook.end(SessionUnavailable(hook))


@contextlib.contextmanager
def variables_as_graph_elements():
    """While TF's own hooks run ``begin()``, let them name variables.

    In TF1 ``LoggingTensorHook({"step": global_step})`` got a graph variable; the
    runtime's variables live outside the traced graph, so a hook gets a read of
    the variable named ``<variable>/read``, which fetches map back to the variable.
    """
    original = basic_session_run_hooks._as_graph_element

    def as_graph_element(obj):
        if isinstance(obj, tf.Variable):
            name = obj.name.split(":")[0]
            return tf.identity(obj.read_value(), name=f"{name}/read")
        return original(obj)

    basic_session_run_hooks._as_graph_element = as_graph_element
    try:
        yield
    finally:
        basic_session_run_hooks._as_graph_element = original


class _Value:
    """A value read before the step (kept opaque to tf.nest)."""

    def __init__(self, value) -> None:
        self.value = value


class VariableFetch:
    """A fetch that names a variable: read before the step instead of traced."""

    def __init__(self, name: str) -> None:
        self.name = name


def _fetch_key(fetch):
    if isinstance(fetch, tf.Variable):
        return VariableFetch(fetch.name.split(":")[0])
    if isinstance(fetch, (tf.Operation, tf.Tensor)):
        name = fetch.name
    elif isinstance(fetch, str):
        name = fetch
    else:
        raise TypeError(f"A hook asked for {fetch!r}; fetches must be tensors, ops or names.")
    if name.split("/")[0].split(":")[0] == GLOBAL_STEP_NAME:
        # TF's own hooks fetch a read of the global step made in their begin().
        return VariableFetch(GLOBAL_STEP_NAME)
    if name.endswith("/read:0"):
        return VariableFetch(name[: -len("/read:0")])
    return name
