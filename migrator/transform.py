"""The codemod: one pass over a module that resolves every name through its
imports (libcst's QualifiedNameProvider) and rewrites what it can.

* Estimator API (rule MIG201): ``tf.estimator.X`` becomes ``tf_estimator.X`` with
  ``from runtime import estimator as tf_estimator`` added; ``from
  tensorflow.estimator import X`` becomes ``from runtime.estimator import X``.
* TF1-only symbols (MIG202): ``tf.layers.dense`` becomes
  ``tf.compat.v1.layers.dense`` (table generated from tf_upgrade_v2's data).
* ``est.export_savedmodel(...)`` becomes ``est.export_saved_model(...)`` (MIG203).

Whatever cannot be converted is reported with a stable code and left exactly
as it was.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from migrator import symbols
from migrator.diagnostics import Diagnostic


class MigrateCommand(VisitorBasedCodemodCommand):
    """Rewrites one module; what it could not convert collects in ``diagnostics``."""

    DESCRIPTION = "Rewrite TF1 Estimator code for TensorFlow 2.16+ and the bundled runtime."
    METADATA_DEPENDENCIES = (
        QualifiedNameProvider,
        PositionProvider,
        ParentNodeProvider,
        ScopeProvider,
    )

    def __init__(self, context: CodemodContext, *, path: str, enabled: frozenset[str]) -> None:
        super().__init__(context)
        self.path = path
        self.enabled = enabled
        self.diagnostics: list[Diagnostic] = []
        # runtime module -> the name this file binds it to (from a rewritten import)
        self._bound: dict[str, str] = {}

    def visit_Module(self, node: cst.Module) -> None:
        scope = self.get_metadata(ScopeProvider, node)
        names = set(scope.assignments._assignments) if isinstance(scope, GlobalScope) else set()
        self._module_names = {name for name in names if isinstance(name, str)}

    # ------------------------------------------------------------ references
    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if not self._outermost(original):
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
        if symbols.namespace(qualified) is not None:
            root_qualified = self._qualified(_root(original))
            if root_qualified and root_qualified.split(".")[0] == "tensorflow_estimator":
                # e.g. `import tensorflow_estimator as tfe`, unused once rewritten
                RemoveImportsVisitor.remove_unused_import(
                    self.context, root_qualified, asname=_root(original).value
                )
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
            if alias in self._module_names:
                alias = "runtime_" + namespace.replace(".", "_")
            module, _, name = ("runtime." + namespace).rpartition(".")
            AddImportsVisitor.add_needed_import(self.context, module, name, asname=alias)
            self._bound[namespace] = alias
        return self._bound[namespace]

    def _tf1_reference(self, original, updated, qualified: str):
        if "MIG202" not in self.enabled or not qualified.startswith("tensorflow."):
            return updated
        replacement = symbols.tf1_replacement(qualified)
        if qualified in symbols.V1_SUMMARY_OPS and not self._called_with_step(original):
            replacement = "tensorflow.compat.v1" + qualified[len("tensorflow") :]
        root = _root(original)
        if replacement is not None and self._qualified(root) == "tensorflow":
            return _dotted(root.value + replacement[len("tensorflow") :])
        if replacement is None and qualified.startswith("tensorflow.contrib."):
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} has no TensorFlow 2 equivalent; left unchanged",
                "rewrite it by hand",
            )
        return updated

    # --------------------------------------------------------------- imports
    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        module = get_full_name_for_node(original.module) if original.module else None
        if module is None or original.relative:
            return updated
        if isinstance(original.names, cst.ImportStar):
            if symbols.canonical(module) is not None:
                self._report(
                    original,
                    "MIG101" if "npu" in (symbols.canonical(module) or "") else "MIG103",
                    f"wildcard import from {module}: its names cannot be resolved; left unchanged",
                    "import the names you use explicitly",
                )
            return updated
        if "MIG201" not in self.enabled:
            return updated
        moved, kept = [], []
        for alias in updated.names:
            target = self._runtime_target(original, module, alias)
            (moved if target else kept).append((alias, target))
        if not moved:
            return updated
        modules = {target[0] for _, target in moved}
        if isinstance(self.get_metadata(ScopeProvider, original, None), GlobalScope):
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
            AddImportsVisitor.add_needed_import(
                self.context, target_module, name, asname=None if bound == name else bound
            )
        names = [alias for alias, _ in kept]
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)

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

    # ---------------------------------------------------------------- helpers
    def _qualified(self, node: cst.CSTNode) -> str | None:
        names = {
            q.name
            for q in self.get_metadata(QualifiedNameProvider, node, set())
            if q.source == QualifiedNameSource.IMPORT
        }
        return names.pop() if len(names) == 1 else None

    def _called_with_step(self, node: cst.Attribute) -> bool:
        """``tf.summary.scalar(..., step=...)`` is already TF 2 code."""
        call = self.get_metadata(ParentNodeProvider, node, None)
        if not (isinstance(call, cst.Call) and call.func is node):
            return True  # not called here: leave it
        return any(arg.keyword is not None and arg.keyword.value == "step" for arg in call.args)

    def _outermost(self, node: cst.Attribute) -> bool:
        parent = self.get_metadata(ParentNodeProvider, node, None)
        return not (isinstance(parent, cst.Attribute) and parent.value is node)

    def _report(self, node, code: str, message: str, suggestion: str = "") -> None:
        if code not in self.enabled:
            return
        position = self.get_metadata(PositionProvider, node).start
        self.diagnostics.append(
            Diagnostic(self.path, position.line, position.column + 1, code, message, suggestion)
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
