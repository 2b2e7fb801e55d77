"""``migrate --verify``: every name the migrated files reach in TensorFlow, the
runtime, tf_keras, npu_bridge or tensorflow_estimator is looked up in what is
installed; each one that does not exist, and that migrate did not already report,
is an error (MIG105).

The lookup runs once per run, for all files' distinct names, in a process of its own
(``migrator.command.resolve_names``): the migrator itself never imports TensorFlow. Answers
are cached per name in the user's cache directory, keyed by this interpreter and
the versions of TensorFlow, tf-keras and the runtime's sources, so a run whose names
are all known starts no process at all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from estimator_revival.migrator.command.files import FileResult
from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.source.text import write_atomically

NO_TENSORFLOW = 3  # resolve_names' exit code when TensorFlow cannot be imported


class LookupFailed(Exception):
    """The names could not be looked up (the reason is the message)."""


@dataclasses.dataclass(frozen=True)
class Verification:
    missing: frozenset[str]
    versions: dict


def tensorflow_installed() -> bool:
    """Whether this interpreter has TensorFlow (asked without importing it)."""
    return importlib.util.find_spec("tensorflow") is not None


def look_up(names: set[str]) -> Verification:
    """Which names do not exist here (cached); raises LookupFailed."""
    cache = _Cache.here()
    known = cache.load()
    unknown = names - set(known)
    if unknown:
        verification = _look_up_now(unknown)
        known.update({name: name not in verification.missing for name in unknown})
        cache.save(known)
    return Verification(frozenset(n for n in names if not known[n]), cache.versions)


def _look_up_now(names: set[str]) -> Verification:
    done = subprocess.run(
        [sys.executable, "-m", f"{symbols.PACKAGE}.migrator.command.resolve_names"],
        input=json.dumps(sorted(names)),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise LookupFailed(last[0] if done.returncode != NO_TENSORFLOW else "no TensorFlow")
    answer = json.loads(done.stdout)
    return Verification(frozenset(answer["missing"]), answer["versions"])


def verify(results: list[FileResult]) -> Verification:
    """Adds a MIG105 diagnostic to each result for each of its missing names;
    raises LookupFailed if they cannot be looked up."""
    names = {reference.name for result in results for reference in result.references}
    if not names:
        return Verification(frozenset(), {})
    verification = look_up(names)
    version = verification.versions.get("tensorflow", "the installed TensorFlow")
    for result in results:
        input_line = None
        for reference in result.references:
            if reference.name not in verification.missing:
                continue
            if any(_within(reference.name, known) for known in result.reported_names):
                continue
            input_line = input_line or _input_lines(result)
            short = (
                "tf" + reference.name[len("tensorflow") :]
                if reference.name.startswith("tensorflow.")
                else reference.name
            )
            result.diagnostics.append(
                Diagnostic(
                    str(result.path),
                    input_line(reference.line),
                    reference.column,
                    "MIG105",
                    f"{short} does not exist in TensorFlow {version} (with the runtime "
                    "installed here)",
                    "find its TensorFlow 2 home, or report it to the migrator's authors",
                )
            )
    return verification


def _input_lines(result: FileResult) -> Callable[[int], int]:
    """Maps a line of the migrated file (where its names were found) to the line
    of the input file it came from, which diagnostics name: the same line where
    the two texts agree, else the line at the same place in the input's lines
    that the migration replaced (a line it added: the input's next line)."""
    before, after = (text.splitlines() for text in result.texts())
    blocks = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()

    def input_line(line: int) -> int:
        index = line - 1
        for _, first, end, new_first, new_end in blocks:
            if new_first <= index < new_end:
                return first + min(index - new_first, max(end - first - 1, 0)) + 1
        return line

    return input_line


@dataclasses.dataclass(frozen=True)
class _Cache:
    path: Path
    versions: dict

    @classmethod
    def here(cls) -> _Cache:
        versions = {}
        for package in ("tensorflow", "tf-keras"):
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                versions[package] = importlib.metadata.version(package)
        key = hashlib.sha256(
            json.dumps([sys.executable, versions, _runtime_sources_hash()]).encode()
        ).hexdigest()[:24]
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return cls(base / "estimator-revival" / f"names-{key}.json", versions)

    def load(self) -> dict[str, bool]:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}

    def save(self, known: dict[str, bool]) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, json.dumps(known, sort_keys=True).encode())


def _runtime_sources_hash() -> str:
    """The runtime's sources as installed (its names change with them)."""
    spec = importlib.util.find_spec(symbols.PACKAGE)
    digest = hashlib.sha256()
    for location in (spec.submodule_search_locations or []) if spec else []:
        for path in sorted(Path(location).rglob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _within(name: str, known: str) -> bool:
    return name == known or name.startswith(known + ".")
