"""Name resolution from a module's imports alone, for the files where that is exact.

libcst's scope analysis walks the whole tree twice (with the expression contexts it
needs): on real TensorFlow code, over a third of ``migrate``'s time. What the migration
asks of it is nearly always what a dotted name means through the module's imports.
In most files every name an import binds is bound by imports only, all at module
level, and used only after them. There, libcst's answer for any use, in any scope,
is its global scope's answer from the import statements: so that global scope
(libcst's own class, with the assignments its own visitor would record) is built
from the module-level statements, without walking expressions.

Which files qualify is read from Python's ``ast`` (one ``ast.walk``, in C-built
nodes). A question that still depends on more than the imports (is a name bound
elsewhere, how often a name is used when string annotations may use it too)
raises :class:`~migrator.names.scopes.NeedsFullScopes`. ``tests/migrator/test_migrator_scopes.py``
holds the answers to the full analysis', node for node.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import Counter

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import GlobalScope, Scope

from estimator_revival.migrator.names.scopes import NeedsFullScopes, Scopes


class ImportScopes(Scopes):
    """Answers from the module-level imports (build with :func:`import_scopes`)."""

    def __init__(
        self,
        global_scope: GlobalScope,
        *,
        import_parts: set[int],
        bound_otherwise: set[str],
        loads: Counter[str],
        may_annotate_with_strings: bool,
        first_party: frozenset[str],
    ) -> None:
        super().__init__(global_scope, first_party=first_party)
        self._import_parts = import_parts  # ids of the names inside import statements
        self._bound_otherwise = bound_otherwise
        self._loads = loads
        self._may_annotate_with_strings = may_annotate_with_strings

    def scope_of(self, node: cst.CSTNode) -> Scope | None:
        return None if id(node) in self._import_parts else self._global

    def binds(self, name: str) -> bool:
        self._decline_if_bound_otherwise(name)
        return name in self._global

    def uses(self, name: str) -> int:
        self._decline_if_bound_otherwise(name)
        if self._may_annotate_with_strings:
            raise NeedsFullScopes("string annotations may use imported names")
        dotted = [a.name for a in self._global.assignments if a.name.startswith(name + ".")]
        if dotted:
            raise NeedsFullScopes(f"uses of {name} may count as uses of {dotted[0]}")
        return self._loads[name] * len(self._global.assignments[name])

    def unresolved_names(self) -> set[str]:
        raise NeedsFullScopes("names from a wildcard import")

    def _decline_if_bound_otherwise(self, name: str) -> None:
        if name in self._bound_otherwise:
            raise NeedsFullScopes(f"{name} is bound by more than imports")


def import_scopes(
    module: cst.Module, tree: ast.Module, *, first_party: frozenset[str] = frozenset()
) -> ImportScopes | None:
    """The import-only answers for ``module`` (``tree``: its ``ast``), or None if the
    file needs the full analysis: a wildcard import, an import inside a function or
    class, a name an import binds that is also bound otherwise (assigned, a
    parameter, a function, declared global...) or used before its last import, or
    a ``match`` statement (whose keyword patterns libcst counts as uses)."""
    names = _Names.read(tree)
    if names is None or names.bound_otherwise & names.last_import.keys():
        return None
    if any(names.first_use.get(name, at) < at for name, at in names.last_import.items()):
        return None
    global_scope, import_parts, found = _imports_at_module_level(module)
    if found != names.imports:
        return None
    return ImportScopes(
        global_scope,
        import_parts=import_parts,
        bound_otherwise=names.bound_otherwise,
        loads=names.uses,
        may_annotate_with_strings=names.string_annotations,
        first_party=first_party,
    )


@dataclasses.dataclass
class _Names:
    """What Python's ``ast`` says of a file's names (positions: line, byte offset)."""

    last_import: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    bound_otherwise: set[str] = dataclasses.field(default_factory=set)
    first_use: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    uses: Counter[str] = dataclasses.field(default_factory=Counter)
    imports: int = 0  # import statements
    string_annotations: bool = False  # whether a string may be read as an annotation

    @classmethod
    def read(cls, tree: ast.Module) -> _Names | None:
        """None for a file with a wildcard import or a ``match`` statement."""
        names = cls()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names._name(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                if any(alias.name == "*" for alias in node.names):
                    return None
                names._import(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.bound_otherwise.add(node.name)
                names.string_annotations |= _has_string(getattr(node, "returns", None))
            elif isinstance(node, ast.arg):
                names.bound_otherwise.add(node.arg)
                names.string_annotations |= _has_string(node.annotation)
            elif isinstance(node, ast.AnnAssign):
                names.string_annotations |= _has_string(node.annotation)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.bound_otherwise.add(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names.bound_otherwise.update(node.names)
            elif isinstance(node, ast.Match):
                return None
        return names

    def _name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.bound_otherwise.add(node.id)
            return
        self.uses[node.id] += 1  # a load or a del: libcst counts both as uses
        at = (node.lineno, node.col_offset)
        self.first_use[node.id] = min(self.first_use.get(node.id, at), at)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.imports += 1
        at = (node.lineno, node.col_offset)
        for alias in node.names:
            source = node.module if isinstance(node, ast.ImportFrom) else alias.name
            # typing's names take string annotations outside annotations too
            self.string_annotations |= (source or "").split(".")[0] in _TYPING
            name = alias.asname or alias.name.split(".")[0]
            self.last_import[name] = max(self.last_import.get(name, at), at)


_TYPING = frozenset({"typing", "typing_extensions"})


def _has_string(annotation: ast.expr | None) -> bool:
    return annotation is not None and any(
        isinstance(node, ast.Constant) and isinstance(node.value, str)
        for node in ast.walk(annotation)
    )


def _imports_at_module_level(module: cst.Module) -> tuple[GlobalScope, set[int], int]:
    """libcst's global scope with the import assignments its visitor records, the
    ids of the nodes inside those import statements that have no scope, and how
    many statements there are."""
    scope = GlobalScope()
    parts: set[int] = set()
    count = 0
    for node in _module_level_imports(module.body):
        count += 1
        _record_import(scope, node)
        # libcst gives a scope to the statement and its aliases, not to what they hold
        parts.update(
            id(part)
            for child in node.children
            for part in _descendants(child)
            if not isinstance(part, cst.ImportAlias)
        )
    return scope, parts, count


def _record_import(scope: GlobalScope, node: cst.Import | cst.ImportFrom) -> None:
    """As libcst's ScopeVisitor records an import: every dotted prefix of the name
    it binds (``a.b.c``, ``a.b``, ``a``) is an assignment."""
    for alias in node.names:
        bound = alias.asname.name if alias.asname is not None else alias.name
        parts = get_full_name_for_node(bound).split(".")
        for end in range(len(parts), 0, -1):
            scope.record_import_assignment(".".join(parts[:end]), node, bound)


def _module_level_imports(body):
    """The import statements that run in the module's scope, in source order: also
    those nested in ``if``/``try``/``for``/``while``/``with``, not those in
    functions or classes."""
    for statement in body:
        if isinstance(statement, (cst.Import, cst.ImportFrom)):  # in a one-line suite
            yield statement
        elif isinstance(statement, cst.SimpleStatementLine):
            yield from (s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))
        elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
            statement, (cst.FunctionDef, cst.ClassDef)
        ):
            for block in _blocks(statement):
                yield from _module_level_imports(block)


def _blocks(statement: cst.BaseCompoundStatement):
    """The statement lists of a compound statement, in source order."""
    for field in ("body", "handlers", "orelse", "finalbody"):
        part = getattr(statement, field, None)
        if isinstance(part, cst.If):  # elif
            yield [part]
        elif isinstance(part, (list, tuple)):  # except clauses
            for handler in part:
                yield handler.body.body
        elif isinstance(part, cst.BaseSuite):
            yield part.body
        elif part is not None:  # else, finally
            yield part.body.body


def _descendants(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _descendants(child)
