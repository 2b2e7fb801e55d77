"""The migrator's tables against the runtime it targets, and its own weight."""

import importlib
import subprocess
import sys

import pytest

from estimator_revival.migrator.data import symbols


@pytest.mark.parametrize("canonical", sorted(symbols.RUNTIME_SYMBOLS))
def test_every_runtime_target_exists(canonical):
    if canonical in symbols.RUNTIME_MODULES:
        importlib.import_module(symbols.runtime_module(canonical))  # `from ... import <it>` works
        return
    module_path, _, name = symbols.runtime_module(canonical).rpartition(".")
    module = importlib.import_module(module_path)
    assert hasattr(module, name), f"{module_path}.{name} is targeted but does not exist"


@pytest.mark.parametrize("canonical", sorted(symbols.TWO_FLAVOURS))
def test_every_canned_estimator_has_both_flavours_in_the_runtime(canonical):
    """TF 1 code's canned estimators are never left to the runtime's TF 2 flavour."""
    assert canonical in symbols.RUNTIME_SYMBOLS
    assert symbols.tf1_flavour_of(canonical) in symbols.RUNTIME_SYMBOLS
    v1 = importlib.import_module("estimator_revival.estimator.v1")
    tf2 = importlib.import_module("estimator_revival.estimator")
    name = canonical.removeprefix("estimator.")
    assert getattr(v1, name) is not getattr(tf2, name)


@pytest.mark.parametrize("namespace", sorted(symbols.RUNTIME_MODULES))
def test_every_name_a_runtime_module_exports_is_a_migrate_target(namespace):
    """A runtime module's ``__all__`` is what it offers migrated code: each name in it
    is in RUNTIME_SYMBOLS, so that migrate does not report it as missing (MIG101)
    where it rewrites the legacy spelling to the module."""
    module = importlib.import_module(symbols.runtime_module(namespace))
    offered = getattr(module, "__all__", ())
    assert sorted(n for n in offered if f"{namespace}.{n}" not in symbols.RUNTIME_SYMBOLS) == []


def test_runtime_modules_are_modules():
    for canonical in symbols.RUNTIME_MODULES & symbols.RUNTIME_SYMBOLS:
        importlib.import_module(symbols.runtime_module(canonical))


def test_single_replacements_lie_outside_the_whole_namespaces():
    """A name of a namespace the runtime mirrors whole is converted with its module
    (``from tensorflow.contrib.tpu.python.tpu import tpu_function`` becomes
    ``from estimator_revival.estimator import tpu as tpu_function``); listed again as a single
    replacement, the module's import was dropped and its uses left unconverted."""
    inside = [
        name
        for name in symbols.RUNTIME_REPLACEMENTS
        if any(name.startswith(namespace + ".") for namespace in symbols.NAMESPACES)
    ]
    assert not inside


def test_rename_table_targets_are_tensorflow_names():
    table = symbols.tf1_renames()
    assert len(table) > 900
    assert table["tensorflow.train.AdamOptimizer"] == "tensorflow.compat.v1.train.AdamOptimizer"
    assert all(new.startswith("tensorflow.") for new in table.values())
    assert not any(old.startswith("tensorflow.estimator.") for old in table)


def test_migrator_never_imports_tensorflow():
    code = (
        "import sys\n"
        "from estimator_revival.migrator.command.cli import main\n"
        "from estimator_revival.migrator.migrate import migrate_code\n"
        "migrate_code('import tensorflow as tf\\nx = tf.estimator.Estimator(None)\\n')\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'tf_keras')\n"
        "          or m.startswith('estimator_revival.') and m.split('.')[1] != 'migrator']\n"
        "assert not loaded, sorted(loaded)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_name_whose_order_tf1_left_open_is_warned_about_on_every_run():
    """MIG111 stays with the code: the migrated file (``estimator_revival.contrib.opt``), and
    a from-import of the name, get it as the legacy spelling did."""
    from estimator_revival.migrator.migrate import migrate_code

    legacy = (
        "import tensorflow as tf\n"
        "from tensorflow.contrib.opt import MomentumWOptimizer\n\n"
        "adamw = tf.contrib.opt.AdamWOptimizer(1e-4, learning_rate=1e-3)\n"
        "momentumw = MomentumWOptimizer(1e-4, 0.1, 0.9)\n"
    )
    first = migrate_code(legacy, path="train.py")
    again = migrate_code(first.migrated, path="train.py")
    assert [(d.line, d.code) for d in first.diagnostics] == [(2, "MIG111"), (4, "MIG111")]
    lines = first.migrated.splitlines()
    import_line = 1 + next(n for n, text in enumerate(lines) if "import MomentumWOptimizer" in text)
    use_line = 1 + next(n for n, text in enumerate(lines) if "AdamWOptimizer(" in text)
    assert [(d.line, d.code) for d in again.diagnostics] == [
        (import_line, "MIG111"),
        (use_line, "MIG111"),
    ]
    assert "estimator_revival.contrib" in first.migrated and again.migrated == first.migrated


@pytest.mark.parametrize(
    ("code", "code_reported", "instead"),
    [
        ("x = tf.contrib.gan.gan_model", "MIG102", "tensorflow-gan package"),
        ("x = tf.contrib.learn.DNNClassifier", "MIG102", "tf.estimator's Estimator and canned"),
        ("x = tf.contrib.seq2seq.BeamSearchDecoder", "MIG102", "tf.keras.layers.Attention"),
        ("x = tf.contrib.quantize.create_eval_graph", "MIG102", "tfmot.quantization"),
        (
            "from tensorflow.examples.tutorials.mnist import input_data",
            "MIG104",
            "tf.keras.datasets.mnist.load_data()",
        ),
    ],
)
def test_modules_without_a_tf2_home_say_what_to_reach_for(code, code_reported, instead):
    from estimator_revival.migrator.migrate import migrate_code

    migration = migrate_code(f"import tensorflow as tf\n{code}\n")
    reported = [(d.code, d.suggestion) for d in migration.diagnostics]
    assert any(c == code_reported and instead in s for c, s in reported), reported
