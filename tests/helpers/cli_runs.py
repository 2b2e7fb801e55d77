"""Running ``migrate`` in-process for the CLI tests, and the small programs they use."""

from click.testing import CliRunner

from estimator_revival.migrator.command.cli import main

LEGACY = """import tensorflow as tf


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features, 2)
    return tf.estimator.EstimatorSpec(mode, predictions=logits)
"""
MIGRATED = """import tensorflow as tf
from estimator_revival import estimator as tf_estimator


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features, 2)
    return tf_estimator.EstimatorSpec(mode, predictions=logits)
"""
CLEAN = "import tensorflow as tf\n\nx = tf.constant(1)\n"
BROKEN = "import tensorflow as tf\n\ndef broken(:\n    pass\n"
UNSUPPORTED = "import tensorflow as tf\n\nc = tf.estimator.BoostedTreesClassifier([3])\n"


def write_repository(root):
    """A small repository: ``pkg/model.py`` to migrate, ``pkg/clean.py`` already fine."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "model.py").write_text(LEGACY)
    (root / "pkg" / "clean.py").write_text(CLEAN)
    return root


def run(*args):
    """``migrate ARGS`` in this process; click's result (exit_code, output)."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
