"""Which TensorFlow a file was written for, as far as its own names tell.

Some TF 1 functions kept their name in TF 2 but changed what a call means:
``tf.nn.dropout(x, 0.9)`` keeps 90% of the units in TF 1 and drops 90% in TF 2;
``tf.nn.embedding_lookup`` partitions by ``mod`` in TF 1 and by ``div`` in TF 2.
Estimator code was written for both (TF 1.x, and TF 2.0-2.15 with ``tf.estimator``),
so the migrator cannot assume either:

* ``tf1``: the file uses a name only TF 1 had under ``tensorflow.`` (``tf.Session``,
  ``tf.layers``, ``tf.flags``, ``tf.contrib``...): it ran on TF 1.x.
* ``tf2``: it does not, and it reaches TF 1 behaviour through ``tf.compat.v1`` /
  ``tensorflow.compat``: it ran on TF 2.x.
* ``tf2`` too: it imports the bundled runtime (``estimator_revival``, or ``runtime``,
  its former name, where the program has no ``runtime`` of its own), so it was
  written or migrated for TF 2.16+ (a second ``migrate`` run on its own output must
  read it as the first did).
* ``unknown``: neither.
"""

from __future__ import annotations

import ast
import re

from estimator_revival.migrator.data import symbols

TF1, TF2, UNKNOWN = "tf1", "tf2", "unknown"

_STATEMENT_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def tensorflow_dialect(
    code: str, tree: ast.Module, first_party: frozenset[str] = frozenset()
) -> str:
    """``first_party``: the program's own top-level modules (``migrator.names.program``)."""
    if tf1_only_name(code, tree):
        return TF1
    uses_compat = any(
        reference.startswith("tensorflow.compat") for reference in _references(code, tree)
    )
    return TF2 if uses_compat or imports_runtime(tree, first_party) else UNKNOWN


def tf1_only_name(code: str, tree: ast.Module) -> str:
    """The first name only TF 1 had that the file uses (``""`` if none)."""
    return next(filter(symbols.tf1_only, _references(code, tree)), "")


def _references(code: str, tree: ast.Module):
    """Every ``tensorflow...`` name the file imports or reaches through an import
    (through each import of a name bound more than once)."""
    for name, bound in _tensorflow_bindings(tree).items():
        yield from bound
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}((?:\.[A-Za-z_]\w*)+)", code):
            for qualified in bound:
                yield qualified + match.group(1)


def imports_runtime(tree: ast.Module, first_party: frozenset[str] = frozenset()) -> bool:
    """Whether the module imports the bundled runtime, under its name or its former
    one (unless the program's own module has that name)."""
    runtime_names = {symbols.PACKAGE, symbols.FORMER_PACKAGE} - first_party
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        if any(module.split(".")[0] in runtime_names for module in modules):
            return True
    return False


def _tensorflow_bindings(tree: ast.Module) -> dict[str, list[str]]:
    """Names the file's imports (at any level) bind to ``tensorflow`` or below,
    each with every module it is bound to (sorted)."""
    bindings: dict[str, set[str]] = {}
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bindings.setdefault(alias.asname, set()).add(alias.name)
                else:
                    top = alias.name.split(".")[0]
                    bindings.setdefault(top, set()).add(top)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    qualified = f"{node.module}.{alias.name}"
                    bindings.setdefault(alias.asname or alias.name, set()).add(qualified)
    tensorflow = {
        name: sorted(q for q in bound if q == "tensorflow" or q.startswith("tensorflow."))
        for name, bound in bindings.items()
    }
    return {name: bound for name, bound in tensorflow.items() if bound}


def _statements(body: list[ast.stmt]):
    """Every statement, nested ones included, without walking expressions."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for field in _STATEMENT_BODIES:
            for child in getattr(node, field, ()):
                if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    stack.extend(child.body)
                else:
                    stack.append(child)
