"""estimator_revival: runs unchanged TensorFlow 1 Estimator ``model_fn``s on
TensorFlow 2.16+, and rewrites the code that uses them (``estimator_revival.migrator``,
the ``migrate`` command).

The public surface mirrors the legacy namespaces: ``estimator_revival.estimator``
stands where ``tf.estimator`` stood, ``estimator_revival.contrib`` where
``tf.contrib`` did, ``estimator_revival.npu`` where Ascend's ``npu_bridge`` did.
Importing the package itself only selects tf-keras, and never imports TensorFlow:
``migrate`` lives beneath it and must stay light.
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
