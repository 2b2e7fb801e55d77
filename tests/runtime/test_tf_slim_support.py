"""tf-slim on TensorFlow 2.21: every name it reads from TensorFlow's private
modules resolves once the runtime is imported (runtime/tf1/tf_slim_support.py), and
the layers that used to raise AttributeError build."""

import ast
import importlib
from pathlib import Path

import tensorflow as tf
import tf_slim

import estimator_revival.estimator  # noqa: F401  (restores the names)


def _private_names_read() -> dict[str, set[str]]:
    """{'tensorflow.python.X.Y.attr': files} for every ``alias.attr`` tf-slim
    reads, where ``alias`` is imported ``from tensorflow.python.X import Y``."""
    root = Path(tf_slim.__file__).parent
    reads: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        if path.name.endswith("_test.py"):
            continue
        tree = ast.parse(path.read_text())
        aliases = {
            alias.asname or alias.name: f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("tensorflow.python")
            for alias in node.names
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                name = f"{aliases[node.value.id]}.{node.attr}"
                reads.setdefault(name, set()).add(path.name)
    return reads


def test_every_private_tensorflow_name_tf_slim_reads_resolves():
    reads = _private_names_read()
    assert len(reads) > 100  # the scan sees tf-slim's code
    unresolved = []
    for dotted, files in sorted(reads.items()):
        module_name, attribute = dotted.rsplit(".", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue  # an imported name, not a module: its attributes are objects' own
        try:
            getattr(module, attribute)
        except (AttributeError, ImportError) as error:
            unresolved.append(f"{dotted} ({', '.join(sorted(files))}): {error}")
    assert not unresolved, "\n".join(unresolved)


def test_slim_layers_that_read_moved_names_build():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 3])
        fused = tf_slim.batch_norm(x, is_training=True)
        plain = tf_slim.batch_norm(x, is_training=tf.constant(False), fused=False, scope="bn2")
        dropped = tf_slim.dropout(x, 0.5, is_training=tf.constant(True))
        weights = tf_slim.model_variable("weights", [3, 2])
        loss = tf.reduce_sum(tf.matmul(fused + plain + dropped, weights))
        train_op = tf_slim.optimize_loss(
            loss, tf.compat.v1.train.get_or_create_global_step(), 0.1, "SGD", clip_gradients=1.0
        )
        assert train_op.dtype == tf.float32
        assert weights in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.MODEL_VARIABLES)
