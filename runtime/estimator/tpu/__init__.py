"""The runtime's mirror of ``tf.compat.v1.estimator.tpu``."""

from runtime.estimator.tpu.cross_shard_optimizer import CrossShardOptimizer
from runtime.estimator.tpu.tpu_config import InputPipelineConfig, RunConfig, TPUConfig
from runtime.estimator.tpu.tpu_estimator import TPUEstimator
from runtime.estimator.tpu.tpu_estimator_spec import TPUEstimatorSpec

__all__ = [
    "CrossShardOptimizer",
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
]
