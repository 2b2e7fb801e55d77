"""The codemod: one pass over a module that resolves every name through its
imports (libcst's ScopeProvider and its qualified names) and rewrites what it can.

* Estimator API (rule MIG201): ``tf.estimator.X`` becomes ``tf_estimator.X`` with
  ``from runtime import estimator as tf_estimator`` added; ``from
  tensorflow.estimator import X`` becomes ``from runtime.estimator import X``.
* TF1-only symbols (MIG202): ``tf.layers.dense`` becomes
  ``tf.compat.v1.layers.dense`` (table generated from tf_upgrade_v2's data).
* ``est.export_savedmodel(...)`` becomes ``est.export_saved_model(...)`` (MIG203).

Whatever cannot be converted is reported with a stable code and left exactly
as it was.

Only the scopes are computed up front (``migrator.scopes``): qualified names
are asked of the scope for the few nodes that need them, positions are resolved
only when a diagnostic is reported, and imports are added in the same pass. (The
generic libcst helpers, QualifiedNameProvider + AddImportsVisitor, cost about 3x
more per file.)
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import GlobalScope, QualifiedNameSource, Scope

from migrator import symbols
from migrator.diagnostics import Diagnostic
from migrator.positions import Locator, dotted_name
from migrator.scopes import module_scopes


class MigrateTransformer(cst.CSTTransformer):
    """Rewrites one module; what it could not convert collects in ``diagnostics``.

    A plain transformer rather than a libcst codemod command: the codemod's
    matcher machinery costs more than the whole rewrite here.
    """

    def __init__(
        self,
        locator: Locator,
        scopes: Mapping[cst.CSTNode, Scope],
        *,
        path: str,
        enabled: frozenset[str],
    ) -> None:
        super().__init__()
        self._scopes = scopes
        self._locator = locator
        self._seen: dict[tuple, int] = {}  # position keys visited so far
        self.path = path
        self.enabled = enabled
        self.diagnostics: list[Diagnostic] = []
        # runtime module -> the name this file binds it to (from a rewritten import)
        self._bound: dict[str, str] = {}
        self._needed_imports: list[tuple[str, str, str | None]] = []
        self._inner_attributes: set[int] = set()  # ids of attributes inside a longer chain
        self._calls_by_callee: dict[int, cst.Call] = {}
        # names bound by legacy imports -> how many of their uses were rewritten
        self._rewritten_roots: dict[str, int] = {}
        self._occurrence: dict[int, tuple] = {}
        self._uses_v1_layers = False  # tf.compat.v1.layers need Keras 2: see leave_Module
        self._global_imports: dict[str, str] | None = None  # see _global_modules

    # This class has no visit_<Node>_<attribute> methods: skip libcst's lookup of
    # them for every child attribute of every node (a fifth of the pass).
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass

    def visit_Module(self, node: cst.Module) -> None:
        self._global_scope = self._scopes[node]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) not in self._inner_attributes:
            self._count(node)
        if isinstance(node.value, cst.Attribute):
            self._inner_attributes.add(id(node.value))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._count(node)

    def visit_Import(self, node: cst.Import) -> None:
        self._count(node)

    def visit_Call(self, node: cst.Call) -> None:
        self._calls_by_callee[id(node.func)] = node

    # ------------------------------------------------------------ references
    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if id(original) in self._inner_attributes:
            return updated
        qualified = self._qualified(original)
        if qualified is None:
            if original.attr.value == "export_savedmodel" and "MIG203" in self.enabled:
                return updated.with_changes(attr=cst.Name("export_saved_model"))
            return updated
        canonical = symbols.canonical(qualified)
        if canonical is not None:
            return self._estimator_reference(original, updated, qualified, canonical)
        return self._tf1_reference(original, updated, qualified)

    def _estimator_reference(self, original, updated, qualified: str, canonical: str):
        if "MIG201" not in self.enabled:
            return updated
        if not symbols.available(canonical):
            self._report(
                original,
                "MIG101",
                f"{_short(qualified)} has no equivalent in the bundled runtime yet; left unchanged",
            )
            return updated
        return self._replace_namespace(original, updated)

    def _replace_namespace(self, original, updated):
        """Swaps the ``tf.estimator`` part of a chain for the runtime alias."""
        if isinstance(original, cst.Name):
            return updated  # a name bound by an import, which is rewritten instead
        qualified = self._qualified(original)
        replacement = symbols.RUNTIME_REPLACEMENTS.get(qualified)
        if replacement is not None:
            namespace, _, member = replacement.rpartition(".")
            return cst.Attribute(
                value=cst.Name(self._runtime_name(namespace)), attr=cst.Name(member)
            )
        if symbols.namespace(qualified) is not None:
            root = _root(original)
            root_qualified = self._qualified(root)
            if root_qualified and root_qualified.split(".")[0] == "tensorflow_estimator":
                # e.g. `import tensorflow_estimator as tfe`: removed once all uses are gone
                self._rewritten_roots[root.value] = self._rewritten_roots.get(root.value, 0) + 1
            return cst.Name(self._runtime_name(symbols.namespace(qualified)))
        if isinstance(original, cst.Attribute):
            return updated.with_changes(
                value=self._replace_namespace(original.value, updated.value)
            )
        return updated

    def _runtime_name(self, namespace: str) -> str:
        """The name that refers to ``runtime.<namespace>`` here, importing it once."""
        if namespace not in self._bound:
            alias = symbols.RUNTIME_ALIASES[namespace]
            if alias in self._global_scope:
                alias = "runtime_" + namespace.replace(".", "_")
            module, _, name = ("runtime." + namespace).rpartition(".")
            self._needed_imports.append((module, name, alias))
            self._bound[namespace] = alias
        return self._bound[namespace]

    def _tf1_reference(self, original, updated, qualified: str):
        if "MIG202" not in self.enabled or not qualified.startswith("tensorflow."):
            return updated
        if qualified.startswith(symbols.V1_LAYERS):
            self._uses_v1_layers = True
        if not self._contrib_summary_call_converts(original, qualified):
            return updated
        replacement = symbols.tf1_replacement(qualified)
        if qualified in symbols.V1_SUMMARY_OPS and not self._called_with_step(original):
            replacement = "tensorflow.compat.v1" + qualified[len("tensorflow") :]
        if replacement is not None:
            return self._tensorflow_reference(original, updated, qualified, replacement)
        if qualified.startswith("tensorflow.contrib."):
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} has no TensorFlow 2 equivalent; left unchanged",
                "rewrite it by hand",
            )
        return updated

    def _tensorflow_reference(self, original, updated, qualified: str, replacement: str):
        """``replacement`` written from this file's ``tensorflow`` name: the chain's
        own root, or the module's ``import tensorflow[.compat.v1] as tf`` when the
        chain starts at a legacy module import (``from tensorflow.contrib import
        summary``), which is then removed once none of its uses is left."""
        root = _root(original)
        if not isinstance(root, cst.Name):
            return updated  # a chain on a call's result; the call's own chain is rewritten
        if self._qualified(root) == "tensorflow":
            return _dotted(root.value + replacement[len("tensorflow") :])
        expression = self._from_global_tensorflow(replacement)
        if expression is None:
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} is {_short(replacement)} in TensorFlow 2, but this file "
                "has no `import tensorflow` to refer to it through; left unchanged",
                "add `import tensorflow as tf` and run migrate again",
            )
            return updated
        self._rewritten_roots[root.value] = self._rewritten_roots.get(root.value, 0) + 1
        return expression

    def _from_global_tensorflow(self, replacement: str) -> cst.BaseExpression | None:
        """``replacement`` through a global name bound to ``tensorflow``, or to
        ``tensorflow.compat.v1`` for replacements under ``tensorflow.compat``
        (whose other names would mean the v1 symbol there)."""
        for name, bound in self._global_modules().items():
            if bound == "tensorflow":
                return _dotted(name + replacement[len("tensorflow") :])
        for name, bound in self._global_modules().items():
            if bound == "tensorflow.compat.v1" and replacement.startswith("tensorflow.compat."):
                if replacement.startswith(bound + "."):
                    return _dotted(name + replacement[len(bound) :])
                return _dotted(name + replacement[len("tensorflow") :])
        return None

    def _global_modules(self) -> dict[str, str]:
        """Global names bound by an import, with the one qualified name each has."""
        if self._global_imports is None:
            self._global_imports = {}
            for assignment in self._global_scope.assignments:
                if not isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
                    continue
                names = self._global_scope.get_qualified_names_for(assignment.name)
                if len(names) == 1:
                    self._global_imports[assignment.name] = next(iter(names)).name
        return self._global_imports

    # --------------------------------------------------------------- imports
    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        module = get_full_name_for_node(original.module) if original.module else None
        if module is None or original.relative:
            return updated
        if isinstance(original.names, cst.ImportStar):
            return self._wildcard_import(original, updated, module)
        if "MIG201" not in self.enabled:
            return updated
        moved, kept = [], []
        for alias in updated.names:
            target = self._runtime_target(original, module, alias)
            (moved if target else kept).append((alias, target))
        if not moved:
            return updated
        modules = {target[0] for _, target in moved}
        if isinstance(self._scopes.get(original), GlobalScope):
            for alias, (target_module, name) in moved:
                bound = _bound_name(alias)
                self._bound.setdefault(f"{target_module}.{name}".removeprefix("runtime."), bound)
        if not kept and len(modules) == 1:
            return updated.with_changes(
                module=_dotted(modules.pop()),
                names=[
                    alias.with_changes(
                        name=cst.Name(name),
                        asname=_asname(alias, name),
                    )
                    for alias, (_, name) in moved
                ],
            )
        for alias, (target_module, name) in moved:
            bound = _bound_name(alias)
            self._needed_imports.append((target_module, name, None if bound == name else bound))
        names = [alias for alias, _ in kept]
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)

    def _wildcard_import(self, original, updated, module: str):
        """``from npu_bridge.npu_init import *`` (the usual Ascend preamble) becomes
        ``from runtime.npu import *``; names the file takes from it that the
        runtime lacks are reported. Other legacy wildcard imports stay as they are."""
        namespace = symbols.canonical(module)
        if namespace is None:
            return updated
        if namespace not in symbols.WILDCARD_NAMESPACES:
            self._report(
                original,
                "MIG103",
                f"wildcard import from {module}: its names cannot be resolved; left unchanged",
                "import the names you use explicitly",
            )
            return updated
        if "MIG201" not in self.enabled:
            return updated
        provided = symbols.members(namespace)
        missing = sorted({name for name in self._unresolved_names() if name not in provided})
        if missing:
            self._report(
                original,
                "MIG101",
                f"names used here that came from `from {module} import *` are not in the "
                f"bundled runtime: {', '.join(missing)}",
                "import them from where TensorFlow 2 has them, or remove their uses",
            )
        return updated.with_changes(module=_dotted(f"runtime.{namespace}"))

    def _unresolved_names(self) -> set[str]:
        """Names this file uses without defining or importing them (a wildcard
        import's names, or undefined ones)."""
        scopes = {scope for scope in self._scopes.values() if scope is not None}
        return {
            access.node.value
            for scope in scopes
            for access in scope.accesses
            if not access.referents and isinstance(access.node, cst.Name)
        }

    def _runtime_target(self, node, module: str, alias: cst.ImportAlias):
        qualified = f"{module}.{get_full_name_for_node(alias.name)}"
        canonical = symbols.canonical(qualified)
        if canonical is None:
            return None
        if not symbols.available(canonical):
            self._report(
                node,
                "MIG101",
                f"{_short(qualified)} has no equivalent in the bundled runtime yet; left unchanged",
            )
            return None
        target_module, _, name = ("runtime." + canonical).rpartition(".")
        return target_module, name

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        for alias in original.names:
            name = get_full_name_for_node(alias.name)
            canonical = symbols.canonical(name)
            if canonical is not None and "MIG201" in self.enabled and not alias.asname:
                self._report(
                    original,
                    "MIG101",
                    f"import {name}: refer to it as runtime.{canonical} instead; left unchanged",
                )
        return updated

    # ----------------------------------------------------------- the module
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = [
            statement for statement in updated.body if not self._unused_legacy_import(statement)
        ]
        present = {_import_key(statement) for statement in body}
        new = []
        if self._uses_v1_layers and not self._needed_imports and not _imports_runtime(body):
            new.append(_SELECT_LEGACY_KERAS)
        for module, name, alias in dict.fromkeys(self._needed_imports):
            key = (module, name, alias)
            if key not in present:
                new.append(_import_statement(module, name, alias))
                present.add(key)
        if new:
            at = _after_last_import(body)
            if at == 0 and body and not body[0].leading_lines:
                body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine()])
            body[at:at] = new
        return updated.with_changes(body=body)

    def _unused_legacy_import(self, statement) -> bool:
        """``import tensorflow_estimator as tfe`` or ``from tensorflow.contrib import
        summary`` whose every use was rewritten."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return False
        node = statement.body[0]
        if not isinstance(node, (cst.Import, cst.ImportFrom)):
            return False
        if isinstance(node.names, cst.ImportStar) or len(node.names) != 1:
            return False
        if isinstance(node, cst.Import) and not node.names[0].asname:
            return False
        bound = _bound_name(node.names[0])
        rewritten = self._rewritten_roots.get(bound, 0)
        uses = sum(len(a.references) for a in self._global_scope.assignments[bound])
        return rewritten > 0 and rewritten == uses

    # ---------------------------------------------------------------- helpers
    def _qualified(self, node: cst.CSTNode) -> str | None:
        """The one import-based qualified name of ``node`` (None if none or ambiguous)."""
        scope = self._scopes.get(node)
        if scope is None or not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        names = {
            q.name
            for q in scope.get_qualified_names_for(node)
            if q.source == QualifiedNameSource.IMPORT
        }
        return names.pop() if len(names) == 1 else None

    def _contrib_summary_call_converts(self, node, qualified: str) -> bool:
        """Whether a ``tf.contrib.summary`` reference can become TF 2's (reported if not)."""
        call = self._calls_by_callee.get(id(node))
        if qualified in symbols.CONTRIB_RECORD_SWITCHES:
            converts = call is not None and not call.args
        elif qualified in symbols.CONTRIB_SUMMARY_CALLS:
            allowed = symbols.CONTRIB_SUMMARY_CALLS[qualified]
            converts = call is not None and _fits(call.args, allowed)
        else:
            return True
        if not converts:
            self._report(
                node,
                "MIG102",
                f"{_short(qualified)} called in a way TF 2's tf.summary has no equivalent for "
                "(family, extra positional arguments); left unchanged",
                "call tf.summary.* with (name, data, step=...) by hand",
            )
        return converts

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """Adds the condition contrib's record switches implied, and renames
        keywords of contrib summary calls (the callee itself is renamed by the
        attribute rules)."""
        if "MIG202" not in self.enabled or not isinstance(original.func, cst.Attribute):
            return updated
        qualified = self._qualified(original.func)
        if qualified in symbols.CONTRIB_RECORD_SWITCHES and not original.args:
            value = symbols.CONTRIB_RECORD_SWITCHES[qualified]
            return updated.with_changes(args=[cst.Arg(cst.Name(value))])
        if qualified in symbols.CONTRIB_SUMMARY_CALLS and _fits(
            original.args, symbols.CONTRIB_SUMMARY_CALLS[qualified]
        ):
            renames = symbols.CONTRIB_SUMMARY_CALLS[qualified]
            return updated.with_changes(
                args=[
                    arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
                    if arg.keyword is not None
                    else arg
                    for arg in updated.args
                ]
            )
        return updated

    def _called_with_step(self, node: cst.Attribute) -> bool:
        """``tf.summary.scalar(..., step=...)`` is already TF 2 code."""
        call = self._calls_by_callee.get(id(node))
        if call is None:
            return True  # not called here: leave it
        return any(arg.keyword is not None and arg.keyword.value == "step" for arg in call.args)

    def _count(self, node) -> None:
        """Numbers dotted names and imports in source order, for :meth:`_report`."""
        key = _position_key(node)
        if key is not None:
            self._seen[key] = self._seen.get(key, 0) + 1
            self._occurrence[id(node)] = (key, self._seen[key] - 1)

    def _report(self, node, code: str, message: str, suggestion: str = "") -> None:
        if code not in self.enabled:
            return
        line, column = self._locator.locate(*self._occurrence[id(node)])
        self.diagnostics.append(Diagnostic(self.path, line, column, code, message, suggestion))


