"""`migrate` keeps each file's result by content (migrator/command/result_cache.py): a
re-run on unchanged files migrates nothing again and says exactly what the first
run said; a change to the file, its path or the options misses the cache."""

import json
import os

import pytest

from estimator_revival.migrator.command import files as migrator_files
from estimator_revival.migrator.names import file_facts
from helpers.cli_runs import LEGACY, MIGRATED, UNSUPPORTED, run


@pytest.fixture
def counted_migrations(monkeypatch):
    """How often a file was really migrated (not taken from the cache)."""
    calls = []
    original = migrator_files.migrate_file

    def counting(path, *args, **kwargs):
        calls.append(path.name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr("estimator_revival.migrator.command.workers.migrate_file", counting)
    return calls


@pytest.fixture
def repository(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "model.py").write_text(LEGACY)
    (root / "canned.py").write_text(UNSUPPORTED)
    return root


def test_a_warm_check_migrates_nothing_again_and_reports_the_same(repository, counted_migrations):
    cold = run("--check", repository)
    assert sorted(counted_migrations) == ["canned.py", "model.py"]
    warm = run("--check", repository)
    assert len(counted_migrations) == 2, "the second run took every result from the cache"
    assert (warm.exit_code, warm.output) == (cold.exit_code, cold.output)
    assert cold.exit_code == 2 and "MIG101" in cold.output  # what was reused is not empty


def test_a_warm_run_reads_its_programs_without_parsing_a_file(repository, monkeypatch):
    """Every file of a program is read to migrate any one of it (which TensorFlow
    it was written for, its entry points); a re-run takes what each file told
    from the cache, by its content."""
    (repository / "train.py").write_text(LEGACY + "\nif __name__ == '__main__':\n    main()\n")
    cold = run("--check", repository)

    def no_parsing(self):
        raise AssertionError("a file was parsed again")

    monkeypatch.setattr(file_facts.FileFacts, "_parse", no_parsing)
    warm = run("--check", repository)
    assert (warm.exit_code, warm.output) == (cold.exit_code, cold.output)
    (repository / "train.py").write_text(LEGACY + "\nX = 2\n")  # new content, facts unknown
    with pytest.raises(AssertionError, match="parsed again"):
        run("--check", repository)


def test_a_cold_run_keeps_each_file_s_facts_in_one_write(repository, monkeypatch):
    """A file's facts (it parses, it is an entry point, the TF 1 name it uses)
    are written once the file has been read, not once per fact."""
    (repository / "train.py").write_text(LEGACY + "\nif __name__ == '__main__':\n    main()\n")
    written = []
    original = file_facts.write_atomically

    def counting(path, data):
        written.append((path.name, sorted(json.loads(data))))
        original(path, data)

    monkeypatch.setattr(file_facts, "write_atomically", counting)
    run("--check", repository)
    names = [name for name, _ in written]
    assert len(names) == len(set(names)) == 3  # model.py, canned.py, train.py
    assert ["entry_point", "parses", "tf1_only_name"] in [facts for _, facts in written]


def test_a_cached_result_is_written_as_a_fresh_one(repository, counted_migrations):
    run("--check", "--no-verify", repository)  # as a plain in-place run: names not verified
    result = run(repository)  # in place, from the cache
    assert len(counted_migrations) == 2
    assert (repository / "model.py").read_text() == MIGRATED
    assert result.exit_code == 2  # the canned estimator is still reported


def test_an_edited_file_renamed_file_or_other_options_miss_the_cache(
    repository, counted_migrations
):
    run("--check", repository)
    (repository / "model.py").write_text(LEGACY + "\nx = 1\n")
    run("--check", repository)
    assert sorted(counted_migrations[2:]) == ["model.py"]
    os.rename(repository / "canned.py", repository / "canned_renamed.py")
    run("--check", repository)
    assert counted_migrations[3:] == ["canned_renamed.py"]
    ignored = run("--check", "--ignore", "MIG101", repository)
    assert sorted(counted_migrations[4:]) == ["canned_renamed.py", "model.py"]
    assert "MIG101" not in ignored.output


def test_no_cache_neither_reads_nor_writes_it(repository, counted_migrations):
    run("--no-cache", "--check", repository)
    assert not any(os.scandir(os.environ["MIGRATE_CACHE_DIR"]))
    run("--check", repository)
    run("--no-cache", "--check", repository)
    assert len(counted_migrations) == 6


def test_a_damaged_cache_entry_is_migrated_again(repository, counted_migrations):
    first = run("--check", repository)
    for directory, _, names in os.walk(os.environ["MIGRATE_CACHE_DIR"]):
        for name in names:
            with open(os.path.join(directory, name), "wb") as entry:
                entry.write(b"\x80not a pickle")
    again = run("--check", repository)
    assert len(counted_migrations) == 4
    assert again.output == first.output


def test_a_cache_directory_that_cannot_be_used_only_costs_the_cache(
    repository, counted_migrations, tmp_path, monkeypatch
):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("MIGRATE_CACHE_DIR", str(blocked))
    first = run("--check", repository)
    again = run("--check", repository)
    assert (again.exit_code, again.output) == (first.exit_code, first.output)
    assert len(counted_migrations) == 4  # nothing could be kept, nothing was lost
    assert blocked.read_text() == "a file where the cache directory would be"
