"""`migrate` never overwrites or loses what it was not asked to: checked output
locations, --out and --force, symbolic links, unreadable and unwritable paths,
files edited during a run."""

import os
import tempfile
from pathlib import Path

import pytest

import estimator_revival.migrator.command.workers
from helpers.cli_runs import CLEAN, LEGACY, MIGRATED, run, write_repository


@pytest.fixture
def tree(tmp_path):
    return write_repository(tmp_path / "repo")


def test_out_inside_the_source_tree_is_refused(tree):
    result = run("--out", tree / "migrated", tree)
    assert result.exit_code == 2
    assert "is inside the source tree" in result.output
    assert not (tree / "migrated").exists()
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_out_containing_the_source_is_refused(tree):
    result = run("--out", tree.parent, tree / "pkg" / "model.py")
    assert result.exit_code == 2 and "contains the source" in result.output
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_out_into_a_non_empty_directory_needs_force(tree, tmp_path):
    out = tmp_path / "out"
    (out / "repo" / "pkg").mkdir(parents=True)
    (out / "repo" / "pkg" / "model.py").write_text("# someone's file\n")
    refused = run("--out", out, tree)
    assert refused.exit_code == 2 and "pass --force" in refused.output
    assert (out / "repo" / "pkg" / "model.py").read_text() == "# someone's file\n"
    forced = run("--out", out, "--force", tree)
    assert forced.exit_code == 1
    assert (out / "repo" / "pkg" / "model.py").read_text() == MIGRATED


def test_roots_with_the_same_name_keep_their_own_place_in_out(tmp_path):
    for name, program in [("r1", LEGACY), ("r2", CLEAN)]:
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "model.py").write_text(program)
    out = tmp_path / "out"
    assert run("--out", out, tmp_path / "r1" / "pkg", tmp_path / "r2" / "pkg").exit_code == 1
    assert (out / "r1" / "pkg" / "model.py").read_text() == MIGRATED
    assert (out / "r2" / "pkg" / "model.py").read_text() == CLEAN


def test_a_symlinked_file_is_never_replaced_by_a_regular_file(tree, tmp_path):
    outside = tmp_path / "shared_model.py"
    outside.write_text(LEGACY)
    link = tree / "pkg" / "linked.py"
    link.symlink_to(outside)
    result = run(tree)
    assert result.exit_code == 1
    assert link.is_symlink() and outside.read_text() == LEGACY
    assert f"{link}:1:1: MIG003 symbolic link to {outside}: not followed" in result.output
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED

    out = tmp_path / "copy"
    assert run("--out", out, tree).exit_code == 0, "nothing left to migrate"
    assert (out / "repo" / "pkg" / "linked.py").is_symlink(), "the copy keeps the link"


def test_an_unreadable_directory_is_reported(tree, monkeypatch):
    """As root every directory is readable, so the OS's refusal is injected."""
    locked = tree / "locked"
    locked.mkdir()
    (locked / "model.py").write_text(LEGACY)
    scandir = os.scandir

    def refuse(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    result = run(tree)
    assert result.exit_code == 2
    assert f"{locked}:1:1: MIG002 cannot read directory: Permission denied" in result.output
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED


def test_an_unwritable_directory_is_reported_before_any_write(tree, monkeypatch):
    """As root every directory is writable, so the OS's refusal is injected."""
    readonly = tree / "readonly"
    readonly.mkdir()
    (readonly / "model.py").write_text(LEGACY)
    mkstemp = tempfile.mkstemp

    def refuse(*args, dir=None, **kwargs):
        if dir is not None and Path(dir) == readonly:
            raise PermissionError(13, "Permission denied", str(dir))
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    result = run(tree)
    assert result.exit_code == 2
    assert f"{readonly / 'model.py'}:1:1: MIG002 cannot write: Permission denied" in result.output
    assert (readonly / "model.py").read_text() == LEGACY
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED
    assert "3 files scanned, 1 changed, 1 errors" in result.output


def test_a_report_into_a_missing_directory_is_refused_before_anything_is_written(tree):
    result = run("--report", tree / "nowhere" / "report.html", tree)
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_a_file_edited_during_the_run_is_not_overwritten(tree, monkeypatch):
    model = tree / "pkg" / "model.py"
    migrate_file = estimator_revival.migrator.command.workers.migrate_file

    def edit_meanwhile(path, enabled, data, **options):
        result = migrate_file(path, enabled, data, **options)
        if path == model:
            model.write_text(LEGACY + "# edited by the user while migrate ran\n")
        return result

    monkeypatch.setattr(estimator_revival.migrator.command.workers, "migrate_file", edit_meanwhile)
    result = run(tree)
    assert result.exit_code == 2
    assert model.read_text() == LEGACY + "# edited by the user while migrate ran\n"
    assert f"{model}:1:1: MIG002 changed on disk while migrate ran" in result.output


def test_a_file_and_its_directory_both_given_are_migrated_once(tree):
    result = run(tree, tree / "pkg" / "model.py")
    assert result.exit_code == 1
    assert "2 files scanned, 1 changed" in result.output
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED
