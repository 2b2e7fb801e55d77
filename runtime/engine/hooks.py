"""Drives ``SessionRunHook``s without a ``tf.compat.v1.Session``.

``begin`` runs inside a traced step (so hooks find model_fn's tensors in the
default graph) and every other hook method runs with that traced graph as the
default graph, as under MonitoredSession; ``before_run`` fetches are mapped by
name onto the traced step's outputs, ``after_run`` gets their values, and
``run_context.request_stop()`` stops the loop. The session a hook is handed
(``run_context.session``, and the one of ``after_create_session`` and ``end``)
runs what depends on variables alone (``HookSession``); anything else it is
asked is a clear error naming the hook.
"""

from __future__ import annotations

import contextlib

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops
from tensorflow.python.training import basic_session_run_hooks

from estimator_revival.tf1.hook_graph import HookGraph, outside_the_graph
from estimator_revival.tf1.variable_store import GLOBAL_STEP_NAME

SessionRunHook = tf.compat.v1.train.SessionRunHook
SessionRunArgs = tf.compat.v1.train.SessionRunArgs
SessionRunContext = tf.compat.v1.train.SessionRunContext
SessionRunValues = tf.compat.v1.train.SessionRunValues


class HookSession:
    """Stands where a hook expects a Session, in the hook's ``method``.

    ``run`` computes what it is asked as a TF 1 Session ran it, at that moment:
    variables (the global step among them) and their reads, and the tensors and
    ops of the model's graph that depend on variables and constants alone
    (an assign, a norm of the weights, a counter the hook made in ``begin()``):
    before the step in ``before_run``, after it in ``after_run``, the final
    values in ``end`` (runtime/tf1/hook_graph.py), with placeholders the hook
    made fed. What the step's input computes is an error naming the hook, the
    method and what was asked.
    """

    def __init__(self, hook, method: str, *, store, hook_graph: HookGraph) -> None:
        self._hook_name = type(hook).__name__
        self.method = method  # run_context.session is the same object in after_run
        self._store = store
        self._hook_graph = hook_graph

    @property
    def graph(self) -> tf.Graph:
        return self._hook_graph.graph

    @property
    def _where(self) -> str:
        return f"{self._hook_name}.{self.method}"

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        keys = tf.nest.map_structure(self._key, fetches)
        feeds = {self._key(tensor): value for tensor, value in (feed_dict or {}).items()}
        elements = [
            key.write if isinstance(key, VariableFetch) else key
            for key in tf.nest.flatten(keys)
            if not isinstance(key, VariableFetch) or key.write is not None
        ]
        computed = {}
        if elements:
            values = self._hook_graph.run(elements, feeds, where=self._where)
            computed = {e.name: value for e, value in zip(elements, values, strict=True)}
        with outside_the_graph():
            return tf.nest.map_structure(
                lambda key: (
                    self._store[key.name].numpy()
                    if isinstance(key, VariableFetch)
                    else computed[key.name]
                ),
                keys,
            )

    def save_variables(self, prefix: str, step: int) -> str:
        """Writes the model's saved variables, as they are now, to a checkpoint
        ``<prefix>-<step>`` (for the runtime's own hooks: InMemoryEvaluatorHook)."""
        with outside_the_graph():
            saver = tf.compat.v1.train.Saver(var_list=self._store.checkpoint_var_list())
            return saver.save(None, prefix, global_step=step, write_meta_graph=False)

    def _key(self, fetch):
        """A variable to read (after a write, for what ``variable.assign()``
        returns), or the graph's tensor or op to compute."""
        if isinstance(fetch, resource_variable_ops._UnreadVariable):
            name = self._store.name_of_handle(fetch.handle) or _graph_variable(fetch.handle)
            if name is not None:
                return VariableFetch(name, write=fetch._parent_op)
        key = _fetch_key(fetch)
        if isinstance(key, VariableFetch) and key.name in self._store:
            return key
        try:
            return self.graph.as_graph_element(key if isinstance(key, str) else fetch)
        except (ValueError, KeyError, TypeError):
            raise RuntimeError(
                f"Hook {self._where} runs {_described(fetch)} with its session, which is "
                "not in the model's graph."
            ) from None

    def __getattr__(self, name):
        raise RuntimeError(
            f"Hook {self._where} uses the session (session.{name}), but the runtime "
            "runs model_fn with tf.function and has no tf.compat.v1.Session; a hook's "
            "session serves run() of variables and of what depends on them alone "
            "(docs/runtime.md, 'What the runtime refuses')."
        )


def _graph_variable(handle) -> str | None:
    """The name of the graph variable ``handle`` is the handle of (a variable of
    the discovery graph, where hooks began), if it is one."""
    if tf.is_symbolic_tensor(handle) and handle.op.type == "VarHandleOp":
        return handle.op.name
    return None


