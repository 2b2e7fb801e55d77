"""What `disable_v2_behavior` switches, as docs/tf1_behaviour.md accounts for it,
and how `migrate` decides a program was written for TF 1 (migrator/names/program.py)."""

import ast
import inspect
import re
from pathlib import Path

import pytest
from tensorflow.python.compat import v2_compat

from estimator_revival.migrator.migrate import migrate_code
from estimator_revival.migrator.names.program import program_of, read_program
from helpers.cli_runs import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "tf1_behaviour.md"


def _switches() -> set[str]:
    """The calls `disable_v2_behavior` of the installed TensorFlow makes (but the
    usage gauge), and the tf.data modules that registered a V1 switch."""
    tree = ast.parse(inspect.getsource(v2_compat.disable_v2_behavior).lstrip())
    calls = {
        ast.unparse(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    calls = {call for call in calls if "gauge" not in call and "get_cell" not in call}
    calls -= {"_DATA_V2_CALLBACKS.list", "_DATA_V2_CALLBACKS.lookup"}
    return calls


def test_every_switch_of_disable_v2_behavior_is_in_the_docs():
    table = DOC.read_text()
    missing = {call for call in _switches() if f"`{call}`" not in table}
    assert not missing, f"disable_v2_behavior switches {missing}: docs/tf1_behaviour.md lacks them"
    for module in v2_compat._DATA_V2_CALLBACKS.list():
        short = module.removeprefix("tensorflow.python.data.")
        last = short.rsplit(".", 1)[-1]
        assert last in table, f"{module} registers a tf.data V1 switch the docs do not name"


def _program(tmp_path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


MODEL_V1 = (
    "import tensorflow.compat.v1 as tf\n\n\n"
    "def model_fn(features, labels, mode):\n"
    "    logits = tf.layers.dense(features, 2)\n"
    "    return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_sum(logits))\n"
)
MODEL_CONTRIB = (
    "import tensorflow as tf\n\n\n"
    "def model_fn(features, labels, mode):\n"
    "    logits = tf.contrib.layers.fully_connected(features, 2)\n"
    "    return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_sum(logits))\n"
)
TRAINER = (
    "import tensorflow as tf\n\nimport model\n\n\n"
    "def main():\n"
    "    tf.estimator.Estimator(model.model_fn).train(None, steps=1)\n\n\n"
    'if __name__ == "__main__":\n    main()\n'
)


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (
            {
                "layers.py": "import tensorflow.compat.v1 as tf\nnorm = tf.contrib.layers.layer_norm\n"
            },
            "layers.py uses tf.compat.v1.contrib",
        ),
        (
            {"requirements.txt": "numpy\ntensorflow-gpu==1.15.2\n"},
            "requirements.txt pins tensorflow-gpu==1.",
        ),
        (
            {"setup.py": "install_requires=['tensorflow>=1.13,<2.0']\n"},
            "setup.py pins tensorflow>=1.13,<2",
        ),
        (
            {"train_npu.py": "from npu_bridge.npu_init import *\n"},
            "train_npu.py imports npu_bridge",
        ),
    ],
)
def test_a_program_is_written_for_tf1_by_what_any_of_its_parts_says(tmp_path, extra, reason):
    root = _program(tmp_path, {"model.py": MODEL_V1, "trainer.py": TRAINER, **extra})
    program = read_program(root)
    assert program.written_for_tf1 and program.reason.startswith(reason), program.reason
    trainer = root / "trainer.py"
    migrated = migrate_code(trainer.read_text(), path=str(trainer), program=program).migrated
    assert "tf.compat.v1.disable_v2_behavior()  # migrate: a TF 1 program" in migrated
    # the switch goes after the imports, before any code runs
    lines = migrated.splitlines()
    switch = next(i for i, line in enumerate(lines) if "disable_v2_behavior" in line)
    assert all(not line.startswith(("import", "from")) for line in lines[switch:])
    model = root / "model.py"
    assert (
        "disable_v2_behavior"
        not in migrate_code(model.read_text(), path=str(model), program=program).migrated
    )


def test_a_tf2_era_compat_v1_program_keeps_tf2_behaviour(tmp_path):
    root = _program(
        tmp_path,
        {"model.py": MODEL_V1, "trainer.py": TRAINER, "requirements.txt": "tensorflow==2.11\n"},
    )
    program = read_program(root)
    assert not program.written_for_tf1
    trainer = root / "trainer.py"
    migrated = migrate_code(trainer.read_text(), path=str(trainer), program=program).migrated
    assert "disable_v2_behavior" not in migrated


def test_a_program_that_switches_already_is_left_alone_and_a_second_run_changes_nothing(tmp_path):
    root = _program(tmp_path, {"model.py": MODEL_CONTRIB, "trainer.py": TRAINER})
    first = run(root, "--no-cache")
    assert first.exit_code == 1, first.output
    trainer = (root / "trainer.py").read_text()
    assert trainer.count("disable_v2_behavior()") == 1
    second = run(root, "--check", "--no-cache")
    assert second.exit_code == 0, second.output
    assert (root / "trainer.py").read_text() == trainer


def test_the_copies_an_earlier_run_wrote_into_the_program_are_not_its_own_switch(tmp_path):
    """``migrate trainer.py model.py --out build`` twice, the scripts' directory being
    the program: the first run's copy of the trainer calls disable_v2_behavior()
    (migrate's call, marked), which is not the program switching TF 1 on by
    itself; the second run's trainer switches it on too."""
    root = _program(tmp_path / "project", {"model.py": MODEL_CONTRIB, "trainer.py": TRAINER})
    for out in ("build", "build_again"):
        result = run(root / "trainer.py", root / "model.py", "--out", root / out)
        assert result.exit_code == 1, result.output
        assert (root / out / "trainer.py").read_text().count("disable_v2_behavior()") == 1, out


LIBRARY = TRAINER.split("\n\n\nif __name__")[0] + "\n"  # the trainer, run from elsewhere
HOOK_MAKING_A_CALLABLE = (
    "import tensorflow as tf\n\n\n"
    "class StepReader(tf.estimator.SessionRunHook):\n"
    "    def begin(self):\n"
    "        self._step = tf.compat.v1.train.get_global_step()\n\n"
    "    def after_create_session(self, session, coord):\n"
    "        self._read = session.make_callable(self._step)\n"
)


@pytest.mark.parametrize(
    ("files", "code"),
    [
        ({"model.py": MODEL_CONTRIB, "trainer.py": LIBRARY}, "MIG109"),
        ({"hooks.py": HOOK_MAKING_A_CALLABLE}, "MIG110"),
    ],
    ids=["tf1-library-without-entry-point", "hook-session-makes-a-callable"],
)
def test_check_and_verify_fail_after_migrating_what_would_train_otherwise_or_fail(
    tmp_path, files, code
):
    root = _program(tmp_path, files)
    run(root, "--no-cache")
    check = run(root, "--check", "--verify", "--no-cache")
    assert check.exit_code == 2, check.output
    assert f" {code} " in check.output, check.output


def test_a_tf1_library_passes_the_check_once_the_program_switches_tf1_behaviour_on(tmp_path):
    root = _program(tmp_path, {"model.py": MODEL_CONTRIB, "trainer.py": LIBRARY})
    run(root, "--no-cache")
    assert (
        "# migrate: a TF 1 program (model.py uses tf.contrib" in (root / "trainer.py").read_text()
    )
    (root / "settings.py").write_text(
        "import tensorflow as tf\n\ntf.compat.v1.disable_v2_behavior()\n"
    )
    check = run(root, "--check", "--verify", "--no-cache")
    assert check.exit_code == 0, check.output


def test_a_tf1_library_without_an_entry_point_is_reported_where_it_builds_the_estimator(
    tmp_path,
):
    root = _program(tmp_path, {"model.py": MODEL_CONTRIB, "trainer.py": LIBRARY})
    warnings = {}
    for name in ("model.py", "trainer.py"):
        path = root / name
        migration = migrate_code(path.read_text(), path=str(path), program=program_of(path))
        warnings[name] = [d for d in migration.diagnostics if d.code == "MIG109"]
    assert warnings["model.py"] == [], "model_fn alone builds no Estimator"
    (warning,) = warnings["trainer.py"]
    assert (warning.line, warning.column) == (7, 5), "at tf.estimator.Estimator("
    assert "disable_v2_behavior" in warning.suggestion
    assert re.search(r"model\.py uses tf\.contrib", warning.message)


def test_an_estimator_a_docstring_shows_is_not_one_the_library_builds(tmp_path):
    """As tf_slim's metrics do: the usage example in a docstring builds nothing."""
    documented = (
        "import tensorflow as tf\n\n\n"
        "def streaming_metric(labels, predictions):\n"
        '    """Usage:\n\n'
        "      estimator = tf.estimator.Estimator(model_fn=model_fn)\n"
        '    """\n'
        "    return tf.contrib.metrics.streaming_mean(predictions)\n"
    )
    root = _program(tmp_path, {"metrics.py": documented})
    path = root / "metrics.py"
    migration = migrate_code(documented, path=str(path), program=program_of(path))
    assert [d for d in migration.diagnostics if d.code == "MIG109"] == []
    assert "# migrate: a TF 1 program" not in migration.migrated
