"""Finding the files to migrate and migrating one file (safe to run in a worker)."""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable
from pathlib import Path

import libcst as cst

from migrator.diagnostics import Diagnostic
from migrator.migrate import TRIGGER_BYTES, migrate_code
from migrator.notebook import migrate_notebook
from migrator.source import decode

SUFFIXES = (".py", ".ipynb")
SKIPPED_DIRECTORIES = {
    ".git",
    ".hg",
    ".venv",
    "venv",
    "__pycache__",
    "site-packages",
    "node_modules",
}


@dataclasses.dataclass
class FileResult:
    path: Path
    original: bytes = b""
    migrated: bytes | None = None  # None: nothing to change
    diagnostics: list[Diagnostic] = dataclasses.field(default_factory=list)
    error: str | None = None  # set when the file could not be read or parsed

    @property
    def changed(self) -> bool:
        return self.migrated is not None

    def texts(self) -> tuple[str, str]:
        """The file's text before and after (decoded again: workers send bytes only)."""
        return decode(self.original).text, decode(self.migrated or self.original).text


def discover(paths: Iterable[Path], *, exclude: Iterable[str] = ()) -> list[Path]:
    """Python files and notebooks under ``paths``, in a stable order."""
    patterns = list(exclude)
    found = []
    for root in paths:
        if root.is_file():
            found.append(root)
            continue
        for path in sorted(root.rglob("*")):
            parts = set(path.relative_to(root).parts[:-1])
            if parts & SKIPPED_DIRECTORIES or any(p.startswith(".") for p in parts):
                continue
            relative = path.relative_to(root).as_posix()
            if any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
                continue
            if path.suffix in SUFFIXES and path.is_file():
                found.append(path)
    return found


def read_candidate(path: Path) -> tuple[FileResult | None, bytes]:
    """Reads a file; returns a finished result when it cannot need migrating
    (unreadable, or it mentions none of the trigger words), else its bytes."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(path, error=f"cannot read: {error}"), b""
    if not TRIGGER_BYTES.search(data):
        return FileResult(path, original=data), data
    return None, data


def migrate_file(path: Path, enabled: frozenset[str], data: bytes) -> FileResult:
    """Migrates one file's contents (``data``, as read by :func:`read_candidate`);
    never writes."""
    result = FileResult(path, original=data)
    try:
        source = decode(data)
    except (UnicodeDecodeError, LookupError) as error:
        result.error = f"cannot decode: {error}"
        return result
    try:
        if path.suffix == ".ipynb":
            new_text, diagnostics = migrate_notebook(source.text, path=str(path), enabled=enabled)
        else:
            migration = migrate_code(source.text, path=str(path), enabled=enabled)
            new_text, diagnostics = migration.migrated, list(migration.diagnostics)
    except cst.ParserSyntaxError as error:
        line, column, message = _syntax_error_location(source.text, error)
        result.error = "cannot parse"
        result.diagnostics.append(
            Diagnostic(
                str(path),
                line,
                column,
                "MIG001",
                f"file could not be parsed ({message}); left untouched",
            )
        )
        return result
    except ValueError as error:  # e.g. a notebook that is not JSON
        result.error = f"cannot parse: {error}"
        result.diagnostics.append(
            Diagnostic(
                str(path), 1, 1, "MIG001", f"file could not be parsed ({error}); left untouched"
            )
        )
        return result
    result.diagnostics.extend(diagnostics)
    if new_text != source.text:
        result.migrated = source.encode(new_text)
    return result


def _syntax_error_location(text: str, error: cst.ParserSyntaxError) -> tuple[int, int, str]:
    """Python's own location and message when it has one (it points where users
    expect), else libcst's."""
    try:
        compile(text, "<migrate>", "exec", dont_inherit=True)
    except SyntaxError as syntax:
        return syntax.lineno or 1, syntax.offset or 1, syntax.msg
    return error.raw_line, error.raw_column + 1, error.message
