"""Session uses in hooks that the runtime cannot serve, reported at their line.

Under the runtime a hook's session (``run_context.session``, the ``session`` of
``after_create_session`` and ``end``) has ``run`` and ``graph``: ``run``
computes what depends on variables, constants and fed placeholders (a read, an
assign, an initializer, a variable the hook made in ``begin()``), as a Session
run it (``runtime/tf1/hook_graph.py``). The rest of a Session's API
(``make_callable``, ``partial_run``, ``list_devices``, ``as_default``...) fails
at run time; this finds those uses in the source, so ``migrate --check`` fails
before the program does. A fetch computed from the step's input is only known
when it runs, and left to the runtime's error, which names the hook.
"""

from __future__ import annotations

import ast

from estimator_revival.migrator.data.diagnostics import Diagnostic

CODE = "MIG110"
_SESSION_PARAMETER = {"after_create_session": 1, "end": 1}  # after self
_SERVED = {"run", "graph"}


def unservable_session_uses(tree: ast.Module, path: str) -> list[Diagnostic]:
    """MIG110 at each use of a hook's session the runtime cannot serve."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(map(_is_hook_base, node.bases)):
            for method in node.body:
                if isinstance(method, ast.FunctionDef):
                    found += _uses_in_method(method, node.name, path)
    return found


def _is_hook_base(base: ast.expr) -> bool:
    if isinstance(base, ast.Attribute):
        return base.attr == "SessionRunHook"
    return isinstance(base, ast.Name) and base.id == "SessionRunHook"


def _uses_in_method(method: ast.FunctionDef, hook: str, path: str) -> list[Diagnostic]:
    sessions = _session_names(method)
    return [
        Diagnostic(
            path,
            node.lineno,
            node.col_offset + 1,
            CODE,
            f"{hook}.{method.name} uses session.{node.attr}; under the runtime a hook's "
            "session has run() and graph only, so this fails when it runs",
            "fetch with session.run(...), request values through "
            "before_run(SessionRunArgs(...)), or do the work in model_fn",
        )
        for node in ast.walk(method)
        if isinstance(node, ast.Attribute)
        and node.attr not in _SERVED
        and _is_session(node.value, sessions)
    ]


def _session_names(method: ast.FunctionDef) -> set[str]:
    position = _SESSION_PARAMETER.get(method.name)
    arguments = method.args.args
    if position is not None and len(arguments) > position:
        return {arguments[position].arg}
    return set()


def _is_session(node: ast.expr, sessions: set[str]) -> bool:
    """``run_context.session`` (any name) or a method's session parameter."""
    if isinstance(node, ast.Attribute) and node.attr == "session":
        return True
    return isinstance(node, ast.Name) and node.id in sessions