def _fits(args, allowed_keywords: dict) -> bool:
    positional = [a for a in args if a.keyword is None]
    return (
        len(positional) <= 2
        and not any(a.star for a in args)
        and all(a.keyword.value in allowed_keywords for a in args if a.keyword is not None)
    )


def _short(qualified: str) -> str:
    if qualified.startswith("tensorflow."):
        return "tf" + qualified[len("tensorflow") :]
    return qualified


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node


def _bound_name(alias: cst.ImportAlias) -> str:
    """The name an import alias binds (``b`` in ``import a as b``)."""
    if alias.asname:
        return get_full_name_for_node(alias.asname.name)
    return get_full_name_for_node(alias.name)


def _asname(alias: cst.ImportAlias, new_name: str) -> cst.AsName | None:
    bound = _bound_name(alias)
    if bound == new_name:
        return None
    return alias.asname or cst.AsName(name=cst.Name(bound))


def _dotted(path: str) -> cst.BaseExpression:
    parts = path.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _import_statement(module: str, name: str, alias: str | None) -> cst.SimpleStatementLine:
    asname = cst.AsName(name=cst.Name(alias)) if alias else None
    return cst.SimpleStatementLine(
        [cst.ImportFrom(module=_dotted(module), names=[cst.ImportAlias(cst.Name(name), asname)])]
    )


