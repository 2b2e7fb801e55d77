"""Migrating one piece of source: the API the CLI, notebooks and tests share."""

from __future__ import annotations

import dataclasses
import re

from migrator import chunked
from migrator.deep_stack import call_with_deep_stack
from migrator.diagnostics import CODES, RULES, Diagnostic
from migrator.dialect import tensorflow_dialect
from migrator.parsing import parse_with_libcst, parse_with_python
from migrator.positions import Locator, physical_lines
from migrator.transform import Part, migrate_module

ALL_CODES = frozenset(CODES) | frozenset(RULES)

# Files that mention none of these cannot hold anything to migrate or check; they
# are skipped before parsing (most files of a large repository).
LEGACY_WORDS = r"estimator|tensorflow|npu_bridge|export_savedmodel"
TRIGGER_WORDS = LEGACY_WORDS + r"|\b(?:from|import)\s+runtime\b"
TRIGGER = re.compile(TRIGGER_WORDS)
TRIGGER_BYTES = re.compile(TRIGGER_WORDS.encode())
# Modules whose names the migration resolves (legacy ones, and the runtime's).
KNOWN_MODULES = re.compile(r"estimator|tensorflow|npu_bridge|^runtime(?:\.|$)")


@dataclasses.dataclass(frozen=True)
class Migration:
    """The result for one source text."""

    path: str
    original: str
    migrated: str
    diagnostics: tuple[Diagnostic, ...]
    reported_names: frozenset[str] = frozenset()  # what the diagnostics are about

    @property
    def changed(self) -> bool:
        return self.migrated != self.original


def migrate_code(
    code: str,
    *,
    path: str = "<string>",
    enabled=ALL_CODES,
    imports_before: str | None = None,
) -> Migration:
    """Migrates Python source text; raises ``migrator.parsing.UnparsableSource`` if
    it does not parse.

    Imports the migration adds go after the module's last import; with
    ``imports_before`` (a comment), before the first statement that ends with it.
    Runs on a thread with a deep stack, so deeply nested code migrates instead of
    exhausting the stack (``migrator.deep_stack``).
    """
    if not TRIGGER.search(code):
        return Migration(path, code, code, ())
    return call_with_deep_stack(_migrate, code, path, frozenset(enabled), imports_before)


def _migrate(
    code: str, path: str, enabled: frozenset[str], imports_before: str | None
) -> Migration:
    tree = parse_with_python(code)
    lines = physical_lines(code)
    part = whole_file_part(code, tree, imports_before)
    if imports_before is None and chunked.worth_splitting(lines, tree, KNOWN_MODULES):
        migrated, diagnostics, reported = chunked.migrate_in_parts(
            code, tree, path=path, enabled=enabled, words=TRIGGER_WORDS, part=part
        )
        return Migration(path, code, migrated, _in_order(diagnostics), frozenset(reported))
    module = parse_with_libcst(code)
    new, transformer = migrate_module(
        module, locator=Locator(code, tree), path=path, enabled=enabled, part=part
    )
    return Migration(
        path,
        code,
        new.code if transformer.rewrote else code,
        _in_order(transformer.diagnostics),
        frozenset(transformer.reported_names),
    )


def whole_file_part(code: str, tree, imports_before: str | None = None) -> Part:
    """What every pass over the file shares, read from the whole file."""
    return Part(imports_before=imports_before, dialect=tensorflow_dialect(code, tree))


def _in_order(diagnostics) -> tuple[Diagnostic, ...]:
    """By position in the file (a pass reports the module's imports last)."""
    return tuple(sorted(diagnostics, key=lambda d: (d.line, d.column)))
