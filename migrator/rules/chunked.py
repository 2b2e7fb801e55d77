"""Migrating a large file in parts, with bounded memory and no work on the
statements that cannot change.

libcst holds about 700 bytes per byte of source (a 2 MB file: 1.4 GB) and its
time grows faster than the file. A large file is therefore split into its
top-level statements (``migrator.source.segments``); those that mention nothing the
migration acts on are kept as they are, the others are migrated in parts of about
``PART_LINES`` lines. Every part also holds the shared statements: those up to the
last top-level import (where added imports go) and every module-level import (so
names resolve as in the whole file). The module-level edits of all parts (imports
added, legacy imports removed) are merged and applied by a last pass over the
shared statements alone. The result is the one migrating the whole file at once
gives (``tests/migrator/test_migrator_chunked.py`` holds them equal).
"""

from __future__ import annotations

import ast
import dataclasses
import re

import libcst as cst

from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.rules.module_edits import ModuleEdits
from estimator_revival.migrator.rules.transform import Part, migrate_module
from estimator_revival.migrator.source.parsing import UnparsableSource, parse_with_libcst
from estimator_revival.migrator.source.positions import Locator, physical_lines
from estimator_revival.migrator.source.segments import Segment, has_wildcard_import, split

LARGE_FILE_LINES = 4000  # files above this are migrated in parts
PART_LINES = 2000


def worth_splitting(lines: list[str], tree: ast.Module, modules: re.Pattern[str]) -> bool:
    """Large files, unless a wildcard import makes every name depend on the whole file."""
    return len(lines) > LARGE_FILE_LINES and not has_wildcard_import(tree, modules)


def migrate_in_parts(
    code: str,
    tree: ast.Module,
    *,
    path: str,
    enabled: frozenset[str],
    words: str,
    part: Part | None = None,
    part_lines: int = PART_LINES,
) -> tuple[str, list[Diagnostic], set[str]]:
    """The migrated text of ``code`` (parsed to ``tree``), its diagnostics, and the
    qualified names they are about.

    ``words`` (a pattern) matches the text the migration acts on without an import
    (a method name, a local import); ``part`` holds what every pass shares (the
    file's dialect).
    """
    part = part or Part()
    lines = physical_lines(code)
    segments = split(
        tree,
        lines,
        acts_under=symbols.may_act_under,
        words=words,
        reserved_names=symbols.RUNTIME_ALIASES.values(),
    )
    shared = [index for index, segment in enumerate(segments) if segment.shared]
    texts = ["".join(lines[segment.start : segment.stop]) for segment in segments]
    found: list[tuple[int, Diagnostic]] = []
    reported: set[str] = set()
    edits = ModuleEdits()
    for own in _parts(segments, part_lines):
        pass_ = _Pass(lines, segments, members=sorted({*shared, *own}), written=set(own))
        passing = dataclasses.replace(part, finishes=False)
        edits = edits.merged(pass_.run(path, enabled, passing, texts, found, reported))
    # The shared segments last, alone: this pass applies the module-level edits.
    final = _Pass(lines, segments, members=shared, written=set(shared))
    finishing = dataclasses.replace(part, earlier_edits=edits)
    final.run(path, enabled, finishing, texts, found, reported)
    found.sort(key=lambda item: item[0])  # stable: a pass's own order within a statement
    return "".join(texts), [diagnostic for _, diagnostic in found], reported


@dataclasses.dataclass
class _Pass:
    """One libcst pass over some segments of a file, joined into one module (each
    segment is one top-level statement of it)."""

    lines: list[str]
    segments: list[Segment]
    members: list[int]  # segment indexes, in file order
    written: set[int]  # the members whose result this pass gives

    def run(
        self, path, enabled, part: Part, texts: list, found: list, reported: set
    ) -> ModuleEdits:
        """Migrates the members: their new text goes to ``texts``, their diagnostics
        (with the segment index) to ``found`` and the names those are about to
        ``reported``; returns the pass's module-level edits."""
        source, origins = self._join()
        try:
            module = parse_with_libcst(source)
        except UnparsableSource as error:
            raise UnparsableSource(
                origins[error.line - 1][1], error.column, error.message
            ) from None
        if len(module.body) != len(self.members):
            raise ValueError(
                f"{len(self.members)} segments parsed to {len(module.body)} statements"
            )
        part = dataclasses.replace(part, statement_keys=self.members)
        new, transformer = migrate_module(
            module, locator=Locator(source), path=path, enabled=enabled, part=part
        )
        for index, text in self._texts_by_segment(new, transformer.body_keys).items():
            if index in self.written:
                texts[index] = text
        for diagnostic in transformer.diagnostics:
            index, line = origins[diagnostic.line - 1]
            if index in self.written:
                found.append((index, dataclasses.replace(diagnostic, line=line)))
        reported |= transformer.reported_names
        return transformer.edits

    def _join(self) -> tuple[str, list[tuple[int, int]]]:
        """The members as one module, and per line of it ``(segment, line in the file)``."""
        pieces: list[str] = []
        origins: list[tuple[int, int]] = []
        for index in self.members:
            segment = self.segments[index]
            pieces.extend(self.lines[segment.start : segment.stop])
            origins.extend((index, line + 1) for line in range(segment.start, segment.stop))
        return "".join(pieces), origins

    def _texts_by_segment(self, module: cst.Module, keys: list[int]) -> dict[int, str]:
        """The new module's text cut back into segments: the module's header goes
        with the first, its footer with the last, each statement with its segment."""
        texts = dict.fromkeys(self.members, "")
        texts[self.members[0]] += "".join(module.code_for_node(line) for line in module.header)
        for statement, key in zip(module.body, keys, strict=True):
            texts[key] += module.code_for_node(statement)
        texts[self.members[-1]] += "".join(module.code_for_node(line) for line in module.footer)
        if not module.has_trailing_newline:
            last = max(index for index, text in texts.items() if text)
            texts[last] = texts[last].removesuffix(module.default_newline)
        if "".join(texts.values()) != module.code:
            raise ValueError("the migrated statements do not add up to the module")
        return texts


def _parts(segments: list[Segment], part_lines: int) -> list[list[int]]:
    """The segments that need migrating and are not in every part, grouped in parts
    of about ``part_lines`` lines."""
    parts: list[list[int]] = [[]]
    size = 0
    for index, segment in enumerate(segments):
        if not segment.needed or segment.shared:
            continue
        if parts[-1] and size + segment.stop - segment.start > part_lines:
            parts.append([])
            size = 0
        parts[-1].append(index)
        size += segment.stop - segment.start
    return [part for part in parts if part]


def _text(lines: list[str], segment: Segment) -> str:
    return "".join(lines[segment.start : segment.stop])
