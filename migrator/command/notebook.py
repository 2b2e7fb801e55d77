"""Jupyter notebooks: the Python in code cells is migrated; outputs, metadata, IPython
syntax (``migrator.source.ipython_syntax``) and cells of other languages (``%%bash``,
``%%writefile``...) are left exactly as they were.

A notebook is one namespace: a cell uses the imports of the cells above it. The
Python cells are therefore migrated together, as one module with a boundary line
between cells, and split apart again afterwards. Imports the migration adds go to
the first Python cell, which runs before the others. A cell that does not parse is
reported (cell and line) and left as it was; the other cells are still migrated.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re

from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.migrate import migrate_code
from estimator_revival.migrator.source.ipython_syntax import (
    PYTHON_CELL_MAGICS,
    cell_magic,
    magic_lines,
)
from estimator_revival.migrator.source.parsing import UnparsableSource
from estimator_revival.migrator.source.positions import physical_lines

# A statement, not a comment: comments travel with the statement they precede, and
# a statement the migration removes would take them along.
BOUNDARY_MARKER = "# migrate-cell-boundary"
_BOUNDARY = f"pass  {BOUNDARY_MARKER}\n"


class NotebookError(ValueError):
    """The file is not a notebook migrate can read (what is wrong, and where)."""


def migrate_notebook(text: str, *, path: str, enabled) -> tuple[str, list[Diagnostic]]:
    """Returns the new notebook JSON text (unchanged text when nothing changed)."""
    notebook = _load(text)
    marker = _unused_marker(text)
    cells = [
        _Cell.of(index, cell, marker)
        for index, cell in enumerate(notebook["cells"])
        if cell.get("cell_type") == "code" and _Cell.is_python(cell)
    ]
    diagnostics: list[Diagnostic] = []
    while cells:
        joined = _Joined.of(cells)
        try:
            migration = migrate_code(
                joined.module, path=path, enabled=enabled, imports_before=BOUNDARY_MARKER
            )
        except UnparsableSource as error:
            position, line = joined.locate(error.line)
            bad = cells.pop(position)
            message = f"cell could not be parsed ({error.message}); left untouched"
            diagnostics.append(Diagnostic(bad.where(path), line, error.column, "MIG001", message))
            continue
        diagnostics += [joined.in_cell(d, path) for d in migration.diagnostics]
        if not migration.changed:
            break
        parts = migration.migrated.split(_BOUNDARY)
        if len(parts) != len(cells):
            raise ValueError(f"{path}: the cell boundaries did not survive the migration")
        for cell, part in zip(cells, parts, strict=True):
            cell.write_back(notebook["cells"][cell.index], part)
        return json.dumps(notebook, indent=_indent_of(text), ensure_ascii=False) + "\n", diagnostics
    return text, diagnostics


def _unused_marker(text: str) -> str:
    """A comment prefix for masked lines that the notebook does not contain."""
    number = 0
    while f"migrate-magic{number}-" in text:
        number += 1
    return f"# migrate-magic{number}-"


def _load(text: str) -> dict:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not JSON: {error}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", []), list):
        raise NotebookError("expected a JSON object with a 'cells' list")
    notebook.setdefault("cells", [])
    for index, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict):
            raise NotebookError(f"cells[{index}] is not an object")
        source = cell.get("source", [])
        if not isinstance(source, str) and not (
            isinstance(source, list) and all(isinstance(line, str) for line in source)
        ):
            raise NotebookError(
                f"cells[{index}].source must be a string or a list of strings, "
                f"not {type(source).__name__}"
            )
    language = notebook.get("metadata", {}).get("kernelspec", {}).get("language", "python")
    if str(language).lower() != "python":
        notebook["cells"] = []  # another kernel's code: nothing of ours to migrate
    return notebook


@dataclasses.dataclass(frozen=True)
class _Mask:
    """What a masked line stood for: the whole original line, or (for ``%time
    <statement>``) the prefix before the statement, which stays in the module."""

    original: str
    is_prefix: bool = False


@dataclasses.dataclass
class _Cell:
    """A Python cell: its source, and its Python part with IPython syntax masked."""

    index: int  # in the notebook's cells
    source: str
    head: str  # the ``%%time`` line of a Python cell magic, kept aside
    masked: str  # the Python part, always ending with a newline
    masks: dict[str, _Mask]  # marker -> what it masks

    @staticmethod
    def is_python(cell: dict) -> bool:
        magic = cell_magic(physical_lines(_source_text(cell)))
        return magic is None or magic in PYTHON_CELL_MAGICS

    @classmethod
    def of(cls, index: int, cell: dict, marker: str) -> _Cell:
        source = _source_text(cell)
        lines = physical_lines(source)
        head = ""
        if cell_magic(lines) is not None:  # %%time and the like: the body is Python
            start = next(n for n, line in enumerate(lines) if line.strip()) + 1
            head, lines = "".join(lines[:start]), lines[start:]
        masks: dict[str, _Mask] = {}
        masked = list(lines)
        for number, magic in enumerate(magic_lines(lines)):
            for offset, line in enumerate(lines[magic.first : magic.last + 1]):
                tag = f"{marker}{number}.{offset}"
                ending = line[len(line.rstrip("\r\n")) :] or "\n"
                indent = re.match(r"[ \t]*", line).group()
                if magic.python is not None:
                    masks[tag] = _Mask(magic.prefix, is_prefix=True)
                    statement = magic.python
                else:
                    masks[tag] = _Mask(line)
                    statement = "pass" if offset == 0 else ""  # then a comment line
                masked[magic.first + offset] = f"{indent}{statement}  {tag}{ending}"
        text = "".join(masked)
        if text and not text.endswith(("\n", "\r")):
            text += "\n"
        return cls(index, source, head, text, masks)

    def restore(self, migrated: str) -> str:
        """The migrated cell with its IPython syntax back and its final newline as before."""
        lines = physical_lines(migrated)
        for number, line in enumerate(lines):
            body = line.rstrip("\r\n")
            tag = body.rsplit("  ", 1)[-1]
            mask = self.masks.get(tag)
            if mask is None:
                continue
            if mask.is_prefix:  # the line was: indent, statement, two spaces, tag
                indent = len(mask.original) - len(mask.original.lstrip(" \t"))
                statement = body[indent : -len(tag) - 2]
                lines[number] = mask.original + statement + line[len(body) :]
            else:
                lines[number] = mask.original
        text = self.head + "".join(lines)
        if not self.source.endswith(("\n", "\r")) and text.endswith("\n"):
            text = text[:-1]
        return text

    def write_back(self, cell: dict, migrated: str) -> None:
        new = self.restore(migrated)
        if new != self.source:
            cell["source"] = new if isinstance(cell.get("source"), str) else physical_lines(new)

    def where(self, path: str) -> str:
        return f"{path}[cell {self.index}]"


def _source_text(cell: dict) -> str:
    source = cell.get("source", [])
    return source if isinstance(source, str) else "".join(source)


@dataclasses.dataclass(frozen=True)
class _Joined:
    """The Python cells as one module, a boundary line between cells."""

    module: str
    cells: list[_Cell]
    starts: list[int]  # the module line each cell's Python part starts on

    @classmethod
    def of(cls, cells: list[_Cell]) -> _Joined:
        starts = []
        line = 1
        for cell in cells:
            starts.append(line)
            line += len(physical_lines(cell.masked)) + 1
        return cls(_BOUNDARY.join(cell.masked for cell in cells), cells, starts)

    def locate(self, line: int) -> tuple[int, int]:
        """``(position in cells, line in that cell)`` of a module line."""
        position = bisect.bisect_right(self.starts, line) - 1
        head_lines = len(physical_lines(self.cells[position].head))
        return position, line - self.starts[position] + 1 + head_lines

    def in_cell(self, diagnostic: Diagnostic, path: str) -> Diagnostic:
        position, line = self.locate(diagnostic.line)
        return dataclasses.replace(diagnostic, path=self.cells[position].where(path), line=line)


def _indent_of(text: str) -> int:
    match = re.search(r"\n( +)\"", text)
    return len(match.group(1)) if match else 1
