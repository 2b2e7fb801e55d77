"""What the migration asks of a module's scopes: what a dotted name resolves to
through the imports, which names the module binds, how often an import is used.

:class:`FullScopes` answers from libcst's scope analysis of the whole module; the
cheaper :class:`migrator.names.import_scopes.ImportScopes` answers the same from the
module's imports alone, for the files whose imports make that exact.

libcst's analysis runs here in two traversals instead of four:
``MetadataWrapper.resolve(ScopeProvider)`` runs ScopeProvider and the
ExpressionContextProvider it depends on as batched providers: each one's
``visit_Module`` walks the tree with its own visitor, and then the batch walks
the whole tree again for nothing. Calling the two providers' ``visit_Module``
directly gives the same scopes from their own two walks.
``tests/migrator/test_migrator_scopes.py`` holds the result to the wrapper's, node for node.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import (
    ExpressionContextProvider,
    GlobalScope,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

from estimator_revival.migrator.data.symbols import public_name
from estimator_revival.migrator.source.positions import dotted_name


class NeedsFullScopes(Exception):
    """A question :class:`~migrator.names.import_scopes.ImportScopes` cannot answer as the
    full analysis would: the migration of the module starts again with it."""


def module_scopes(module: cst.Module) -> Mapping[cst.CSTNode, Scope]:
    """The scope ScopeProvider gives each node of ``module`` (nodes it has none for are absent)."""
    contexts = ExpressionContextProvider()
    contexts.visit_Module(module)
    scopes = ScopeProvider()
    scopes.metadata = {ExpressionContextProvider: contexts._computed}
    scopes.visit_Module(module)
    return scopes._computed


class Scopes(abc.ABC):
    """The questions, answered from a libcst global scope; subclasses say which
    scope a node is in. Names imported from the program's own top-level modules
    (``first_party``) resolve to none of the packages the migration knows: a
    project's own ``runtime`` or ``npu_bridge`` is its own."""

    def __init__(self, global_scope: GlobalScope, *, first_party: frozenset[str]) -> None:
        self._global = global_scope
        self._first_party = first_party

    def resolves(self, qualified: str) -> bool:
        """Whether a qualified name may be one of the packages the migration knows
        (not one of the program's own modules)."""
        return qualified.split(".")[0] not in self._first_party

    @abc.abstractmethod
    def scope_of(self, node: cst.CSTNode) -> Scope | None: ...

    def qualified(self, node: cst.CSTNode) -> str | None:
        """The one import-based qualified name of ``node`` (None if none or ambiguous).

        A TF 1.15 name is its public name (``symbols.public_name``:
        ``tensorflow.compat.v1.contrib.X`` is ``tensorflow.contrib.X``, a contrib
        module's private path the public name it was exported under)."""
        scope = self.scope_of(node)
        if scope is None or dotted_name(node) is None:
            return None  # a chain on a call's or subscript's result names no import
        names = {
            q.name
            for q in scope.get_qualified_names_for(node)
            if q.source == QualifiedNameSource.IMPORT
        }
        if len(names) != 1 or not self.resolves(name := names.pop()):
            return None
        return public_name(name)

    def at_module_level(self, node: cst.CSTNode) -> bool:
        return isinstance(self.scope_of(node), GlobalScope)

    def import_bindings(self) -> dict[str, tuple[str, cst.CSTNode]]:
        """Global names an import binds that have one qualified name: that name, and
        the import statement."""
        found = {}
        for assignment in self._global.assignments:
            if isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
                names = self._global.get_qualified_names_for(assignment.name)
                if len(names) == 1 and self.resolves(qualified := next(iter(names)).name):
                    found[assignment.name] = (qualified, assignment.node)
        return found

    def binds(self, name: str) -> bool:
        """Whether ``name`` means something at module level (bound there, or a builtin)."""
        return name in self._global

    def uses(self, name: str) -> int:
        """How many uses refer to the module-level bindings of ``name`` (once per binding)."""
        return sum(len(a.references) for a in self._global.assignments[name])

    @abc.abstractmethod
    def unresolved_names(self) -> set[str]:
        """Names the module uses without defining or importing them (a wildcard
        import's names, or undefined ones)."""


class FullScopes(Scopes):
    """libcst's scope analysis of the whole module."""

    def __init__(self, module: cst.Module, *, first_party: frozenset[str] = frozenset()) -> None:
        self._scopes = module_scopes(module)
        super().__init__(self._scopes[module], first_party=first_party)

    def scope_of(self, node: cst.CSTNode) -> Scope | None:
        return self._scopes.get(node)

    def unresolved_names(self) -> set[str]:
        scopes = {scope for scope in self._scopes.values() if scope is not None}
        return {
            access.node.value
            for scope in scopes
            for access in scope.accesses
            if not access.referents and isinstance(access.node, cst.Name)
        }
