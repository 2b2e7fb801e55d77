"""The edits a migration makes at module level: imports it adds, legacy imports it
removes once none of their uses is left.

The transformer collects them while it rewrites the module's statements and applies
them when it leaves the module. A large file migrated in parts
(``migrator.rules.chunked``) merges every part's edits before the last part applies them,
so the result is the one a single pass gives.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import libcst as cst
from libcst.helpers import get_full_name_for_node

from estimator_revival.migrator.data import symbols

# (module, name, alias): ``from module import name as alias``; ``import name`` when
# the module is ""
ImportKey = tuple[str, str, "str | None"]
# (order key of the top-level statement that needed it, rank within that pass)
Order = tuple[int, int]


@dataclasses.dataclass(frozen=True)
class NeededImport:
    order: Order
    key: ImportKey
    # an import split from an import statement goes after it; one a rewritten
    # reference needs goes before the statement that uses it
    after_its_statement: bool = False


@dataclasses.dataclass
class ModuleEdits:
    needed_imports: list[NeededImport] = dataclasses.field(default_factory=list)
    # name bound by a legacy import -> how many of its uses were rewritten / exist
    rewritten_roots: Counter[str] = dataclasses.field(default_factory=Counter)
    root_uses: Counter[str] = dataclasses.field(default_factory=Counter)
    # order key of the first statement using tf.compat.v1.layers (they need Keras 2)
    first_v1_layers_use: int | None = None

    def merged(self, other: ModuleEdits) -> ModuleEdits:
        uses = [k for k in (self.first_v1_layers_use, other.first_v1_layers_use) if k is not None]
        return ModuleEdits(
            needed_imports=self.needed_imports + other.needed_imports,
            rewritten_roots=self.rewritten_roots + other.rewritten_roots,
            root_uses=self.root_uses + other.root_uses,
            first_v1_layers_use=min(uses, default=None),
        )

    def imports(self) -> list[ImportKey]:
        """The imports to add, each once, in the order the module first needed them."""
        ordered = sorted(self.needed_imports, key=lambda need: need.order)
        return list(dict.fromkeys(need.key for need in ordered))

    def apply(
        self,
        body: list[cst.BaseStatement],
        keys: list[int],
        *,
        imports_before: str | None = None,
    ) -> tuple[list[cst.BaseStatement], list[int], list[cst.EmptyLine]]:
        """The module's statements (with their order ``keys``) with these edits made,
        their keys (an added import takes the key of the statement before it, or the
        first key), and the comment lines of removed statements no statement follows.

        Added imports go after the last import (before the first statement ending
        with the comment ``imports_before``, if given) or after the docstring, and
        never after the first statement that uses them. A removed import's comment
        lines stay (with the blank lines among them), above the statement that
        followed it.
        """
        kept: list[tuple[cst.BaseStatement, int]] = []
        carried: list[cst.EmptyLine] = []
        for statement, key in zip(body, keys, strict=True):
            if self._unused_legacy_import(statement):
                if any(line.comment is not None for line in statement.leading_lines):
                    carried += statement.leading_lines
                continue
            if carried:
                statement = statement.with_changes(
                    leading_lines=[*carried, *statement.leading_lines]
                )
                carried = []
            kept.append((statement, key))
        body = [statement for statement, _ in kept]
        keys = [key for _, key in kept]
        present = {_import_key(statement) for statement in body}
        new = []
        imports = self.imports()
        # (order key, whether the import may follow that statement) of each user
        users = [(need.order[0], need.after_its_statement) for need in self.needed_imports]
        adds_runtime = any(symbols.in_runtime(module or name) for module, name, _ in imports)
        if self.first_v1_layers_use is not None and not adds_runtime and not _imports_runtime(body):
            new.append(_SELECT_LEGACY_KERAS)
            users = [(self.first_v1_layers_use, False)]
        for key in imports:
            if key not in present:
                new.append(_import_statement(*key))
                present.add(key)
        if new:
            at = after_last_import(body[: _first_marked(body, imports_before)])
            for user, after in users:
                at = min(at, _index_of_first(keys, user, after=after, default=at))
            if at == 0 and body and not body[0].leading_lines:
                body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine()])
            body[at:at] = new
            keys[at:at] = [keys[at - 1] if at else min(keys, default=0)] * len(new)
        return body, keys, carried

    def _unused_legacy_import(self, statement: cst.BaseStatement) -> bool:
        """``import tensorflow_estimator as tfe`` or ``from tensorflow.contrib import
        summary`` whose every use was rewritten."""
        bound = removable_import_binding(statement)
        if bound is None:
            return False
        rewritten = self.rewritten_roots[bound]
        return rewritten > 0 and rewritten == self.root_uses[bound]


def removable_import_binding(statement: cst.BaseStatement) -> str | None:
    """The name a one-name import statement binds, if the statement could be removed
    (``import a.b as c``, ``from a import b [as c]``; not ``import a``, which also
    makes its submodules importable)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    node = statement.body[0]
    if not isinstance(node, (cst.Import, cst.ImportFrom)):
        return None
    if isinstance(node.names, cst.ImportStar) or len(node.names) != 1:
        return None
    if isinstance(node, cst.Import) and not node.names[0].asname:
        return None
    return bound_name(node.names[0])


