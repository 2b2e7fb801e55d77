"""The boosted-trees canned estimators are a documented gap, not a missing feature
of the runtime: TensorFlow still defines its ``BoostedTrees*`` ops but registers no
kernel for any of them, on TF 2.21 as on TF 2.15 (whose tensorflow-estimator no
longer had the estimators: they were dropped in 2.9). ``migrate`` reports their uses
as MIG101 with that reason. If a TensorFlow brings the kernels back, the first test
fails, and the estimators can be built on them."""

import json
import subprocess

from estimator_revival.migrator.migrate import migrate_code
from helpers.sides import LEGACY_PYTHON, MAIN_PYTHON

_OPS_WITHOUT_KERNELS = """
import json
import tensorflow as tf
from tensorflow.python.framework import kernels
names = [name for name in dir(tf.raw_ops) if name.startswith("BoostedTrees")]
print(json.dumps({name: len(kernels.get_registered_kernels_for_op(name).kernel) for name in names}))
"""


def _kernel_counts(python) -> dict:
    done = subprocess.run(
        [python, "-c", _OPS_WITHOUT_KERNELS], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_tensorflow_defines_the_boosted_trees_ops_without_kernels():
    for python in (MAIN_PYTHON, LEGACY_PYTHON):
        counts = _kernel_counts(python)
        # the ensemble, its training and prediction, the quantile sketches
        assert {
            "BoostedTreesEnsembleResourceHandleOp",
            "BoostedTreesUpdateEnsembleV2",
            "BoostedTreesPredict",
            "BoostedTreesMakeQuantileSummaries",
        } <= set(counts), python
        assert set(counts.values()) == {0}, (python, counts)


def test_migrate_reports_the_boosted_trees_estimators_with_the_reason():
    source = (
        "import tensorflow as tf\n"
        "trees = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=1)\n"
        "more = tf.compat.v1.estimator.BoostedTreesRegressor(columns, n_batches_per_layer=1)\n"
    )
    migration = migrate_code(source)
    assert [(d.line, d.code) for d in migration.diagnostics] == [(2, "MIG101"), (3, "MIG101")]
    for diagnostic in migration.diagnostics:
        assert "BoostedTrees* ops have no kernels" in diagnostic.suggestion
    assert not migration.changed  # left as it is
