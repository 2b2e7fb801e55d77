"""README's first command (scripts/demo): migrates the BERT-style project, runs the
migrated copy on TF 2.21 and ends by printing its final metrics; the HTML
migration report it writes is a readable page with per-file changes."""

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class ReportPage(HTMLParser):
    """The report's per-file sections: ``{path: diff text}``, and its title."""

    def __init__(self):
        super().__init__()
        self.files: dict[str, str] = {}
        self.title = ""
        self._section = None
        self._in = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section" and attributes.get("class") == "file":
            self._section = attributes["data-path"]
            self.files[self._section] = ""
        elif tag == "pre" and attributes.get("class") == "diff":
            self._in = "diff"
        elif tag == "h1":
            self._in = "title"

    def handle_endtag(self, tag):
        if tag in ("pre", "h1"):
            self._in = None

    def handle_data(self, data):
        if self._in == "diff" and self._section:
            self.files[self._section] += data
        elif self._in == "title":
            self.title += data


def test_demo_migrates_the_bert_project_trains_it_and_prints_metrics(tmp_path):
    out = tmp_path / "demo"
    run = subprocess.run(
        ["bash", str(REPO / "scripts" / "demo")],
        env=dict(os.environ, DEMO_OUT=str(out)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert "run_classifier.py" in run.stdout and "files changed" in run.stdout  # diff summary
    metrics = dict(line.split(" = ") for line in lines[-4:])
    assert sorted(metrics) == ["eval_accuracy", "eval_loss", "global_step", "loss"]
    assert metrics["global_step"] == "60"
    assert 0.75 <= float(metrics["eval_accuracy"]) <= 1.0

    page = ReportPage()
    page.feed((out / "migration-report.html").read_text())
    assert page.title == "Migration report"
    changed = {Path(path).name: diff for path, diff in page.files.items() if diff}
    assert sorted(changed) == ["modeling.py", "optimization.py", "run_classifier.py"]
    assert (
        "+from estimator_revival.estimator import tpu as tf_estimator_tpu"
        in changed["run_classifier.py"]
    )
    assert (
        "-        optimizer = tf.tpu.CrossShardOptimizer(optimizer)" in changed["optimization.py"]
    )
