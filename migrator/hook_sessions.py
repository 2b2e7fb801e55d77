"""Session uses in hooks that the runtime cannot serve, reported at their line.

Under the runtime a hook's session (``run_context.session``, the ``session`` of
``after_create_session`` and ``end``) reads variables and the global step, and
nothing else (``runtime/engine/hooks.py``). A hook that feeds it, or runs an op
with it — an assign, an initializer, a variable the hook made itself in
``begin()`` — fails at run time; this finds those uses in the source, so
``migrate --check`` fails before the program does. Fetches this cannot tell
(a tensor looked up by name) are left to the runtime's error.
"""

from __future__ import annotations

import ast

from migrator.diagnostics import Diagnostic

CODE = "MIG110"
_SESSION_PARAMETER = {"after_create_session": 1, "end": 1}  # after self
# calls whose result a hook's session cannot run under the runtime
_UNSERVABLE = {
    "assign",
    "assign_add",
    "assign_sub",
    "variables_initializer",
    "global_variables_initializer",
    "local_variables_initializer",
    "tables_initializer",
    "get_variable",
    "Variable",
    "group",
    "no_op",
    "placeholder",
    "placeholder_with_default",
}


def unservable_session_uses(tree: ast.Module, path: str) -> list[Diagnostic]:
    """MIG110 at each ``session.run`` of a hook class the runtime cannot serve."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(map(_is_hook_base, node.bases)):
            made = _attributes_made_by_unservable_calls(node)
            for method in node.body:
                if isinstance(method, ast.FunctionDef):
                    found += _uses_in_method(method, made, node.name, path)
    return found


def _is_hook_base(base: ast.expr) -> bool:
    return _last_name(base) == "SessionRunHook"


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _attributes_made_by_unservable_calls(hook: ast.ClassDef) -> dict[str, str]:
    """``{attribute: call}`` for ``self.<attribute> = <unservable call>(...)``."""
    made = {}
    for node in ast.walk(hook):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = _last_name(node.value.func)
            if call not in _UNSERVABLE:
                continue
            for target in node.targets:
                if _is_self_attribute(target):
                    made[target.attr] = call
    return made


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _uses_in_method(method: ast.FunctionDef, made, hook: str, path: str) -> list[Diagnostic]:
    sessions = _session_names(method)
    found = []
    for node in ast.walk(method):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "run" or not _is_session(node.func.value, sessions):
            continue
        why = _why_unservable(node, made)
        if why:
            found.append(
                Diagnostic(
                    path,
                    node.lineno,
                    node.col_offset + 1,
                    CODE,
                    f"{hook}.{method.name} runs {why} with its session; under the runtime "
                    "a hook's session reads variables and the global step only, so this "
                    "fails when it runs",
                    "request the values through before_run(SessionRunArgs(...)), or do "
                    "the work in model_fn",
                )
            )
    return found


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


def _why_unservable(call: ast.Call, made: dict[str, str]) -> str:
    if len(call.args) > 1 or any(k.arg == "feed_dict" for k in call.keywords):
        return "a feed_dict"
    for fetch in _fetches(call.args[0] if call.args else None):
        if isinstance(fetch, ast.Call) and _last_name(fetch.func) in _UNSERVABLE:
            return f"{_last_name(fetch.func)}(...)"
        if isinstance(fetch, ast.Attribute) and fetch.attr == "initializer":
            return "a variable's initializer"
        if _is_self_attribute(fetch) and fetch.attr in made:
            return f"self.{fetch.attr} (made by {made[fetch.attr]}(...))"
    return ""


def _fetches(node: ast.expr | None) -> list[ast.expr]:
    """The leaves of a fetch structure (lists, tuples, dict values)."""
    if node is None:
        return []
    if isinstance(node, (ast.List, ast.Tuple)):
        return [leaf for element in node.elts for leaf in _fetches(element)]
    if isinstance(node, ast.Dict):
        return [leaf for value in node.values for leaf in _fetches(value)]
    return [node]
