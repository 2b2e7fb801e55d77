"""Finding the files to migrate, and migrating one file (safe to run in a worker):
whatever goes wrong with one file becomes a diagnostic on that file."""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from estimator_revival.migrator.command.notebook import NotebookError, migrate_notebook
from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.migrate import TRIGGER_BYTES, migrate_code
from estimator_revival.migrator.names.program import program_of
from estimator_revival.migrator.names.references import Reference, references
from estimator_revival.migrator.source.parsing import UnparsableSource
from estimator_revival.migrator.source.text import decode

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
    error: str | None = None  # why the file was left untouched, if it was
    # for --verify: the names the migrated file reaches, and those already reported
    references: list[Reference] = dataclasses.field(default_factory=list)
    reported_names: frozenset[str] = frozenset()

    @property
    def changed(self) -> bool:
        return self.migrated is not None

    @property
    def internal_error(self) -> bool:
        """Whether migrating it raised (MIG000): worth another try, not worth keeping."""
        return any(diagnostic.code == "MIG000" for diagnostic in self.diagnostics)

    def texts(self) -> tuple[str, str]:
        """The file's text before and after (decoded again: workers send bytes only)."""
        return decode(self.original).text, decode(self.migrated or self.original).text

    def fail(self, code: str, message: str, line: int = 1, column: int = 1) -> FileResult:
        """Marks the file as left untouched, with a diagnostic saying why."""
        self.migrated = None
        self.error = message
        self.diagnostics.append(Diagnostic(str(self.path), line, column, code, message))
        return self


@dataclasses.dataclass(frozen=True)
class Exclusion:
    """``[tool.migrate] exclude`` patterns, relative to the directory of the
    pyproject.toml that set them; a pattern matches a path or any of its parents."""

    patterns: tuple[str, ...] = ()
    base: Path | None = None

    def excludes(self, path: Path) -> bool:
        if not self.patterns or self.base is None:
            return False
        real = Path(os.path.realpath(path.parent)) / path.name  # the link itself, if one
        try:
            relative = PurePosixPath(real.relative_to(self.base).as_posix())
        except ValueError:
            return False  # outside the configured project
        candidates = [relative, *list(relative.parents)[:-1]]
        return any(
            fnmatch.fnmatchcase(str(candidate), pattern)
            for candidate in candidates
            for pattern in self.patterns
        )


@dataclasses.dataclass
class Discovery:
    """The files to migrate, each with the PATH argument it was found under, and
    notes on what was not followed or could not be read."""

    files: list[tuple[Path, Path]] = dataclasses.field(default_factory=list)  # (root, file)
    problems: list[FileResult] = dataclasses.field(default_factory=list)


def discover(
    roots: Iterable[Path], *, exclusion: Exclusion = Exclusion(), force_exclude: bool = True
) -> Discovery:
    """Python files and notebooks under ``roots``, in a stable order, each once.

    Symbolic links to files are not followed (a note says so; the file they point to
    is migrated where it lives); symbolic links to directories are not entered.
    Excluded paths are skipped, also when passed explicitly unless ``force_exclude``
    is off.
    """
    found = Discovery()
    seen: set[str] = set()

    def add(root: Path, path: Path) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            found.files.append((root, path))

    for root in roots:
        if force_exclude and exclusion.excludes(root):
            continue
        if root.is_symlink() and not root.is_dir():
            found.problems.append(_symlink_note(root))
        elif root.is_file():
            add(root, root)
        else:
            for path in _walk(root, exclusion, found.problems):
                add(root, path)
    return found


def _walk(root: Path, exclusion: Exclusion, problems: list[FileResult]) -> list[Path]:
    def unreadable(error: OSError) -> None:
        problems.append(
            FileResult(Path(error.filename or root)).fail(
                "MIG002", f"cannot read directory: {error.strerror or error}; not migrated"
            )
        )

    found = []
    for directory, subdirectories, names in os.walk(root, onerror=unreadable):
        here = Path(directory)
        kept = []
        for name in sorted(subdirectories):
            path = here / name
            if name in SKIPPED_DIRECTORIES or name.startswith(".") or exclusion.excludes(path):
                continue
            if path.is_symlink():
                problems.append(_symlink_note(path))
                continue
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(names):
            path = here / name
            if not name.endswith(SUFFIXES) or exclusion.excludes(path):
                continue
            if path.is_symlink():
                problems.append(_symlink_note(path))
            elif path.is_file():
                found.append(path)
    return sorted(found)


def _symlink_note(path: Path) -> FileResult:
    result = FileResult(path)
    result.diagnostics.append(
        Diagnostic(
            str(path),
            1,
            1,
            "MIG003",
            f"symbolic link to {os.readlink(path)}: not followed",
            "migrate the file or directory it points to where it lives",
        )
    )
    return result


def read_candidate(path: Path) -> tuple[FileResult | None, bytes]:
    """Reads a file; returns a finished result when it cannot need migrating
    (unreadable, or it mentions none of the trigger words), else its bytes."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(path).fail("MIG002", f"cannot read: {error.strerror or error}"), b""
    if not TRIGGER_BYTES.search(data):
        return FileResult(path, original=data), data
    return None, data


def migrate_file(
    path: Path, enabled: frozenset[str], data: bytes, *, verify: bool = False
) -> FileResult:
    """Migrates one file's contents (``data``, as read by :func:`read_candidate`);
    never writes, never raises: a failure is a diagnostic on the file. With
    ``verify``, also lists the names the migrated file reaches (``migrator.command.verify``)."""
    result = FileResult(path, original=data)
    try:
        source = decode(data)
    except (UnicodeDecodeError, LookupError) as error:
        return result.fail("MIG001", f"cannot decode: {error}; left untouched")
    try:
        if path.suffix == ".ipynb":
            new_text, diagnostics = migrate_notebook(source.text, path=str(path), enabled=enabled)
        else:
            program = program_of(path)
            migration = migrate_code(source.text, path=str(path), enabled=enabled, program=program)
            new_text, diagnostics = migration.migrated, list(migration.diagnostics)
            result.reported_names = migration.reported_names
            if verify:
                result.references = references(new_text, program.first_party)
    except UnparsableSource as error:
        message = f"file could not be parsed ({error.message}); left untouched"
        return result.fail("MIG001", message, error.line, error.column)
    except NotebookError as error:
        return result.fail("MIG001", f"not a notebook migrate can read ({error}); left untouched")
    except Exception as error:  # one file's failure must not end the run
        return result.fail(
            "MIG000", f"internal error: {type(error).__name__}: {error}; file left unchanged"
        )
    result.diagnostics.extend(diagnostics)
    if new_text != source.text:
        result.migrated = source.encode(new_text)
    return result
