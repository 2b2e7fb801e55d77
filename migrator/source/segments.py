"""A module's top-level statements as ranges of lines ("segments"), and which of
them a migration needs: the cheap first look (Python's C parser and regular
expressions, no libcst) that lets ``migrator.rules.chunked`` migrate a large file in parts.

A segment owns the lines libcst gives its statement: the blank and comment lines
above it, and, for a block statement, the indented comment lines after it (libcst's
block footer). Segments cover every line of the file, in order.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator

_IMPORTS = (ast.Import, ast.ImportFrom)
# Scopes of their own: a binding inside them is not a module-level binding.
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclasses.dataclass(frozen=True)
class Segment:
    start: int  # index of its first physical line
    stop: int  # index one past its last line
    # in every part: the statements up to the last top-level import (where added
    # imports may go), module-level imports and bindings of the runtime's aliases
    shared: bool
    needed: bool  # mentions something a migration may rewrite or report


def split(
    tree: ast.Module,
    lines: list[str],
    *,
    acts_under: Callable[[str], bool],
    words: str,
    reserved_names: Iterable[str],
) -> list[Segment]:
    """The segments of a module whose ``lines`` parsed to ``tree``.

    ``acts_under`` tells whether a migration may act on names reached through what
    an import binds; ``words`` (a pattern) matches the text it acts on without an
    import (e.g. a method name); ``reserved_names`` are names whose module-level
    binding changes what the migration writes (the runtime's import aliases).
    """
    groups = list(_statement_groups(tree.body))
    if not groups:
        return []
    mentions = _words(_names_imported_from(groups, acts_under), re.compile(words))
    reserved = frozenset(reserved_names)
    reserved_mentions = _words(reserved)
    # Added imports go after the last top-level import, or before the first statement
    # that uses them: every statement up to that import, and the one after it (whose
    # leading lines may change with them), is shared.
    import_section = max(
        (n for n, group in enumerate(groups) if any(isinstance(s, _IMPORTS) for s in group)),
        default=0,
    )
    segments = []
    start = 0
    for number, group in enumerate(groups):
        if number + 1 < len(groups):
            next_line = _first_line(groups[number + 1])
            stop = _end_line(group) + _footer_length(group[-1], lines, next_line)
        else:
            stop = len(lines)
        text = "".join(lines[start:stop])
        shared = (
            number <= import_section + 1
            or any(_imports_at_module_level(statement) for statement in group)
            or (
                reserved_mentions.search(text) is not None
                and any(name in reserved for s in group for name in _bound_names(s))
            )
        )
        segments.append(Segment(start, stop, shared, shared or bool(mentions.search(text))))
        start = stop
    return segments


def has_wildcard_import(tree: ast.Module, modules: re.Pattern[str]) -> bool:
    """Whether the module star-imports a module the migration knows (its names then
    resolve only against the whole file)."""
    return any(
        isinstance(node, ast.ImportFrom)
        and any(alias.name == "*" for alias in node.names)
        and modules.search(node.module or "")
        for node in ast.walk(tree)
    )


def _statement_groups(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """Top-level statements, those that share a line (``a = 1; b = 2``) together."""
    group: list[ast.stmt] = []
    for statement in body:
        if group and _first_line(statement) <= group[-1].end_lineno:
            group.append(statement)
            continue
        if group:
            yield group
        group = [statement]
    if group:
        yield group


def _first_line(node) -> int:
    """1-based line where a statement (or group) starts, its decorators included."""
    if isinstance(node, list):
        node = node[0]
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _end_line(group: list[ast.stmt]) -> int:
    return max(statement.end_lineno for statement in group)


def _footer_length(statement: ast.stmt, lines: list[str], next_first_line: int) -> int:
    """How many lines after a block statement libcst keeps in its footer: up to the
    last one indented at least as deep as the block (the rest go to the next
    statement's leading lines)."""
    indent = _last_block_indent(statement, lines)
    if indent is None:
        return 0
    gap = lines[statement.end_lineno : next_first_line - 1]
    length = 0
    for number, line in enumerate(gap, start=1):
        stripped = line.lstrip(" \t")
        if len(line) - len(stripped) >= indent and (
            stripped.startswith("#") or not stripped.strip()
        ):
            length = number
    return length


def _last_block_indent(statement: ast.stmt, lines: list[str]) -> int | None:
    """The indentation of the last clause's block of a compound statement (None for
    a simple statement, or a last clause on one line such as ``except E: pass``)."""
    body = _last_clause(statement)
    if not body:
        return None
    first = body[0]
    before = lines[first.lineno - 1].encode()[: first.col_offset].decode(errors="replace")
    return first.col_offset if not before.strip() else None


def _last_clause(statement: ast.stmt) -> list[ast.stmt] | None:
    if isinstance(statement, ast.Match):
        return statement.cases[-1].body if statement.cases else None
    if isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        if statement.finalbody:
            return statement.finalbody
        if statement.orelse:
            return statement.orelse
        if statement.handlers:
            return statement.handlers[-1].body
        return statement.body
    orelse = getattr(statement, "orelse", None)
    if orelse:
        elif_ = isinstance(statement, ast.If) and len(orelse) == 1 and isinstance(orelse[0], ast.If)
        if elif_ and orelse[0].col_offset == statement.col_offset:
            return _last_clause(orelse[0])
        return orelse
    body = getattr(statement, "body", None)
    return body if isinstance(body, list) else None


def _names_imported_from(
    groups: list[list[ast.stmt]], acts_under: Callable[[str], bool]
) -> set[str]:
    """Names module-level imports bind to what the migration may act under."""
    names: set[str] = set()
    for group in groups:
        for statement in group:
            for node in _module_level_nodes(statement):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        if acts_under(alias.name.split(".")[0] if not alias.asname else alias.name):
                            names.add(alias.asname or alias.name.split(".")[0])
                elif isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        if node.level == 0 and acts_under(f"{node.module}.{alias.name}"):
                            names.add(alias.asname or alias.name)
    return names


def _words(names: Iterable[str], also: re.Pattern[str] | None = None) -> re.Pattern[str]:
    """A pattern that finds any of ``names`` as a whole word (or ``also``)."""
    alternatives = [also.pattern] if also is not None else []
    names = sorted(names)
    if names:
        alternatives.append(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    return re.compile("|".join(alternatives) or r"(?!)")


def _imports_at_module_level(statement: ast.stmt) -> bool:
    return any(isinstance(n, _IMPORTS) for n in _module_level_nodes(statement))


def _module_level_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement that run in module scope: not those inside a def,
    class or lambda (whose decorators, defaults and bases hold no statements)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _bound_names(statement: ast.stmt) -> Iterator[str]:
    """Every name the statement binds, in any scope (conservative for module level)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield alias.asname or alias.name.split(".")[0]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            yield from node.names
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest
