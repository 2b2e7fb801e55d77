"""The --report file: HTML that cannot be injected into, errors first, a count per
code, an index of files, notebook changes cell by cell."""

import json
from html.parser import HTMLParser

from helpers.cli_runs import LEGACY, UNSUPPORTED, run

HOSTILE = (
    "import tensorflow as tf\n"
    "# </textarea> <!-- <script>alert('code')</script>\n"
    "s = '</pre><script>alert(1)</script>'\n"
    "c = tf.estimator.BoostedTreesClassifier([3])\n"
    "x = tf.layers.dense(s, 2)\n"
)


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.sections, self.comments = [], [], []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "section":
            self.sections.append(dict(attrs)["data-path"])

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_data(self, data):
        self.text.append(data)


def test_html_report_escapes_code_and_file_names(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    hostile_name = repo / "<script>alert(2)<!--.py"
    hostile_name.write_text(HOSTILE)
    (repo / "zz_model.py").write_text(LEGACY)
    report = tmp_path / "report.html"
    run("--check", "--report", report, repo)
    page = _Elements()
    page.feed(report.read_text())
    assert "script" not in page.tags and "textarea" not in page.tags
    assert page.comments == [], "no <!-- in source opens an HTML comment"
    assert sorted(page.sections) == sorted([str(hostile_name), str(repo / "zz_model.py")])
    text = "".join(page.text)
    assert "s = '</pre><script>alert(1)</script>'" in text, "the code is shown, as text"
    assert "MIG101" in text, "the other file's diagnostics are not swallowed"


def test_report_lists_errors_first_with_counts_per_code_and_an_index(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a_model.py").write_text(LEGACY)
    (repo / "b_canned.py").write_text(UNSUPPORTED)
    (repo / "c_broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    report = tmp_path / "report.json"
    run("--check", "--report", report, repo)
    data = json.loads(report.read_text())
    assert [f["path"].rsplit("/", 1)[1] for f in data["files"]] == [
        "b_canned.py",
        "c_broken.py",
        "a_model.py",
    ]
    assert [(c["code"], c["count"]) for c in data["by_code"]] == [("MIG001", 1), ("MIG101", 1)]

    html = tmp_path / "report.html"
    run("--check", "--report", html, repo)
    page = _Elements()
    page.feed(html.read_text())
    assert page.sections[0].endswith("b_canned.py") and page.sections[-1].endswith("a_model.py")
    assert page.tags.count("a") == 3, "an index entry per file"

    markdown = tmp_path / "report.md"
    run("--check", "--report", markdown, repo)
    text = markdown.read_text()
    assert "| MIG001 | error | 1 |" in text and "| MIG101 | error | 1 |" in text
    assert text.index("## `") < text.index("b_canned.py`\n") < text.index("a_model.py`\n")


def test_notebook_changes_are_shown_cell_by_cell_as_code(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Train"]},
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": LEGACY.splitlines(keepends=True),
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    report = tmp_path / "report.json"
    run("--check", "--report", report, path)
    diff = json.loads(report.read_text())["files"][0]["diff"]
    assert f"--- a/{path.as_posix().lstrip('/')}[cell 1]" in diff
    assert "+    return tf_estimator.EstimatorSpec(mode, predictions=logits)\n" in diff
    assert '"source"' not in diff and "\\n" not in diff, "code, not JSON"
