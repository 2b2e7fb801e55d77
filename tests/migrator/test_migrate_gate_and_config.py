"""The check gate holds (errors fail it), --select/--ignore filter diagnostics the
same way everywhere, the summary line and the report count the same things, and
[tool.migrate] is validated and applied to files passed one by one."""

import json

import pytest

from helpers.cli_runs import LEGACY, MIGRATED, UNSUPPORTED, run

CONTRIB = "import tensorflow as tf\n\nopt = tf.contrib.opt.MovingAverageOptimizer(None)\n"


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "model.py").write_text(LEGACY)
    (root / "canned.py").write_text(UNSUPPORTED)
    (root / "contrib.py").write_text(CONTRIB)
    return root


def test_check_fails_when_only_error_level_diagnostics_remain(tree):
    (tree / "model.py").write_text(MIGRATED)
    result = run("--check", tree)
    assert result.exit_code == 2, "nothing would change, but unconverted code remains"
    assert "0 would change, 2 errors" in result.output
    (tree / "canned.py").unlink()
    (tree / "contrib.py").unlink()
    assert run("--check", tree).exit_code == 0


def test_select_reports_the_same_diagnostics_as_a_full_run(tree):
    # (--verify would also report the TF 1 names a run without rewrites leaves)
    full = run("--check", "--no-verify", tree)
    selected = run("--check", "--no-verify", "--select", "MIG1", tree)
    codes = {line for line in full.output.splitlines() if " MIG1" in line}
    assert len(codes) == 2
    assert {line for line in selected.output.splitlines() if " MIG" in line} == codes
    assert selected.exit_code == 2
    assert "0 would change" in selected.output, "no rewrite rule is selected"


def test_ignore_drops_exactly_the_ignored_diagnostics(tree):
    result = run("--check", "--ignore", "MIG101", tree)
    assert " MIG101 " not in result.output and " MIG102 " in result.output
    assert "1 would change, 1 errors" in result.output


def test_the_summary_line_and_the_report_count_the_same_errors(tree, tmp_path):
    report = tmp_path / "report.json"
    result = run("--check", "--report", report, tree)
    data = json.loads(report.read_text())
    summary = result.output.splitlines()[-1]
    assert summary == (
        f"{data['files_scanned']} files scanned, {data['files_changed']} would change, "
        f"{data['errors']} errors, {data['warnings']} warnings"
    )
    assert data["errors"] == 2


def test_exclude_applies_to_files_passed_one_by_one(tree, monkeypatch):
    """pre-commit passes files, relative to the repository root."""
    (tree / "third_party").mkdir()
    (tree / "third_party" / "vendored.py").write_text(LEGACY)
    (tree / "pyproject.toml").write_text('[tool.migrate]\nexclude = ["third_party"]\n')
    monkeypatch.chdir(tree)
    assert run("third_party/vendored.py", "model.py").exit_code == 1
    assert (tree / "third_party" / "vendored.py").read_text() == LEGACY
    assert (tree / "model.py").read_text() == MIGRATED
    assert run("--no-force-exclude", "third_party/vendored.py").exit_code == 1
    assert (tree / "third_party" / "vendored.py").read_text() == MIGRATED


def test_exclude_patterns_are_relative_to_the_pyproject_directory(tree):
    (tree / "pkg" / "gen").mkdir(parents=True)
    (tree / "pkg" / "gen" / "ops.py").write_text(LEGACY)
    (tree / "pyproject.toml").write_text('[tool.migrate]\nexclude = ["pkg/gen/*"]\n')
    assert run(tree / "pkg").exit_code == 0, "the only file under pkg/ is excluded"
    assert (tree / "pkg" / "gen" / "ops.py").read_text() == LEGACY


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('exclude = "pkg/*"', "[tool.migrate] exclude must be a list of strings"),
        ('ignore = "MIG203"', "[tool.migrate] ignore must be a list of strings"),
        ("select = [1]", "[tool.migrate] select must be a list of strings"),
        ('jobs = "4"', "[tool.migrate] jobs must be a positive integer, not '4'"),
        ("jobs = -1", "[tool.migrate] jobs must be a positive integer, not -1"),
        ("jobs = 0", "[tool.migrate] jobs must be a positive integer, not 0"),
        ('ignore = ["MIG9"]', "'MIG9' matches no rule code"),
        ("selekt = []", "unknown [tool.migrate] keys ['selekt']"),
    ],
)
def test_a_bad_setting_is_an_error_naming_the_file_and_the_key(tree, setting, message):
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(f"[tool.migrate]\n{setting}\n")
    result = run(tree)
    assert result.exit_code == 2
    assert message in result.output and str(pyproject) in result.output
    assert (tree / "model.py").read_text() == LEGACY, "nothing is migrated"