def _described(fetch) -> str:
    if isinstance(fetch, tf.Tensor):
        return f"the tensor {fetch.name!r}"
    if isinstance(fetch, tf.Operation):
        return f"the op {fetch.name!r}"
    return repr(fetch)


class HookDriver:
    """Calls a list of hooks around each step, as MonitoredSession did."""

    def __init__(self, hooks, *, store, hook_graph: HookGraph | None = None, feedable=None) -> None:
        """``hook_graph``: the graph model_fn was traced in and hooks began in, where
        they look tensors, collections and the global step up (None: a graph with
        only the step). ``feedable``: the placeholders input_fn's result is computed
        from, ``{tensor name: TensorSpec}``, which hooks' ``feed_dict``s feed."""
        self.hooks = list(hooks)
        self._store = store  # where fetched variables are read
        self._pending: list[tuple] = []
        self._feedable = dict(feedable or {})
        self.feeds: dict = {}  # the values hooks feed in the next step, by tensor name
        if hook_graph is None:
            graph = tf.Graph()
            graph.add_to_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP, store.global_step)
            hook_graph = HookGraph(graph, store)
        self._hook_graph = hook_graph

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def model_graph(self):
        """Makes the model's graph the default graph, as MonitoredSession's hooks had it."""
        return self._hook_graph.as_default()

    def _finalized_graph(self):
        """The model's graph as hooks' methods after ``begin()`` had it: finalized."""
        return self._hook_graph.as_default(finalized=True)

    def _session(self, hook, method: str) -> HookSession:
        return HookSession(hook, method, store=self._store, hook_graph=self._hook_graph)

    def after_create_session(self) -> None:
        with self._finalized_graph():
            for hook in self.hooks:
                hook.after_create_session(self._session(hook, "after_create_session"), None)

    def before_run(self) -> tuple[str, ...]:
        """Asks every hook for its fetches; returns the tensor names the step must output.

        Variables are read now, before the step, as a TF1 session read them.
        """
        self._pending = []
        self.feeds = {}
        names = set()
        for hook in self.hooks:
            context = SessionRunContext(
                original_args=SessionRunArgs(fetches=None),
                session=self._session(hook, "before_run"),
            )
            with self._finalized_graph():
                args = hook.before_run(context)
            fetches = None
            if args is not None:
                self._take_feeds(hook, args.feed_dict or {})
            if args is not None and args.fetches is not None:
                fetches = tf.nest.map_structure(_fetch_key, args.fetches)
                names.update(k for k in tf.nest.flatten(fetches) if isinstance(k, str))
                fetches = tf.nest.map_structure(
                    lambda k: k if isinstance(k, str) else _Value(self._store[k.name].numpy()),
                    fetches,
                )
            self._pending.append((hook, context, fetches))
        return tuple(sorted(names))

    def _take_feeds(self, hook, feed_dict: dict) -> None:
        """The values ``hook`` feeds input_fn's placeholders this step."""
        for key, value in feed_dict.items():
            name = key.name if isinstance(key, tf.Tensor) else str(key)
            if name not in self._feedable:
                raise ValueError(
                    f"Hook {type(hook).__name__} feeds {name!r} (feed_dict); the runtime feeds "
                    "only placeholders input_fn builds and computes its result from "
                    f"({', '.join(sorted(self._feedable)) or 'none here'}; docs/runtime.md, "
                    "'What the runtime refuses')."
                )
            self.feeds[name] = np.asarray(value, dtype=self._feedable[name].dtype.as_numpy_dtype)

    def after_run(self, fetched: dict) -> bool:
        """Hands each hook its values (``fetched``: the step's output tensors by name);
        returns True when a hook requested a stop."""
        fetched = {name: _as_session_returned(tensor) for name, tensor in fetched.items()}
        stop = False
        for hook, context, fetches in self._pending:
            results = None
            if fetches is not None:
                results = tf.nest.map_structure(
                    lambda key: fetched[key] if isinstance(key, str) else key.value, fetches
                )
            context.session.method = "after_run"
            with self._finalized_graph():
                hook.after_run(context, SessionRunValues(results, None, None))
            stop |= context.stop_requested
        return stop

    def end(self) -> None:
        with self._finalized_graph():
            for hook in self.hooks:
                hook.end(self._session(hook, "end"))


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
    """A fetch that names a variable: read before the step instead of traced
    (by a hook's session: after ``write``, if one is given)."""

    def __init__(self, name: str, write: tf.Operation | None = None) -> None:
        self.name = name
        self.write = write


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


def _as_session_returned(tensor) -> np.ndarray | np.generic | bytes:
    """A fetched value as TF 1's ``Session.run`` returned it: a scalar as a numpy
    scalar (``bytes`` for a string: the encoded image a hook writes to a file),
    anything else as an array (of ``bytes`` objects for strings)."""
    array = np.asarray(tensor)
    return array[()] if array.ndim == 0 else array
