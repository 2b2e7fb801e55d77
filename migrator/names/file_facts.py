"""What one file tells of its program, kept by the file's content.

Migrating any file of a program reads every file of it (``names.program``: which
TensorFlow it was written for, its entry points), and that takes parsing them. With
the result cache on, each file's facts are kept in the cache's folder under a hash
of its bytes, so a re-run on unchanged files, as pre-commit makes, reads its
programs without parsing a file. Each fact is computed when first asked for, once
per content, and the facts a reading computed are kept when it ends (``with``).
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from estimator_revival.migrator.source.text import write_atomically

_directory: Path | None = None


def keep_in(directory: Path | None) -> None:
    """Keeps the facts in ``directory`` from now on (None: computed every time)."""
    global _directory
    _directory = directory


class FileFacts:
    """The facts of one file's bytes, read in a ``with`` block, at whose end the
    facts it computed are written."""

    def __init__(self, data: bytes) -> None:
        key = hashlib.sha256(data).hexdigest()
        self._data = data
        self._path = None if _directory is None else _directory / key[:2] / f"{key}.json"
        self._known = self._load()
        self._computed = False
        self._parsed: tuple[str, ast.Module] | None = None

    def __enter__(self) -> FileFacts:
        return self

    def __exit__(self, *exception) -> None:
        if self._computed:
            self._save()

    def parses(self) -> bool:
        """Whether the file is UTF-8 Python that ``ast`` parses."""
        return self._fact("parses", lambda: self._parse() is not None)

    def get(self, name: str, compute: Callable[[str, ast.Module], object]):
        """The fact ``name``: ``compute(code, tree)`` of the file (which parses)."""
        return self._fact(name, lambda: compute(*self._parse()))

    def _fact(self, name: str, compute: Callable[[], object]):
        if name not in self._known:
            self._known[name] = compute()
            self._computed = True
        return self._known[name]

    def _parse(self) -> tuple[str, ast.Module] | None:
        if self._parsed is None:
            try:
                code = self._data.decode("utf-8")
                self._parsed = (code, ast.parse(code))
            except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        return self._parsed

    def _load(self) -> dict:
        if self._path is None:
            return {}
        try:
            known = json.loads(self._path.read_bytes())
        except (OSError, ValueError):  # none yet, or damaged: computed again
            return {}
        return known if isinstance(known, dict) else {}

    def _save(self) -> None:
        if self._path is None:
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self._path, json.dumps(self._known).encode())
        except OSError:  # a cache that cannot be written is skipped, as results are
            pass