def bound_name(alias: cst.ImportAlias) -> str:
    """The name an import alias binds (``b`` in ``import a as b``)."""
    if alias.asname:
        return get_full_name_for_node(alias.asname.name)
    return get_full_name_for_node(alias.name)


def dotted(path: str) -> cst.BaseExpression:
    parts = path.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _import_statement(module: str, name: str, alias: str | None) -> cst.SimpleStatementLine:
    asname = cst.AsName(name=cst.Name(alias)) if alias else None
    if not module:
        return cst.SimpleStatementLine([cst.Import(names=[cst.ImportAlias(dotted(name), asname)])])
    return cst.SimpleStatementLine(
        [cst.ImportFrom(module=dotted(module), names=[cst.ImportAlias(cst.Name(name), asname)])]
    )


# TF 2.16+ resolves tf.compat.v1.layers through Keras 3, where they fail; importing
# the runtime selects tf-keras (TF_USE_LEGACY_KERAS=1) before they are first used.
_SELECT_LEGACY_KERAS = cst.SimpleStatementLine(
    [cst.Import(names=[cst.ImportAlias(cst.Name(symbols.PACKAGE))])],
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
            if any(symbols.in_runtime(name) for name in names):
                return True
    return False


def _import_key(statement) -> tuple | None:
    """``(module, name, alias)`` of a one-name import statement (module "" for
    ``import name``)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    node = statement.body[0]
    if isinstance(node, cst.Import) and len(node.names) == 1:
        alias = node.names[0]
        asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
        return "", get_full_name_for_node(alias.name), asname
    if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
        return None
    if node.module is None or len(node.names) != 1:
        return None
    alias = node.names[0]
    asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
    return get_full_name_for_node(node.module), get_full_name_for_node(alias.name), asname


def after_last_import(body) -> int:
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


def _index_of_first(keys: list[int], user: int, *, after: bool, default: int) -> int:
    """Index of the statement a new import must precede: the user itself, or (for an
    import split from a statement) the one after it."""
    for index, key in enumerate(keys):
        if key > user or (key == user and not after):
            return index
    return default


def _first_marked(body, comment: str | None) -> int:
    """Index of the first statement whose trailing comment is ``comment`` (or the end)."""
    if comment is None:
        return len(body)
    for index, statement in enumerate(body):
        trailing = getattr(statement, "trailing_whitespace", None)
        if trailing is not None and getattr(trailing.comment, "value", None) == comment:
            return index
    return len(body)


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
