"""tensorflow-estimator 2.15.0 on TensorFlow 2.21: the legacy program, unchanged,
on the new TensorFlow's kernels. The reference every runtime run on TF 2.21 is
compared with, bit for bit (the reference side of migrate prove and of the tests).
It reads the TensorFlow 2.15 package named by ``LEGACY_TENSORFLOW``.

tensorflow-estimator is pure Python over TensorFlow's internals. TensorFlow 2.16
removed ``tf.estimator`` and, with it, the few internals only the Estimator used.
:func:`install` puts back exactly those, as TensorFlow 2.15 had them, and nothing
else (``tests/equivalence/test_legacy_on_tf_2_21.py`` checks that each is still missing from
the installed TensorFlow, so a patch that stops being needed is noticed):

==============================================  ===================================
TensorFlow 2.15 had                             put back as
==============================================  ===================================
``tf_export.ESTIMATOR_API_NAME`` and the        the same values: tensorflow-
``"estimator"`` entries of ``API_ATTRS`` and    estimator's ``estimator_export``
``API_ATTRS_V1``                                decorator reads them
``tensorflow.python.distribute.``               TF 2.15's own modules, imported
``estimator_training``, ``tensorflow.python.``  from the legacy environment's
``tpu.{tpu_embedding, tpu_embedding_gradient,   TensorFlow 2.15 wheel (Python
session_support}``                              files; the Estimator imports them
                                                at load time)
``tf.estimator``, ``tf.compat.v1.estimator``,   the same lazy modules over
``tf.compat.v2.estimator`` and the package      tensorflow-estimator's API, as TF
paths that made ``import tensorflow.estimator`` 2.15's ``__init__`` set them
work
``tensorflow.python.estimator.*``: forwarders   each name an alias of its
to ``tensorflow_estimator.python.estimator.*``  ``tensorflow_estimator`` module
==============================================  ===================================

tensorflow-estimator 2.15.0 itself is installed by ``scripts/setup-envs`` with
``pip install --no-deps --target .venv/estimator-2.15`` (kept out of the main
environment's site-packages: the runtime must never see it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path

# The legacy environment's TensorFlow 2.15 package: where the modules TF 2.21 lost
# are read from (migrate prove, and the tests' sides, name it).
TENSORFLOW_2_15 = Path(os.environ["LEGACY_TENSORFLOW"])
# Modules the Estimator imports that TensorFlow 2.21 no longer has, each with what
# it was for.
TF_2_15_MODULES = {
    "tensorflow.python.distribute.estimator_training": (
        "the distribute coordinator's hooks into Estimator.train_and_evaluate"
    ),
    "tensorflow.python.tpu.tpu_embedding": "TPUEstimator's embedding configuration",
    "tensorflow.python.tpu.tpu_embedding_gradient": "TPUEstimator's embedding gradients",
    "tensorflow.python.tpu.session_support": "TPUEstimator's worker heartbeats",
}
ESTIMATOR_API = {
    "tensorflow": "tensorflow_estimator.python.estimator.api._v2.estimator",
    "tensorflow.compat.v1": "tensorflow_estimator.python.estimator.api._v1.estimator",
    "tensorflow.compat.v2": "tensorflow_estimator.python.estimator.api._v2.estimator",
}
PRIVATE_ALIAS = ("tensorflow.python.estimator", "tensorflow_estimator.python.estimator")


def install() -> None:
    """Puts back what tensorflow-estimator 2.15 needs; call once ``tensorflow`` is
    imported (``sitecustomize`` does)."""
    _estimator_api_name()
    for name in TF_2_15_MODULES:
        _import_from_tf_2_15(name)
    sys.meta_path.insert(0, _PrivateEstimatorAlias())
    for namespace, api in ESTIMATOR_API.items():
        _lazy_estimator(importlib.import_module(namespace), api)


def _estimator_api_name() -> None:
    from tensorflow.python.util import tf_export

    tf_export.ESTIMATOR_API_NAME = "estimator"
    tf_export.API_ATTRS["estimator"] = tf_export._Attributes(
        "_estimator_api_names", "_estimator_api_constants"
    )
    tf_export.API_ATTRS_V1["estimator"] = tf_export._Attributes(
        "_estimator_api_names_v1", "_estimator_api_constants_v1"
    )


def _import_from_tf_2_15(name: str) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = importlib.import_module(parent_name)
    if hasattr(parent, child) or name in sys.modules:
        raise AssertionError(f"TensorFlow has {name} again: drop it from TF_2_15_MODULES")
    path = TENSORFLOW_2_15.joinpath(*name.split(".")[1:]).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    setattr(parent, child, module)


def _lazy_estimator(namespace, api: str) -> None:
    """``namespace.estimator`` loaded on first use, and ``import
    namespace.estimator`` possible, as TF 2.15's ``__init__`` files set it up."""
    from tensorflow.python.tools import module_util
    from tensorflow.python.util.lazy_loader import LazyLoader

    if "estimator" in vars(namespace):
        raise AssertionError(f"{namespace.__name__} has an estimator again")
    namespace.estimator = LazyLoader("estimator", vars(namespace), api)
    namespace.__path__ = [module_util.get_parent_dir_for_name(api), *namespace.__path__]


class _PrivateEstimatorAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``tensorflow.python.estimator[.x]`` is ``tensorflow_estimator.python.estimator[.x]``."""

    def find_spec(self, fullname, path=None, target=None):
        alias, real = PRIVATE_ALIAS
        if fullname != alias and not fullname.startswith(alias + "."):
            return None
        target_name = real + fullname[len(alias) :]
        if importlib.util.find_spec(target_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        alias, real = PRIVATE_ALIAS
        return importlib.import_module(real + spec.name[len(alias) :])

    def exec_module(self, module):
        pass
