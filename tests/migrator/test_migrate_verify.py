"""`migrate --verify`: every name the migrated files reach in TensorFlow and the
runtime is looked up in what is installed (TF 2.21 here); the missing ones that
migrate did not already report are MIG105 errors."""

import subprocess

import pytest

import estimator_revival.migrator.command.verify
from helpers.cli_runs import run

PROGRAM = """import tensorflow as tf
from tensorflow.contrib import opt as contrib_opt

flags = tf.flags
FLAGS = flags.FLAGS
rate = FLAGS.learning_rate
x = tf.nn.dropout(tf.zeros([2]), 0.5)
model = tf.estimator.BoostedTreesClassifier([3])
oops = tf.compat.v1.no_such_thing
also = tf.random.nope(3)
"""


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM)
    return path


def lines_with(code, output):
    return [line for line in output.splitlines() if f" {code} " in line]


def test_check_verifies_names_and_reports_the_missing_ones_once(program):
    result = run("--check", program)
    missing = lines_with("MIG105", result.output)
    assert [line.split(" MIG105 ")[0] for line in missing] == [
        f"{program}:9:8:",
        f"{program}:10:8:",
    ], result.output
    assert "tf.compat.v1.no_such_thing does not exist in TensorFlow 2.21" in missing[0]
    # already reported by migrate itself (MIG101/MIG102), not again by --verify:
    assert len(lines_with("MIG101", result.output)) == 1
    assert len(lines_with("MIG102", result.output)) == 1
    assert result.exit_code == 2


def test_names_whose_attributes_exist_only_at_run_time_are_accepted(tmp_path):
    path = tmp_path / "flags_only.py"
    path.write_text("import tensorflow as tf\n\nrate = tf.compat.v1.flags.FLAGS.learning_rate\n")
    result = run("--check", path)
    assert result.exit_code == 0, result.output


def test_a_second_run_asks_nothing_it_already_knows(program, monkeypatch):
    run("--check", program)

    def no_process(*args, **kwargs):
        raise AssertionError("every name is cached: no lookup process")

    monkeypatch.setattr(subprocess, "run", no_process)
    assert len(lines_with("MIG105", run("--check", program).output)) == 2


def test_without_tensorflow_check_says_so_and_explicit_verify_is_an_error(program, monkeypatch):
    monkeypatch.setattr(
        estimator_revival.migrator.command.verify, "tensorflow_installed", lambda: False
    )
    monkeypatch.setattr(
        "estimator_revival.migrator.command.cli.tensorflow_installed", lambda: False
    )
    result = run("--check", program)
    assert "names were not verified" in result.stderr
    assert not lines_with("MIG105", result.output)
    explicit = run("--check", "--verify", program)
    assert explicit.exit_code == 2 and "TensorFlow is not installed" in explicit.output