# TF 2.16+ resolves tf.compat.v1.layers through Keras 3, where they fail; importing
# the runtime selects tf-keras (TF_USE_LEGACY_KERAS=1) before they are first used.
_SELECT_LEGACY_KERAS = cst.SimpleStatementLine(
    [cst.Import(names=[cst.ImportAlias(cst.Name("runtime"))])],
    trailing_whitespace=cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  "),
        comment=cst.Comment("# noqa: F401 -- selects tf-keras for tf.compat.v1.layers"),
    ),
)


def _imports_runtime(body) -> bool:
    """Whether a top-level statement imports the runtime package or one of its modules."""
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for node in statement.body:
            if isinstance(node, cst.ImportFrom) and node.module is not None:
                names = [get_full_name_for_node(node.module)]
            elif isinstance(node, cst.Import):
                names = [get_full_name_for_node(alias.name) for alias in node.names]
            else:
                continue
            if any(name == "runtime" or name.startswith("runtime.") for name in names):
                return True
    return False


def _import_key(statement) -> tuple | None:
    """``(module, name, alias)`` of a one-name ``from`` import statement."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    node = statement.body[0]
    if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
        return None
    if node.module is None or len(node.names) != 1:
        return None
    alias = node.names[0]
    asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
    return get_full_name_for_node(node.module), get_full_name_for_node(alias.name), asname


def _after_last_import(body) -> int:
    """Where a new top-level import goes: after the last one, or after the docstring."""
    position = 0
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(
            statement.body[0], (cst.Import, cst.ImportFrom)
        ):
            position = index + 1
    if position == 0 and body and _is_docstring(body[0]):
        position = 1
    return position


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _position_key(node) -> tuple | None:
    if isinstance(node, cst.Attribute):
        name = dotted_name(node)
        return ("name", name) if name else None
    if isinstance(node, cst.ImportFrom):
        module = get_full_name_for_node(node.module) if node.module else ""
        return ("from", "." * len(node.relative) + module)
    if isinstance(node, cst.Import):
        return ("import", ",".join(get_full_name_for_node(a.name) for a in node.names))
    return None


def migrate_module(module: cst.Module, *, source: str, path: str, enabled: frozenset[str]):
    """Returns ``(new module, diagnostics)``; ``module`` itself is left as it was."""
    transformer = MigrateTransformer(
        Locator(source), module_scopes(module), path=path, enabled=enabled
    )
    return module.visit(transformer), transformer.diagnostics
