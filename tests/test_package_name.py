"""Nothing in the repository reaches the bundled runtime or the migrator by the bare
names `runtime` and `migrator` (issue 50): a program's own package of that name
would be imported instead. Only the fixtures of code migrated under the former
name, and the migrator's account of that name, spell it."""

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORMER_IMPORT = re.compile(r"^\s*(?:from|import)\s+(?:runtime|migrator)\b", re.MULTILINE)
SPELL_THE_FORMER_NAME = {
    "fixtures/migrator/former_runtime_name_imports.in.py",
    "fixtures/migrator/former_runtime_name_npu_wildcard.in.py",
}
# Programs with `runtime` and `migrator` packages of their own: a project in
# UNet_Industrial's shape, and the tests' programs of that kind.
OWN_RUNTIME_PACKAGES = (
    "fixtures/projects/unet_industrial/",
    "tests/test_package_name.py",
    "tests/migrator/test_migrate_first_party.py",
)
TEXT_SUFFIXES = (".py", ".md", ".ipynb", ".j2", ".toml", ".yaml", ".txt")


def _tracked_files():
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return [path for path in listed.stdout.splitlines() if path.endswith(TEXT_SUFFIXES)]


def test_no_file_imports_the_bare_names():
    offenders = []
    for path in _tracked_files():
        if path in SPELL_THE_FORMER_NAME or path.startswith(OWN_RUNTIME_PACKAGES):
            continue
        text = (REPO / path).read_text(errors="replace")
        offenders += [f"{path}: {m.group().strip()}" for m in FORMER_IMPORT.finditer(text)]
    assert offenders == []


def test_the_former_name_fixtures_still_spell_it():
    """The exemption above lists files that really hold the former name."""
    for path in SPELL_THE_FORMER_NAME:
        assert FORMER_IMPORT.search((REPO / path).read_text()), path


LEGACY_TRAINER = """\
import tensorflow as tf

import runtime  # the program's own package: its settings


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(runtime.LEARNING_RATE).minimize(
        loss, global_step=tf.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    features = {"x": tf.random.stateless_normal([8, 3], seed=[1, 2])}
    return tf.data.Dataset.from_tensors((features, tf.constant([0, 1] * 4))).repeat()


estimator = tf.estimator.Estimator(model_fn, model_dir=runtime.MODEL_DIR)
estimator.train(input_fn, steps=3)
import migrator  # noqa: E402 -- a package of the user's too

print(runtime.__name__, migrator.OWNER, estimator.get_variable_value("global_step"))
"""


def test_a_migrated_program_runs_beside_its_own_runtime_and_a_migrator(tmp_path):
    """The program's own ``runtime`` package (its folder first on the path) and a
    ``migrator`` installed beside it: the migrated program reaches the bundled
    runtime by its own name and still imports both of theirs."""
    from estimator_revival.migrator.migrate import migrate_code
    from estimator_revival.migrator.names.program import program_of
    from helpers.sides import RUNTIME

    project = tmp_path / "project"
    (project / "runtime").mkdir(parents=True)
    (project / "runtime" / "__init__.py").write_text(
        f"LEARNING_RATE = 0.1\nMODEL_DIR = {str(tmp_path / 'model')!r}\n"
    )
    trainer = project / "train.py"
    trainer.write_text(LEGACY_TRAINER)
    migrated = migrate_code(LEGACY_TRAINER, path=str(trainer), program=program_of(trainer))
    assert migrated.diagnostics == ()
    assert "from estimator_revival import estimator as tf_estimator" in migrated.migrated
    assert "import runtime  # the program's own package" in migrated.migrated
    trainer.write_text(migrated.migrated)
    run = subprocess.run(
        [*RUNTIME.interpreter, str(trainer)],
        cwd=project,
        env=RUNTIME.env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["runtime", "the", "program", "3"]
