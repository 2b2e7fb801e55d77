"""The ``migrate`` command through click's runner and as a real subprocess."""

import json
import os
import shutil
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from estimator_revival.migrator.command.cli import main
from helpers.cli_runs import BROKEN, CLEAN, LEGACY, MIGRATED, UNSUPPORTED, run, write_repository


@pytest.fixture
def tree(tmp_path):
    root = write_repository(tmp_path / "repo")
    (root / "notes.txt").write_text("not python\n")
    script = root / "train.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    return root


def test_in_place_rewrites_only_what_changes(tree):
    clean = tree / "pkg" / "clean.py"
    before = clean.stat().st_mtime_ns
    result = run(tree)
    assert result.exit_code == 1
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED
    assert clean.read_text() == CLEAN and clean.stat().st_mtime_ns == before
    assert "2 files scanned, 1 changed, 0 errors" in result.output
    assert run(tree).exit_code == 0, "a second run has nothing to do"


def test_check_writes_nothing_and_exits_1(tree):
    assert run("--check", tree).exit_code == 1
    assert (tree / "pkg" / "model.py").read_text() == LEGACY
    (tree / "pkg" / "model.py").write_text(MIGRATED)
    assert run("--check", tree).exit_code == 0


def test_diff_prints_a_unified_diff(tree):
    result = run("--diff", tree)
    assert result.exit_code == 1
    assert "-    return tf.estimator.EstimatorSpec(mode, predictions=logits)" in result.output
    assert "+    return tf_estimator.EstimatorSpec(mode, predictions=logits)" in result.output
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_out_writes_a_migrated_copy_keeping_other_files_and_modes(tree, tmp_path):
    out = tmp_path / "out"
    assert run("--out", out, tree).exit_code == 1
    copy = out / "repo"
    assert (copy / "pkg" / "model.py").read_text() == MIGRATED
    assert (copy / "pkg" / "clean.py").read_text() == CLEAN
    assert (copy / "notes.txt").read_text() == "not python\n"
    assert stat.S_IMODE((copy / "train.sh").stat().st_mode) == 0o755
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_unparseable_file_is_reported_left_untouched_and_others_still_migrate(tree):
    (tree / "pkg" / "broken.py").write_text(BROKEN)
    result = run(tree)
    assert result.exit_code == 2
    assert (tree / "pkg" / "broken.py").read_text() == BROKEN
    assert (tree / "pkg" / "model.py").read_text() == MIGRATED
    line = next(x for x in result.output.splitlines() if "broken.py" in x)
    assert line.startswith(f"{tree / 'pkg' / 'broken.py'}:3:") and " MIG001 " in line


def test_diagnostics_are_printed_as_path_line_col_code(tree):
    (tree / "pkg" / "canned.py").write_text(UNSUPPORTED)
    result = run("--check", tree)
    expected = f"{tree / 'pkg' / 'canned.py'}:3:5: MIG101 tf.estimator.BoostedTreesClassifier"
    assert any(line.startswith(expected) for line in result.output.splitlines()), result.output


