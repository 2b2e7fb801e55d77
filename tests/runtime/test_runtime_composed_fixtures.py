"""The migrator's outputs for tables composed in one run, function-local imports
and tf.contrib.keras (fixtures/migrator/tf1_tables_composed.out.py,
tf1_function_local_imports.out.py, contrib_keras_models.out.py) run on the
runtime, every branch: the renamed ops keep TF 1's meaning, each
CrossShardOptimizer spelling trains, the branches that import contrib locally get
the runtime's ports, and contrib.keras is tf-keras."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator as tf_estimator
from estimator_revival.contrib import opt as contrib_opt
from estimator_revival.contrib import rnn as contrib_rnn
from helpers.sides import REPO

FIXTURES = REPO / "fixtures" / "migrator"


def migrated(case: str):
    spec = importlib.util.spec_from_file_location(case, FIXTURES / f"{case}.out.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_space_to_batch_stem_keeps_tf1_meaning():
    # TF 1's space_to_batch_nd then batch_to_space_nd with the same blocks and no
    # crops give the padded images back (TF 1's batch_to_space would take the
    # block shape for crops)
    stem = migrated("tf1_tables_composed").space_to_depth_stem
    images = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3)
    padded = np.pad(images, [[0, 0], [1, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(stem(tf.constant(images), 2).numpy(), padded)


@pytest.mark.parametrize("spelling", ["use_tpu", "contrib_cross_shard", "imported_cross_shard"])
def test_every_cross_shard_optimizer_spelling_trains(spelling, tmp_path):
    model_fn = migrated("tf1_tables_composed").model_fn
    params = {"num_classes": 3, "learning_rate": 0.1, "use_tpu": spelling == "use_tpu"}
    params[spelling] = True

    def input_fn():
        images = np.random.RandomState(0).normal(size=(8, 4, 4, 3)).astype(np.float32)
        labels = np.arange(8, dtype=np.int32) % 3
        return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(4).repeat()

    estimator = tf_estimator.Estimator(model_fn, model_dir=str(tmp_path), params=params)
    estimator.train(input_fn, steps=3)
    assert estimator.get_variable_value("global_step") == 3


def test_function_local_contrib_imports_get_the_runtime_ports():
    module = migrated("tf1_function_local_imports")
    assert isinstance(module.make_optimizer(0.1, use_lars=True), contrib_opt.LARSOptimizer)
    assert isinstance(
        module.make_optimizer(0.1, use_lars=False), tf.compat.v1.train.MomentumOptimizer
    )
    assert isinstance(module.make_cell(8, fused=True), contrib_rnn.LSTMBlockFusedCell)
    assert isinstance(module.make_cell(8, fused=False), contrib_rnn.LSTMBlockCell)


def test_contrib_keras_is_tf_keras_and_trains(tmp_path):
    module = migrated("contrib_keras_models")
    assert type(module.build_model(3)).__module__.startswith("tf_keras.")

    def input_fn():
        images = np.random.RandomState(0).normal(size=(8, 28, 28, 1)).astype(np.float32)
        labels = np.arange(8, dtype=np.int32) % 3
        return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(4).repeat()

    estimator = tf_estimator.Estimator(
        module.model_fn, model_dir=str(tmp_path), params={"num_classes": 3}
    )
    estimator.train(input_fn, steps=2)
    assert estimator.get_variable_value("global_step") == 2
