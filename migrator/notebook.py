"""Jupyter notebooks: code cells are migrated; outputs, metadata and IPython
magics are left exactly as they were.

A notebook is one namespace: a cell uses the imports of the cells above it. The
code cells are therefore migrated together, as one module with a boundary line
between cells, and split apart again afterwards; an import the migration adds
lands in the cell that the module's imports are in.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re

from migrator.migrate import migrate_code

# Lines IPython handles itself: %magic, %%cell magic, !shell, and `?` help.
_MAGIC = re.compile(r"^\s*(%|!|\?)|\?\s*$")
_PLACEHOLDER = "# migrate-magic-{}"
# A statement, not a comment: comments travel with the statement they precede,
# and a statement the migration removes would take them along.
_BOUNDARY = "__migrate_cell_boundary__\n"


def migrate_notebook(text: str, *, path: str, enabled) -> tuple[str, list]:
    """Returns the new notebook JSON text (unchanged text when nothing changed)."""
    notebook = json.loads(text)
    numbered = [
        (index, cell)
        for index, cell in enumerate(notebook.get("cells", []))
        if cell.get("cell_type") == "code"
    ]
    cells = [_Cell.of("".join(cell.get("source", []))) for _, cell in numbered]
    module, first_lines = _join(cells)
    migration = migrate_code(module, path=path, enabled=enabled)
    diagnostics = [
        _in_cell(diagnostic, path, first_lines, [index for index, _ in numbered])
        for diagnostic in migration.diagnostics
    ]
    if not migration.changed:
        return text, diagnostics
    parts = migration.migrated.split(_BOUNDARY)
    if len(parts) != len(cells):
        raise ValueError(f"{path}: the cell boundaries did not survive the migration")
    for (_, cell), original, part in zip(numbered, cells, parts, strict=True):
        source = original.restore(part)
        if source != original.source:
            cell["source"] = source.splitlines(keepends=True)
    return json.dumps(notebook, indent=_indent_of(text), ensure_ascii=False) + "\n", diagnostics


@dataclasses.dataclass(frozen=True)
class _Cell:
    """A code cell's source, and the same with magics masked as comments."""

    source: str
    masked: str  # always ends with a newline
    magics: dict  # {placeholder line: magic line}

    @classmethod
    def of(cls, source: str) -> _Cell:
        magics = {}
        masked = []
        for number, line in enumerate(source.splitlines(keepends=True)):
            if _MAGIC.search(line.rstrip("\n")):
                placeholder = _PLACEHOLDER.format(number)
                magics[placeholder] = line
                line = placeholder + ("\n" if line.endswith("\n") else "")
            masked.append(line)
        text = "".join(masked)
        return cls(source, text if text.endswith("\n") or not text else text + "\n", magics)

    def restore(self, migrated: str) -> str:
        """The migrated cell with its magics back and its final newline as before."""
        if not self.source.endswith("\n") and migrated.endswith("\n"):
            migrated = migrated[:-1]
        lines = migrated.splitlines(keepends=True)
        for number, line in enumerate(lines):
            magic = self.magics.get(line.rstrip("\n"))
            if magic is not None:
                lines[number] = magic if line.endswith("\n") else magic.rstrip("\n")
        return "".join(lines)


def _join(cells: list[_Cell]) -> tuple[str, list[int]]:
    """The module of all cells, and the module line each cell starts on."""
    first_lines = []
    line = 1
    for cell in cells:
        first_lines.append(line)
        line += cell.masked.count("\n") + 1
    return _BOUNDARY.join(cell.masked for cell in cells), first_lines


def _in_cell(diagnostic, path: str, first_lines: list[int], cell_indexes: list[int]):
    """A diagnostic at a module line, placed at its cell and the line in it."""
    position = bisect.bisect_right(first_lines, diagnostic.line) - 1
    return dataclasses.replace(
        diagnostic,
        path=f"{path}[cell {cell_indexes[position]}]",
        line=diagnostic.line - first_lines[position] + 1,
    )


def _indent_of(text: str) -> int:
    match = re.search(r"\n( +)\"", text)
    return len(match.group(1)) if match else 1
