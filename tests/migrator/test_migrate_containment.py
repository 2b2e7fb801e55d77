"""One odd file never takes a `migrate` run down: an internal error, a worker that
dies, code nested deeper than the stack allows — each is reported on its file and
every other file is still migrated."""

import faulthandler
import gc
import os
import shutil
import signal
from pathlib import Path

import pytest

import estimator_revival.migrator.command.files
import estimator_revival.migrator.command.workers
import estimator_revival.migrator.rules.transform
from helpers.cli_runs import CLEAN, LEGACY, MIGRATED, run

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "migrator"

# A real public TPUEstimator module's pattern: an attribute of a call's result on a
# contrib TPU module (crashed the whole run with a KeyError).
TPU_CONTEXT = """from tensorflow.contrib.tpu.python.tpu import tpu_function
n = tpu_function.get_tpu_context().number_of_shards
"""


def test_a_real_corpus_trial_migrates_the_good_files_and_reports_the_odd_one(tmp_path):
    """The reproduction next to 60 real-style files, through the worker pool. Each
    fixture is a program of its own (its own directory); its pair was written for the
    file alone, so what migrate does per program (MIG109, MIG204) is off here."""
    cases = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))[:60]
    for case in cases:
        (tmp_path / case).mkdir()
        shutil.copy(FIXTURES / f"{case}.in.py", tmp_path / case / f"{case}.py")
    (tmp_path / "tpu_context.py").write_text(TPU_CONTEXT)
    result = run("--jobs", "2", "--ignore", "MIG109,MIG204", tmp_path)
    for case in cases:
        expected = (FIXTURES / f"{case}.out.py").read_text()
        assert (tmp_path / case / f"{case}.py").read_text() == expected, case
    # the private module stands for tf.contrib.tpu, whose get_tpu_context the runtime has
    assert (tmp_path / "tpu_context.py").read_text() == TPU_CONTEXT.replace(
        "from tensorflow.contrib.tpu.python.tpu import tpu_function",
        "from estimator_revival.estimator import tpu as tpu_function",
    )
    assert "tpu_context.py:" not in result.output
    assert result.exit_code == 2  # the fixtures' own error-level diagnostics remain
    assert "61 files scanned" in result.output


def test_chains_on_call_results_migrate(tmp_path):
    """``tf.estimator.Estimator(fn).train(x)`` crashed with a TypeError. (A TF 1
    script: TF 1's behaviour is switched on before its work.)"""
    path = tmp_path / "train.py"
    path.write_text(
        "import tensorflow as tf\n\ntf.estimator.Estimator(model_fn).train(input_fn)\n"
        "tf.Session().run(op)\n"
    )
    assert run(path).exit_code == 1
    assert path.read_text() == (
        "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n\n"
        "tf.compat.v1.disable_v2_behavior()  # migrate: a TF 1 program (train.py uses "
        "tf.Session)\n\n"
        "tf_estimator.Estimator(model_fn).train(input_fn)\ntf.compat.v1.Session().run(op)\n"
    )


def _raise_on_marked_attribute(original_leave):
    def leave(self, original, updated):
        if getattr(original.attr, "value", None) == "explode_here":
            raise KeyError(12345)
        return original_leave(self, original, updated)

    return leave


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_internal_error_is_a_diagnostic_on_its_file_and_the_others_migrate(
    tmp_path, monkeypatch, jobs
):
    transformer = estimator_revival.migrator.rules.transform.MigrateTransformer
    monkeypatch.setattr(
        transformer, "leave_Attribute", _raise_on_marked_attribute(transformer.leave_Attribute)
    )
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY)
    odd = tmp_path / "odd.py"
    odd.write_text(LEGACY + "y = tf.explode_here\n")
    result = run("--jobs", jobs, tmp_path)
    assert result.exit_code == 2
    assert odd.read_text() == LEGACY + "y = tf.explode_here\n"
    assert f"{odd}:1:1: MIG000 internal error: KeyError: 12345; file left unchanged" in (
        result.output
    )
    assert all((tmp_path / f"m{i:02d}.py").read_text() == MIGRATED for i in range(40))


def _die_on(name, original_migrate_file):
    def migrate_file(path, enabled, data, **options):
        if path.name == name:
            faulthandler.disable()  # pytest's would print the worker's stack
            os.kill(os.getpid(), signal.SIGSEGV)
        return original_migrate_file(path, enabled, data, **options)

    return migrate_file


def test_a_worker_that_dies_costs_only_its_file(tmp_path, monkeypatch):
    """A segfault in a worker (as native code can crash) breaks the pool: the files it
    had not finished are migrated again, each alone, and the culprit is reported."""
    monkeypatch.setattr(
        estimator_revival.migrator.command.workers,
        "migrate_file",
        _die_on("crash.py", estimator_revival.migrator.command.workers.migrate_file),
    )
    for i in range(60):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY if i % 2 else CLEAN)
    crash = tmp_path / "crash.py"
    crash.write_text(LEGACY)
    result = run("--jobs", "2", "--ignore", "MIG109,MIG204", tmp_path)
    assert result.exit_code == 2
    assert crash.read_text() == LEGACY
    line = next(x for x in result.output.splitlines() if x.startswith(f"{crash}:"))
    assert "MIG000" in line and "killed by SIGSEGV" in line, line
    for i in range(60):
        assert (tmp_path / f"m{i:02d}.py").read_text() == (MIGRATED if i % 2 else CLEAN)
    assert "61 files scanned, 30 changed, 1 errors" in result.output