def test_select_and_ignore(tree):
    run("--ignore", "MIG202", tree)
    text = (tree / "pkg" / "model.py").read_text()
    assert "tf.layers.dense" in text and "tf_estimator.EstimatorSpec" in text
    (tree / "pkg" / "model.py").write_text(LEGACY)
    run("--select", "MIG202", tree)
    text = (tree / "pkg" / "model.py").read_text()
    assert "tf.compat.v1.layers.dense" in text and "tf.estimator.EstimatorSpec" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--select", "NOPE1"), "matches no rule code"),
        (("--report", "report.txt"), "unknown format"),
        (("--jobs", "0"), "--jobs"),
        (("--out", "x", "--check"), "cannot be combined"),
    ],
)
def test_bad_options_exit_2_with_a_clear_message(tree, args, message):
    result = CliRunner().invoke(main, [*args, str(tree)])
    assert result.exit_code == 2
    assert message in result.output
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_missing_path_exits_2(tmp_path):
    result = CliRunner().invoke(main, [str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_configuration_from_pyproject(tree):
    (tree / "pyproject.toml").write_text(
        '[tool.migrate]\nignore = ["MIG202"]\nexclude = ["pkg/clean.py"]\n'
    )
    run(tree)
    assert "tf.layers.dense" in (tree / "pkg" / "model.py").read_text()
    (tree / "pyproject.toml").write_text("[tool.migrate]\nselekt = []\n")
    result = CliRunner().invoke(main, [str(tree)])
    assert result.exit_code == 2 and "unknown [tool.migrate] keys ['selekt']" in result.output


class _ReportParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.rows, self.ids = [], 0, {}
        self._id = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs["data-path"])
        if tag == "tr" and attrs.get("class") == "diagnostic":
            self.rows += 1
        self._id = attrs.get("id")

    def handle_data(self, data):
        if self._id:
            self.ids[self._id] = data.strip()
            self._id = None


def test_reports_in_every_format(tree, tmp_path):
    (tree / "pkg" / "canned.py").write_text(UNSUPPORTED)
    run("--check", "--report", tmp_path / "r.json", tree)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["files_scanned"] == 3 and data["files_changed"] == 1 and data["errors"] == 1
    by_path = {Path(f["path"]).name: f for f in data["files"]}
    assert by_path["canned.py"]["diagnostics"][0]["code"] == "MIG101"
    assert "+from estimator_revival import estimator as tf_estimator" in by_path["model.py"]["diff"]

    run("--check", "--report", tmp_path / "r.html", tree)
    parser = _ReportParser()
    parser.feed((tmp_path / "r.html").read_text())
    assert sorted(Path(p).name for p in parser.sections) == ["canned.py", "model.py"]
    assert parser.rows == 1
    assert parser.ids["files-changed"] == "1 changed" and parser.ids["errors"] == "1 errors"

    run("--check", "--report", tmp_path / "r.md", tree)
    markdown = (tmp_path / "r.md").read_text()
    assert "# Migration report" in markdown and "**MIG101** (error)" in markdown
    assert "```diff" in markdown


@pytest.mark.parametrize("report_name", ["report.html", "reports/run.json"])
def test_a_report_inside_the_out_tree_is_written_after_it(tree, tmp_path, report_name):
    """``migrate src --out build --report build/report.html``: the report goes into
    the tree migrate creates (and into a folder of it that the source lacks)."""
    out = tmp_path / "build"
    result = run(tree, "--out", out, "--report", out / report_name)
    assert result.exit_code == 1, result.output  # 1: a file changed
    assert (out / tree.name / "pkg" / "model.py").read_text() == MIGRATED
    assert "model.py" in (out / report_name).read_text()
    assert (tree / "pkg" / "model.py").read_text() == LEGACY


def test_line_endings_bom_encoding_and_mode_survive(tmp_path):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(LEGACY.replace("\n", "\r\n").encode())
    crlf.chmod(0o750)
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + LEGACY.encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# caf\xe9\n" + LEGACY).encode("latin-1"))
    assert run(tmp_path).exit_code == 1
    assert crlf.read_bytes() == MIGRATED.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o750
    assert bom.read_bytes() == b"\xef\xbb\xbf" + MIGRATED.encode()
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + MIGRATED).encode(
        "latin-1"
    )


def test_parallel_jobs_give_the_same_result(tmp_path):
    for jobs in ("1", "2"):
        root = tmp_path / f"jobs{jobs}"
        root.mkdir()
        for i in range(40):
            (root / f"m{i}.py").write_text(LEGACY if i % 2 else CLEAN)
        assert run("--jobs", jobs, root).exit_code == 1
    for i in range(40):
        assert (tmp_path / "jobs1" / f"m{i}.py").read_text() == (
            tmp_path / "jobs2" / f"m{i}.py"
        ).read_text()
    assert (tmp_path / "jobs2" / "m1.py").read_text() == MIGRATED


def test_console_script_exit_codes(tree):
    migrate = shutil.which("migrate", path=os.path.dirname(sys.executable))
    assert migrate, "the migrate console script is installed"
    check = subprocess.run([migrate, "--check", str(tree)], capture_output=True, text=True)
    assert check.returncode == 1
    assert subprocess.run([migrate, str(tree)], capture_output=True).returncode == 1
    assert subprocess.run([migrate, "--check", str(tree)], capture_output=True).returncode == 0
    version = subprocess.run([migrate, "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "migrate, version" in version.stdout


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_report_gets_the_mode_the_umask_gives_a_new_file(tree, tmp_path, umask, mode):
    """The report is written through a temporary file (0600) renamed into place: it
    must still get the mode any file the user creates gets, as the console script
    runs under the user's umask."""
    migrate = shutil.which("migrate", path=os.path.dirname(sys.executable))
    report = tmp_path / "report.html"
    subprocess.run(
        [migrate, "--check", str(tree), "--report", str(report)],
        preexec_fn=lambda: os.umask(umask),
        capture_output=True,
        check=False,
    )
    assert stat.S_IMODE(report.stat().st_mode) == mode
