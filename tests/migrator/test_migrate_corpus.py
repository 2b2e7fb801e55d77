"""Real code from PyPI written against TF 1.x, Estimator and tf.contrib
(bench/migrator/corpus.txt: six pinned releases, 386 files, 136k lines), migrated as
a user would: no file crashes or fails to parse, every output parses, a second run
changes nothing, and no name the output reaches is missing from TensorFlow 2.21 +
the runtime without migrate having said so: ``--verify`` (MIG105) finds only names of
TensorFlow's private API, which migrate flagged (MIG108) and left to it."""

import ast
from collections import Counter

import pytest

from bench.migrator.corpus import fetch, migrate


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return fetch(tmp_path_factory.mktemp("corpus"))


def codes(report) -> Counter:
    return Counter(d["code"] for f in report["files"] for d in f["diagnostics"])


def unflagged_missing_names(report) -> list[str]:
    """MIG105s other than private names (``tf.python.*``) of a file whose private
    imports migrate flagged (MIG108: "`migrate --verify` checks it exists")."""
    return [
        f"{f['path']}:{d['line']}: {d['message']}"
        for f in report["files"]
        for d in f["diagnostics"]
        if d["code"] == "MIG105"
        and not (
            d["message"].startswith("tf.python.")
            and any(other["code"] == "MIG108" for other in f["diagnostics"])
        )
    ]


def test_the_corpus_migrates_and_everything_left_is_reported(corpus, tmp_path):
    _, first = migrate(corpus, tmp_path / "out")
    assert first["files_scanned"] > 380
    found = codes(first)
    assert found["MIG000"] == 0 and found["MIG001"] == 0, found
    assert not unflagged_missing_names(first)
    outputs = sorted((tmp_path / "out").rglob("*.py"))
    assert len(outputs) == first["files_scanned"]
    for path in outputs:
        ast.parse(path.read_text(), str(path))

    _, second = migrate(tmp_path / "out", tmp_path / "again")
    assert second["files_changed"] == 0, "a second run changes nothing"
    assert not unflagged_missing_names(second)
    assert codes(second)["MIG105"] == found["MIG105"]
