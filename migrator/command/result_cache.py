"""Results of earlier runs, by content, so a re-run on unchanged files is near-free.

As ruff and black keep theirs: a file's result is stored under a hash of what
decides it (the migrator's own code and data, the enabled rules, whether names are
verified, the file's path and its bytes), so an entry can only be found again for
the same inputs. Entries live in ``$MIGRATE_CACHE_DIR`` (default
``$XDG_CACHE_HOME/migrate`` or ``~/.cache/migrate``), one folder per migrator
build; a new build removes the older folders. Results that report an internal
error are not stored. An unreadable or damaged entry counts as missing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from estimator_revival import migrator
from estimator_revival.migrator.command.files import FileResult
from estimator_revival.migrator.names.program import program_of

_PACKAGE = Path(migrator.__file__).resolve().parent


def default_directory() -> Path:
    if "MIGRATE_CACHE_DIR" in os.environ:
        return Path(os.environ["MIGRATE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "migrate"


def _build_fingerprint() -> str:
    """A hash of the migrator's source and data files: any change starts afresh."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


class ResultCache:
    def __init__(self, directory: Path, *, enabled: frozenset[str], verify: bool) -> None:
        build = _build_fingerprint()
        self._directory = directory / build
        self._options = f"{sorted(enabled)}|verify={verify}".encode()
        self._remove_other_builds(directory, build)

    @property
    def facts_directory(self) -> Path:
        """Where each file's facts for its program are kept (names.file_facts)."""
        return self._directory / "facts"

    @staticmethod
    def _remove_other_builds(directory: Path, build: str) -> None:
        try:
            entries = list(directory.iterdir())
        except OSError:  # no cache yet, or one migrate cannot read: nothing to prune
            return
        for entry in entries:
            if entry.is_dir() and entry.name != build:
                shutil.rmtree(entry, ignore_errors=True)

    def _entry(self, path: Path, data: bytes) -> Path:
        digest = hashlib.sha256(self._options)
        digest.update(os.fsencode(path) + b"\0")
        digest.update(program_of(path).fingerprint().encode() + b"\0")
        digest.update(data)
        key = digest.hexdigest()
        return self._directory / key[:2] / key

    def get(self, path: Path, data: bytes) -> FileResult | None:
        try:
            with open(self._entry(path, data), "rb") as f:
                result = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            return None
        if not isinstance(result, FileResult):
            return None
        return dataclasses.replace(result, path=path, original=data)

    def put_all(self, candidates: Iterable[tuple[Path, bytes]], results: Iterable[FileResult]):
        """Stores each result (but not one with an internal error) under its file's
        path and bytes; a cache that cannot be written is skipped silently."""
        for (path, data), result in zip(candidates, results, strict=True):
            if result.internal_error:
                continue
            try:
                self._write(self._entry(path, data), dataclasses.replace(result, original=b""))
            except OSError:
                return

    @staticmethod
    def _write(entry: Path, result: FileResult) -> None:
        entry.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-")
        try:
            with os.fdopen(descriptor, "wb") as f:
                pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, entry)
        except BaseException:
            os.unlink(temporary)
            raise
