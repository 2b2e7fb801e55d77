"""Migrating one piece of source: the API the CLI, notebooks and tests share."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from estimator_revival.migrator.data.diagnostics import CODES, RULES, Diagnostic
from estimator_revival.migrator.names.dialect import TF1, imports_runtime, tensorflow_dialect
from estimator_revival.migrator.names.program import FILE_ALONE, Program, switches_on
from estimator_revival.migrator.rules import chunked, hook_sessions, tf1_behaviour
from estimator_revival.migrator.rules.transform import Part, migrate_module
from estimator_revival.migrator.source.deep_stack import call_with_deep_stack
from estimator_revival.migrator.source.parsing import parse_with_libcst, parse_with_python
from estimator_revival.migrator.source.positions import Locator, physical_lines

ALL_CODES = frozenset(CODES) | frozenset(RULES)

# Files that mention none of these cannot hold anything to migrate or check; they
# are skipped before parsing (most files of a large repository).
LEGACY_WORDS = r"estimator|tensorflow|npu_bridge|export_savedmodel"
# (estimator_revival, the runtime, and runtime, its former name: code migrated then)
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
    program: Program = FILE_ALONE,
) -> Migration:
    """Migrates Python source text; raises ``migrator.source.parsing.UnparsableSource`` if
    it does not parse. ``program``: what the file's program says of the TensorFlow
    it was written for (``migrator.names.program``; without it, the file alone decides).

    Imports the migration adds go after the module's last import; with
    ``imports_before`` (a comment), before the first statement that ends with it.
    Runs on a thread with a deep stack, so deeply nested code migrates instead of
    exhausting the stack (``migrator.source.deep_stack``).
    """
    if not TRIGGER.search(code):
        return Migration(path, code, code, ())
    return call_with_deep_stack(_migrate, code, path, frozenset(enabled), imports_before, program)


def _migrate(
    code: str, path: str, enabled: frozenset[str], imports_before: str | None, program: Program
) -> Migration:
    tree = parse_with_python(code)
    migration = _rewritten(code, tree, path, enabled, imports_before, program)
    if hook_sessions.CODE in enabled:
        migration = _with_hook_session_checks(migration, tree)
    return _with_tf1_behaviour(migration, tree, program, enabled)


def _rewritten(code: str, tree, path, enabled, imports_before, program) -> Migration:
    """The file migrated at once, or in parts when it is large."""
    lines = physical_lines(code)
    part = whole_file_part(code, tree, imports_before, program)
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


def whole_file_part(
    code: str, tree, imports_before: str | None = None, program: Program = FILE_ALONE
) -> Part:
    """What every pass over the file shares, read from the whole file and its
    program: a file of a program written for TF 1 was written for TF 1 (unless it
    was migrated already: it imports the runtime)."""
    dialect = tensorflow_dialect(code, tree, program.first_party)
    if program.written_for_tf1 and not imports_runtime(tree, program.first_party):
        dialect = TF1
    return Part(imports_before=imports_before, dialect=dialect, first_party=program.first_party)


def _with_hook_session_checks(migration: Migration, tree) -> Migration:
    """Session uses in hooks the runtime cannot serve (a check of the whole file,
    however it was migrated)."""
    found = hook_sessions.unservable_session_uses(tree, migration.path)
    if not found:
        return migration
    diagnostics = _in_order([*migration.diagnostics, *found])
    return dataclasses.replace(migration, diagnostics=diagnostics)


def _with_tf1_behaviour(migration: Migration, tree, program: Program, enabled) -> Migration:
    """An entry point of a program written for TF 1 switches TF 1's behaviour on. In
    a program with none, a file that builds an Estimator gets an error and the
    decision written down, so that a check of the migrated tree reports it again."""
    if not program.needs_switch:
        return migration
    path = migration.path
    if Path(path).absolute() in program.entry_points:
        if tf1_behaviour.RULE not in enabled or switches_on(migration.migrated):
            return migration
        migrated = tf1_behaviour.switch_on(migration.migrated, program)
        return dataclasses.replace(migration, migrated=migrated)
    warning = None
    if not program.entry_points:
        warning = tf1_behaviour.no_entry_point(path, tree, program)
    if warning is None:
        return migration
    migrated = migration.migrated
    if tf1_behaviour.RULE in enabled:
        migrated = tf1_behaviour.mark(migrated, program)
    diagnostics = migration.diagnostics
    if warning.code in enabled:
        diagnostics = _in_order([*diagnostics, warning])
    return dataclasses.replace(migration, migrated=migrated, diagnostics=diagnostics)


def _in_order(diagnostics) -> tuple[Diagnostic, ...]:
    """By position in the file (a pass reports the module's imports last)."""
    return tuple(sorted(diagnostics, key=lambda d: (d.line, d.column)))
