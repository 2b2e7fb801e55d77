"""Before/after fixture pairs of the codemod: ``fixtures/migrator/<case>.in.py`` must
become exactly ``<case>.out.py``. A ``# expect: CODE`` comment on a line of the
input says which diagnostics that line must get (and no other line may get any).
"""

import ast
import re
import shutil
from pathlib import Path

import libcst as cst
import pytest

from estimator_revival.migrator.migrate import ALL_CODES, migrate_code, whole_file_part
from estimator_revival.migrator.names.program import program_of
from estimator_revival.migrator.rules.transform import migrate_module
from estimator_revival.migrator.source.positions import Locator

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "migrator"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


def expected_diagnostics(source: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group(1).split(","))
    return found


@pytest.mark.parametrize("case", CASES)
def test_fixture_pair(case):
    source = (FIXTURES / f"{case}.in.py").read_text()
    expected = (FIXTURES / f"{case}.out.py").read_text()
    migration = migrate_code(source, path=f"{case}.in.py")
    assert migration.migrated == expected
    got = {(d.line, d.code) for d in migration.diagnostics}
    assert got == expected_diagnostics(source)
    cst.parse_module(migration.migrated)


@pytest.mark.parametrize("case", CASES)
def test_fixture_output_is_stable(case):
    expected = (FIXTURES / f"{case}.out.py").read_text()
    assert migrate_code(expected).migrated == expected


@pytest.mark.parametrize("case", CASES)
def test_the_transformer_says_whether_it_rewrote(case):
    """An unchanged module's text is the source's, not generated again: that holds
    only if ``rewrote`` notes every rewrite (the pairs change; their outputs do not)."""
    before = (FIXTURES / f"{case}.in.py").read_text()
    after = (FIXTURES / f"{case}.out.py").read_text()
    for source, changes in [(before, before != after), (after, False)]:
        tree = ast.parse(source)
        new, transformer = migrate_module(
            cst.parse_module(source),
            locator=Locator(source, tree),
            path=case,
            enabled=ALL_CODES,
            part=whole_file_part(source, tree),
        )
        assert transformer.rewrote == changes
        assert new.code == (after if changes else source)


def test_there_are_enough_fixture_pairs():
    assert len(CASES) >= 60, len(CASES)


def test_every_equivalence_program_migrates_to_its_twin(tmp_path):
    """The equivalence twins (fixtures/equivalence, and fixtures/replicas for
    tests/distribution) are the migrator's own output, so the bit-exact runs of
    tests/equivalence/test_equivalence.py prove what `migrate` writes. Each legacy program is
    migrated as a program of its own (its twin beside it is not part of it)."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    for legacy in sorted(fixtures.glob("*/*/legacy.py")):
        alone = tmp_path / legacy.parent.name / legacy.name
        alone.parent.mkdir()
        shutil.copy(legacy, alone)
        migration = migrate_code(legacy.read_text(), path=str(alone), program=program_of(alone))
        migrated = legacy.with_name("migrated.py").read_text()
        assert migration.migrated == migrated, legacy.parent.name
