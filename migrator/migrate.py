"""Migrating one piece of source: the API the CLI, notebooks and tests share."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from migrator.diagnostics import CODES, RULES, Diagnostic
from migrator.transform import migrate_module

ALL_CODES = frozenset(CODES) | frozenset(RULES)

# Files that mention none of these cannot hold anything to migrate; they are
# skipped before parsing (most files of a large repository).
TRIGGER_WORDS = r"estimator|tensorflow|npu_bridge|export_savedmodel"
TRIGGER = re.compile(TRIGGER_WORDS)
TRIGGER_BYTES = re.compile(TRIGGER_WORDS.encode())


@dataclasses.dataclass(frozen=True)
class Migration:
    """The result for one source text."""

    path: str
    original: str
    migrated: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def changed(self) -> bool:
        return self.migrated != self.original


def migrate_code(code: str, *, path: str = "<string>", enabled=ALL_CODES) -> Migration:
    """Migrates Python source text; raises ``libcst.ParserSyntaxError`` if it does not parse."""
    if not TRIGGER.search(code):
        return Migration(path, code, code, ())
    module, diagnostics = migrate_module(
        cst.parse_module(code), source=code, path=path, enabled=frozenset(enabled)
    )
    return Migration(path, code, module.code, tuple(diagnostics))
