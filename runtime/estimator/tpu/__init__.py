"""The runtime's mirror of ``tf.compat.v1.estimator.tpu`` (and of the Estimator
names of TF 1.15's ``tf.contrib.tpu``)."""

import tensorflow as tf

# tf.contrib.tpu's tpu_function.get_tpu_context(): its number_of_shards is the replica
# count inside a TPU computation (TPUStrategy replicates in the same context) and
# None elsewhere, as on TF 1.
from tensorflow.python.tpu.tpu_function import get_tpu_context

from estimator_revival.estimator.tpu.cross_shard_optimizer import CrossShardOptimizer
from estimator_revival.estimator.tpu.tpu_config import InputPipelineConfig, RunConfig, TPUConfig
from estimator_revival.estimator.tpu.tpu_estimator import ExportSavedModelApiVersion, TPUEstimator
from estimator_revival.estimator.tpu.tpu_estimator_spec import TPUEstimatorSpec

# tf.contrib.tpu's asynchronous saver wrote the same checkpoints as the plain one;
# the runtime saves between its step loops, so the plain hook serves both.
AsyncCheckpointSaverHook = tf.compat.v1.train.CheckpointSaverHook
# tf.contrib.tpu.bfloat16_scope is TF 2's tf.compat.v1.tpu.bfloat16_scope.
bfloat16_scope = tf.compat.v1.tpu.bfloat16_scope

__all__ = [
    "AsyncCheckpointSaverHook",
    "CrossShardOptimizer",
    "ExportSavedModelApiVersion",
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
    "bfloat16_scope",
    "get_tpu_context",
]
