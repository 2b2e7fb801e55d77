"""Jupyter notebooks: code cells are migrated; outputs, metadata and IPython
magics are left exactly as they were."""

from __future__ import annotations

import json
import re

from migrator.migrate import Migration, migrate_code

# Lines IPython handles itself: %magic, %%cell magic, !shell, and `?` help.
_MAGIC = re.compile(r"^\s*(%|!|\?)|\?\s*$")
_PLACEHOLDER = "# migrate-magic-{}"


def migrate_notebook(text: str, *, path: str, enabled) -> tuple[str, list]:
    """Returns the new notebook JSON text (unchanged text when nothing changed)."""
    notebook = json.loads(text)
    diagnostics = []
    changed = False
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        migration = _migrate_cell(source, path=f"{path}[cell {index}]", enabled=enabled)
        diagnostics.extend(migration.diagnostics)
        if migration.changed:
            cell["source"] = migration.migrated.splitlines(keepends=True)
            changed = True
    if not changed:
        return text, diagnostics
    indent = _indent_of(text)
    return json.dumps(notebook, indent=indent, ensure_ascii=False) + "\n", diagnostics


def _migrate_cell(source: str, *, path: str, enabled) -> Migration:
    lines = source.splitlines(keepends=True)
    magics = {}
    masked = []
    for number, line in enumerate(lines):
        if _MAGIC.search(line.rstrip("\n")):
            magics[number] = line
            ending = "\n" if line.endswith("\n") else ""
            masked.append(_PLACEHOLDER.format(number) + ending)
        else:
            masked.append(line)
    migration = migrate_code("".join(masked), path=path, enabled=enabled)
    restored = migration.migrated
    for number, line in magics.items():
        placeholder = _PLACEHOLDER.format(number)
        restored = restored.replace(placeholder + ("\n" if line.endswith("\n") else ""), line, 1)
    return Migration(path, source, restored, migration.diagnostics)


def _indent_of(text: str) -> int:
    match = re.search(r"\n( +)\"", text)
    return len(match.group(1)) if match else 1
