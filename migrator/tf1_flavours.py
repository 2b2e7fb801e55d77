"""TF 1 code that reaches a canned estimator the runtime has in TF 2's flavour only
through an alias of the estimator module (``from tensorflow import estimator as
est`` ... ``est.LinearClassifier``).

The migration rewrites the alias's import to the runtime's estimator module, whose
``LinearClassifier`` is TF 2's flavour, so such a use is spelled
``tf.compat.v1.estimator.LinearClassifier`` instead. A file with no unambiguous global
``import tensorflow`` gets one, decided here for the whole file before it is
migrated: every rewrite of the pass can then use it, as a second run (which finds
it) does.
"""

from __future__ import annotations

import ast
from collections import Counter

from migrator import symbols
from migrator.dialect import TF1

_ALIASES = ("tf", "tensorflow", "tensorflow_v1_flavours")


def tensorflow_import_needed(tree: ast.Module, dialect: str) -> str | None:
    """The name an added ``import tensorflow`` binds, if the file needs one for
    such a use (one at a module statement no unambiguous ``import tensorflow``
    precedes); else None."""
    if dialect != TF1:
        return None
    imports = _global_imports(tree)
    bound = _bound_names(tree)
    first_tensorflow = min(
        (
            index
            for name, qualified, index in imports
            if qualified == "tensorflow" and bound[name] == 1
        ),
        default=len(tree.body),
    )
    aliases = {
        name
        for name, qualified, _ in imports
        if symbols.namespace(qualified) == "estimator" and not symbols.tf1_flavour(qualified + ".")
    }
    for statement in tree.body[:first_tensorflow]:
        for node in ast.walk(statement):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and f"estimator.{node.attr}" in symbols.TWO_FLAVOURS
                and symbols.runtime_tf1_flavour(f"estimator.{node.attr}") is None
            ):
                return next(alias for alias in _ALIASES if alias not in bound)
    return None


def _global_imports(tree: ast.Module) -> list[tuple[str, str, int]]:
    """``(name, what it names, statement index)`` for each name a module-level
    import statement binds."""
    bindings = []
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                bindings.append((name, alias.name if alias.asname else name, index))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    qualified = f"{node.module}.{alias.name}"
                    bindings.append((alias.asname or alias.name, qualified, index))
    return bindings


def _bound_names(tree: ast.Module) -> Counter:
    """How often each name is bound anywhere in the file (imports, assignments,
    definitions): a name bound more than once may not name what one import says."""
    bound = Counter(name for name, _, _ in _global_imports(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound[node.id] += 1
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] += 1
        elif isinstance(node, ast.Import | ast.ImportFrom) and node not in tree.body:
            bound.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return bound