def test_no_verify_skips_the_lookup(program, monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError("--no-verify looks nothing up")

    monkeypatch.setattr(subprocess, "run", no_process)
    result = run("--check", "--no-verify", program)
    assert not lines_with("MIG105", result.output)


def test_a_private_module_alias_is_verified_at_each_use(tmp_path):
    """adanet's ``from tensorflow.python import summary`` bound the summary *module*
    on TF 1; on TF 2.21 it is a package without ``scalar``: the warning on the
    import (MIG108) leaves the uses to --verify, which reports each of them."""
    path = tmp_path / "report.py"
    path.write_text(
        "from tensorflow.python import summary\n\n\n"
        "def log(value):\n"
        '    summary.scalar("value", value)\n'
        '    return summary.histogram("h", value)\n'
    )
    result = run("--check", path)
    assert [line.split(" MIG")[0] for line in lines_with("MIG105", result.output)] == [
        f"{path}:5:5:",
        f"{path}:6:12:",
    ], result.output
    assert len(lines_with("MIG108", result.output)) == 1


def test_a_missing_name_is_reported_at_its_line_in_the_input_file(tmp_path):
    """Names are looked up in the migrated text, whose lines moved where the
    migration removed or added lines before them; the report names the input
    file, so it gives the input's line, also with --out."""
    path = tmp_path / "assign.py"
    path.write_text(
        "import tensorflow as tf\n"
        "from tensorflow.contrib.tpu.python.tpu import device_assignment\n"
        "from tensorflow.contrib.tpu.python.tpu import tpu_function\n"
        "\n"
        "\n"
        "def assign(topology):\n"
        "    shards = tpu_function.get_tpu_context().number_of_shards\n"
        "    return device_assignment.device_assignment(topology, num_replicas=shards)\n"
        "\n"
        "\n"
        "oops = tf.compat.v1.no_such_thing\n"
    )
    for arguments in (("--check",), ("--verify", "--out", tmp_path / "out")):
        result = run(*arguments, path)
        assert [line.split(" MIG105")[0] for line in lines_with("MIG105", result.output)] == [
            f"{path}:11:8:"
        ], result.output
    migrated = (tmp_path / "out" / "assign.py").read_text().splitlines()
    assert migrated.index("oops = tf.compat.v1.no_such_thing") != 10  # the lines did move


def test_a_name_looked_up_where_the_program_falls_back_is_not_reported(tmp_path):
    """DeepCTR's way of running on several TensorFlows: a private name looked up in
    a ``try`` whose handler catches the failed lookup has a fallback; the same
    lookup elsewhere, or under a handler that catches something else, has none."""
    path = tmp_path / "layers.py"
    path.write_text(
        "import tensorflow as tf\n"
        "from tensorflow.python.ops import rnn_cell_impl\n"
        "\n"
        "try:\n"
        "    from tensorflow.python.ops.rnn_cell_impl import _Linear\n"
        "except ImportError:\n"
        "    _Linear = None\n"
        "try:\n"
        "    like_rnncell = rnn_cell_impl._like_rnncell\n"
        "except (KeyError, AttributeError):\n"
        "    like_rnncell = None\n"
        "try:\n"
        "    like_rnncell = rnn_cell_impl._like_rnncell\n"
        "except KeyError:\n"
        "    like_rnncell = None\n"
        "try:\n"
        "    pass\n"
        "except ImportError:\n"
        "    like_rnncell = rnn_cell_impl._like_rnncell\n"
    )
    result = run("--check", path)
    assert [line.split(" MIG105")[0] for line in lines_with("MIG105", result.output)] == [
        f"{path}:13:20:",
        f"{path}:19:20:",
    ], result.output


def test_private_twins_exist_where_the_private_names_are_gone():
    """symbols.PRIVATE_TWINS maps names TensorFlow 2.21 lacks to names it has (with
    tf-keras, as the runtime selects it); PRIVATE_REMOVED and PRIVATE_REMOVED_MODULES
    name what it lacks: a table entry TensorFlow disagrees with fails here."""
    from estimator_revival.migrator.data import symbols

    private = {*symbols.PRIVATE_TWINS, *symbols.PRIVATE_REMOVED, *symbols.PRIVATE_REMOVED_MODULES}
    twins = set(symbols.PRIVATE_TWINS.values())
    missing = estimator_revival.migrator.command.verify.look_up(private | twins).missing
    assert sorted(private - missing) == []  # each still gone from TF 2.21
    assert sorted(twins & missing) == []  # each twin there


def test_contrib_renames_lead_to_names_tensorflow_2_21_has():
    """symbols.CONTRIB_RENAMES rewrites a tf.contrib name to TF 2's own (TF 1.15's
    contrib re-exported it): each target must exist in the installed TensorFlow."""
    from estimator_revival.migrator.data import symbols

    targets = set(symbols.CONTRIB_RENAMES.values())
    assert sorted(estimator_revival.migrator.command.verify.look_up(targets).missing) == []
