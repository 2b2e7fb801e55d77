"""A large file is migrated in parts (migrator.rules.chunked); the result must be the one
migrating the whole file at once gives, byte for byte and diagnostic for diagnostic.
Held here on every fixture and on generated programs, split into tiny parts."""

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from estimator_revival.migrator.migrate import (
    ALL_CODES,
    KNOWN_MODULES,
    TRIGGER,
    TRIGGER_WORDS,
    migrate_code,
    whole_file_part,
)
from estimator_revival.migrator.rules import chunked, hook_sessions
from estimator_revival.migrator.source.deep_stack import call_with_deep_stack
from estimator_revival.migrator.source.segments import has_wildcard_import
from helpers.program_strategies import programs

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    path
    for path in (ROOT / "fixtures").rglob("*.py")
    if TRIGGER.search(path.read_text())
    and not has_wildcard_import(ast.parse(path.read_text()), KNOWN_MODULES)
)


def in_parts(code: str, part_lines: int):
    tree = ast.parse(code)
    return call_with_deep_stack(
        chunked.migrate_in_parts,
        code,
        tree,
        path="module.py",
        enabled=ALL_CODES,
        words=TRIGGER_WORDS,
        part=whole_file_part(code, tree),
        part_lines=part_lines,
    )


def assert_same_as_whole(code: str, part_lines: int) -> None:
    # (the checks of the whole file, MIG110, run once after either)
    whole = migrate_code(code, path="module.py", enabled=ALL_CODES - {hook_sessions.CODE})
    text, diagnostics, _ = in_parts(code, part_lines)
    assert text == whole.migrated
    assert tuple(diagnostics) == whole.diagnostics


def test_there_are_sources_to_compare():
    assert len(SOURCES) > 150


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("part_lines", [1, 7, 60])
def test_fixture_sources_migrate_the_same_in_parts(path, part_lines):
    assert_same_as_whole(path.read_text(), part_lines)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(wildcard=False), st.integers(1, 12))
def test_generated_programs_migrate_the_same_in_parts(program, part_lines):
    assert_same_as_whole(program, part_lines)


def test_a_large_file_is_migrated_in_parts_and_keeps_what_need_not_change():
    """Above LARGE_FILE_LINES, migrate_code takes the chunked path; statements with
    nothing to migrate come back as they were."""
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(1500))
    code = (
        "import tensorflow as tf\n\n\n"
        + filler
        + "def model_fn(features, labels, mode):\n"
        + "    return tf.estimator.EstimatorSpec(mode, loss=tf.losses.log_loss(labels, features))\n"
    )
    assert code.count("\n") > chunked.LARGE_FILE_LINES
    migrated = migrate_code(code).migrated
    assert migrated == (
        "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n\n\n"
        + filler
        + "def model_fn(features, labels, mode):\n"
        + "    return tf_estimator.EstimatorSpec(mode, "
        + "loss=tf.compat.v1.losses.log_loss(labels, features))\n"
    )