def _memory_error_once(marker, original_migrate_code):
    """Raises MemoryError the first time flaky.py is migrated (in any process)."""

    def migrate_code(code, *, path="<string>", **options):
        if path.endswith("flaky.py") and not marker.exists():
            marker.touch()
            raise MemoryError()
        return original_migrate_code(code, path=path, **options)

    return migrate_code


def test_an_internal_error_in_a_worker_is_retried_alone_before_it_is_reported(
    tmp_path, monkeypatch
):
    """A worker's failure may be its own (memory, state): the file is migrated once
    more in a fresh process, and only an error there is reported."""
    marker = tmp_path.parent / f"{tmp_path.name}-failed-once"
    monkeypatch.setattr(
        estimator_revival.migrator.command.files,
        "migrate_code",
        _memory_error_once(marker, estimator_revival.migrator.command.files.migrate_code),
    )
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY)
    flaky = tmp_path / "flaky.py"
    flaky.write_text(LEGACY)
    result = run("--jobs", "2", "--ignore", "MIG109,MIG204", tmp_path)
    assert marker.exists(), "the first attempt failed"
    assert result.exit_code == 1, result.output  # changed, no error left
    assert "MIG000" not in result.output
    assert flaky.read_text() == MIGRATED
    assert all((tmp_path / f"m{i:02d}.py").read_text() == MIGRATED for i in range(40))


class _DiesIfFinalizedInAChild:
    """Garbage like a TensorFlow function's: finalizing it in a forked child kills the
    child (TensorFlow's runtime threads do not survive a fork)."""

    def __init__(self):
        self.parent = os.getpid()
        self.cycle = self  # only the garbage collector frees it

    def __del__(self):
        if os.getpid() != self.parent:
            faulthandler.disable()
            os.kill(os.getpid(), signal.SIGSEGV)


def _collect_first(original_migrate_file):
    def migrate_file(path, enabled, data, **options):
        gc.collect()  # as an allocation-heavy parse may, at any point
        return original_migrate_file(path, enabled, data, **options)

    return migrate_file


def test_a_host_process_s_garbage_is_not_collected_in_workers(tmp_path, monkeypatch):
    """``migrate`` run inside a process that uses TensorFlow (this test suite, a
    notebook): its workers, forked from that process, never finalize its garbage."""
    monkeypatch.setattr(
        estimator_revival.migrator.command.workers,
        "migrate_file",
        _collect_first(estimator_revival.migrator.command.workers.migrate_file),
    )
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY)
    gc.disable()  # keeps the garbage alive until the workers are forked
    try:
        _DiesIfFinalizedInAChild()
        result = run("--jobs", "2", "--ignore", "MIG109,MIG204", tmp_path)
    finally:
        gc.enable()
        gc.collect()
    assert "MIG000" not in result.output, result.output
    assert result.exit_code == 1
    assert all((tmp_path / f"m{i:02d}.py").read_text() == MIGRATED for i in range(40))


SELECT_KERAS = (
    "import estimator_revival  # noqa: F401 -- selects tf-keras for tf.compat.v1.layers\n"
)
LONG_SUM = " + ".join(["tf.layers.dense"] * 500)
DEEP_CHAIN = ".".join(["a"] * 1000)
NESTED_BRACKETS = "import tensorflow as tf\n\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deeply_nested_code_is_migrated_or_reported_never_a_crash(tmp_path, jobs):
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY)
    long_sum = tmp_path / "long_sum.py"
    long_sum.write_text(f"import tensorflow as tf\n\nx = {LONG_SUM}\n")
    deep_chain = tmp_path / "deep_chain.py"
    deep_chain.write_text(f"import tensorflow as tf\n\nx = tf.estimator.ModeKeys.{DEEP_CHAIN}\n")
    nested = tmp_path / "nested.py"
    nested.write_text(NESTED_BRACKETS)
    result = run("--jobs", jobs, tmp_path)
    assert result.exit_code == 2, result.output  # nested.py cannot be parsed
    assert long_sum.read_text() == (
        f"import tensorflow as tf\n{SELECT_KERAS}\n"
        f"x = {LONG_SUM.replace('tf.layers', 'tf.compat.v1.layers')}\n"
    ), result.output
    assert deep_chain.read_text() == (
        "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n\n"
        f"x = tf_estimator.ModeKeys.{DEEP_CHAIN}\n"
    ), result.output
    assert nested.read_text() == NESTED_BRACKETS
    assert f"{nested}:3:" in result.output
    assert "MIG001 file could not be parsed (too many nested parentheses)" in result.output
    assert all((tmp_path / f"m{i:02d}.py").read_text() == MIGRATED for i in range(40))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('["import tensorflow"]', "expected a JSON object with a 'cells' list"),
        (
            '{"cells": [{"cell_type": "code", "source": 5}], "about": "tensorflow"}',
            "cells[0].source must be a string or a list of strings, not int",
        ),
        ('{"cells": [7], "about": "tensorflow"}', "cells[0] is not an object"),
        ('{"cells": [], "about": tensorflow}', "not JSON"),
    ],
)
def test_a_malformed_notebook_is_reported_and_the_others_migrate(tmp_path, content, problem):
    (tmp_path / "model.py").write_text(LEGACY)
    notebook = tmp_path / "bad.ipynb"
    notebook.write_text(content)
    result = run(tmp_path)
    assert result.exit_code == 2
    assert notebook.read_text() == content
    assert (tmp_path / "model.py").read_text() == MIGRATED
    line = next(x for x in result.output.splitlines() if x.startswith(f"{notebook}:"))
    assert "MIG001" in line and problem in line, line
