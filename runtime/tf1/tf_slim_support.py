"""What the ``tf-slim`` package (TF 1.15's ``tf.contrib.slim`` and ``.layers``,
where ``migrate`` sends them) needs from TensorFlow 2.21.

tf-slim 1.1.0 reaches into TensorFlow's private modules for names that later
TensorFlow releases moved (``ops.Tensor``, ``ops.IndexedSlices``,
``array_ops.stack``, ``control_flow_ops.cond``...): ``batch_norm``, ``dropout``,
``optimize_loss``, ``model_variable``, ``streaming_concat`` and others raise
AttributeError on TF 2.21. ``tensorflow.python.layers.normalization`` (slim's
non-fused ``batch_norm``) looks for tf-keras under a path tf-keras no longer has.

Each missing name is put back, pointing at the public TF 2.21 object TensorFlow
moved it to, before any model code runs (tf-slim reads these names when called,
not when imported). ``tests/runtime/test_tf_slim_support.py`` checks that every private
name tf-slim reads resolves.
"""

from __future__ import annotations

import importlib


def _moved_names(tf) -> dict[str, dict[str, object]]:
    """{private module: {name tf-slim reads: the object it names in TF 2.21}}."""
    return {
        "tensorflow.python.framework.ops": {
            "Tensor": tf.Tensor,
            "IndexedSlices": tf.IndexedSlices,
        },
        "tensorflow.python.ops.array_ops": {"stack": tf.stack, "unstack": tf.unstack},
        "tensorflow.python.ops.control_flow_ops": {
            "Assert": tf.compat.v1.Assert,
            "case": tf.compat.v1.case,
            "cond": tf.compat.v1.cond,
            "while_loop": tf.compat.v1.while_loop,
        },
        "tensorflow.python.ops.variable_scope": {"variable": tf.compat.v1.Variable},
    }


def restore_names_tf_slim_reads() -> None:
    import tensorflow as tf

    for module_name, names in _moved_names(tf).items():
        module = importlib.import_module(module_name)
        for name, value in names.items():
            if name not in vars(module):
                setattr(module, name, value)
    normalization = importlib.import_module("tensorflow.python.layers.normalization")
    # A lazy loader of "tf_keras.legacy_tf_layers.normalization", a module tf-keras
    # 2.21 keeps elsewhere; tf.compat.v1.layers has the same classes.
    normalization.normalization = tf.compat.v1.layers
