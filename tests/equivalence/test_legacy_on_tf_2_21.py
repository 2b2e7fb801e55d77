"""tensorflow-estimator 2.15 on TensorFlow 2.21 (migrator/prove/side_process/legacy_on_tf_2_21): each
internal the compatibility layer puts back is one TF 2.21 lacks, and with the layer
a legacy program finds the Estimator as TF 2.15 gave it."""

import json
import subprocess

from helpers.sides import LEGACY_ON_TF_2_21, REFERENCE, RUNTIME

_MISSING = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
import tensorflow as tf
import estimator_compat
missing = {}
for name in estimator_compat.TF_2_15_MODULES:
    parent, _, child = name.rpartition(".")
    missing[name] = not hasattr(importlib.import_module(parent), child)
from tensorflow.python.util import tf_export
missing["tf_export.ESTIMATOR_API_NAME"] = not hasattr(tf_export, "ESTIMATOR_API_NAME")
for namespace in estimator_compat.ESTIMATOR_API:
    missing[namespace + ".estimator"] = "estimator" not in vars(importlib.import_module(namespace))
try:
    importlib.import_module(estimator_compat.PRIVATE_ALIAS[0])
    missing[estimator_compat.PRIVATE_ALIAS[0]] = False
except ImportError:
    missing[estimator_compat.PRIVATE_ALIAS[0]] = True
print(json.dumps(missing))
"""

_PUT_BACK = """
import json
import tensorflow as tf
from tensorflow.python.estimator.canned.head import _Head
from tensorflow.compat.v1 import estimator as v1
print(json.dumps({
    "Estimator": tf.estimator.Estimator.__module__,
    "TPUEstimator": v1.tpu.TPUEstimator.__module__,
    "_Head": _Head.__module__,
    "v2": tf.compat.v2.estimator.RunConfig is tf.estimator.RunConfig,
}))
"""


def _run(side, code, *args) -> dict:
    done = subprocess.run(
        [*side.interpreter, "-c", code, *args],
        env=side.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_internal_put_back_is_missing_from_tensorflow_2_21():
    missing = _run(RUNTIME, _MISSING, str(LEGACY_ON_TF_2_21))
    assert len(missing) == 9
    assert all(missing.values()), {name: gone for name, gone in missing.items() if not gone}


def test_with_the_layer_a_legacy_program_gets_tensorflow_estimator_2_15():
    found = _run(REFERENCE, _PUT_BACK)
    assert found == {
        "Estimator": "tensorflow_estimator.python.estimator.estimator",
        "TPUEstimator": "tensorflow_estimator.python.estimator.tpu.tpu_estimator",
        "_Head": "tensorflow_estimator.python.estimator.canned.head",
        "v2": True,
    }
