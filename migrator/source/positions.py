"""Source positions for diagnostics, from Python's own (fast, C) ``ast`` parser.

libcst's PositionProvider re-generates the whole module to compute positions
(about a quarter of the migrator's time per file). Diagnostics only ever point at
outermost attributes (``tf.estimator.X``, ``x.shape[0].value``) and import
statements, so the k-th such node libcst visits is the k-th in source order, which
``ast`` locates directly.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict

# A physical line as Python's tokenizer counts them (``str.splitlines`` also
# splits at form feeds and Unicode separators, which are not line ends in Python).
_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def physical_lines(text: str) -> list[str]:
    """``text`` split into lines the way ``ast`` numbers them, line ends kept."""
    return _PHYSICAL_LINE.findall(text)


def dotted_name(node) -> str | None:
    """``a.b.c`` for a chain of names (libcst or ast node), else None."""
    parts = []
    while True:
        if type(node).__name__ == "Attribute":
            parts.append(node.attr if isinstance(node.attr, str) else node.attr.value)
            node = node.value
        elif type(node).__name__ == "Name":
            parts.append(node.id if hasattr(node, "id") else node.value)
            return ".".join(reversed(parts))
        else:
            return None


def attribute_key(node) -> tuple:
    """How :class:`Locator` counts an outermost attribute (libcst or ast node): by
    its dotted name (``tf.estimator.X``), or by its last name when it hangs off a
    call or subscript (``x.shape[0].value``)."""
    name = dotted_name(node)
    if name:
        return ("name", name)
    return ("attribute", node.attr if isinstance(node.attr, str) else node.attr.value)


class Locator:
    """Finds ``(line, column)`` of the n-th occurrence of a dotted name or import."""

    def __init__(self, source: str, tree: ast.Module | None = None) -> None:
        self._source = source
        self._tree = tree  # ast of ``source``, when the caller parsed it already
        self._occurrences: dict[tuple, list[tuple[int, int]]] | None = None
        self._lines: list[str] | None = None

    @property
    def tree(self) -> ast.Module:
        """The ``ast`` of the source (parsed now if the caller did not)."""
        if self._tree is None:
            self._tree = ast.parse(self._source)
        return self._tree

    def locate(self, key: tuple, occurrence: int) -> tuple[int, int]:
        if self._occurrences is None:
            self._occurrences = self._index()
        found = self._occurrences.get(key, [])
        if occurrence >= len(found):
            return (1, 1)
        line, offset = found[occurrence]
        # ast's column is a UTF-8 byte offset; diagnostics count characters from 1
        if self._lines is None:
            self._lines = physical_lines(self._source)
        column = len(self._lines[line - 1].encode()[:offset].decode(errors="replace")) + 1
        return line, column

    def _index(self) -> dict[tuple, list[tuple[int, int]]]:
        """Every outermost attribute and import, by key, in source order (one
        breadth-first walk: a chain's outer attribute comes before its inner ones)."""
        inner = set()
        found = defaultdict(list)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute):
                if isinstance(node.value, ast.Attribute):
                    inner.add(id(node.value))
                if id(node) in inner:
                    continue
                key = attribute_key(node)
            elif isinstance(node, ast.ImportFrom):
                key = ("from", "." * node.level + (node.module or ""))
            elif isinstance(node, ast.Import):
                key = ("import", ",".join(a.name for a in node.names))
            else:
                continue
            found[key].append((node.lineno, node.col_offset))
        for positions in found.values():
            positions.sort()
        return found
