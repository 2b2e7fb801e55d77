"""Runs unchanged TensorFlow 1 Estimator ``model_fn``s on TensorFlow 2.16+.

The public surface mirrors the legacy namespaces: ``runtime.estimator`` stands
where ``tf.estimator`` stood.
"""

import os
import warnings

# TF 2.16+ ships Keras 3, under which tf.compat.v1.layers fails. The legacy
# Keras (tf-keras) must be selected before Keras is first imported.
if os.environ.setdefault("TF_USE_LEGACY_KERAS", "1") != "1":
    warnings.warn(
        "TF_USE_LEGACY_KERAS is set to something other than 1; tf.compat.v1.layers "
        "inside model_fn will fail under Keras 3.",
        stacklevel=2,
    )

__version__ = "0.1.0"

from runtime.tf1.graph_code import leave_runtime_code_unconverted  # noqa: E402
from runtime.tf1.tf_slim_support import restore_names_tf_slim_reads  # noqa: E402

restore_names_tf_slim_reads()
leave_runtime_code_unconverted()
