"""The runtime's mirror of npu_bridge (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu``, ``npu_bridge.estimator.npu_ops``,
``npu_bridge.hccl.hccl_ops``): migrated Ascend code imports from here."""

from estimator_revival.contrib.mixed_precision import (
    ExponentialUpdateLossScaleManager,
    FixedLossScaleManager,
)
from estimator_revival.npu import hccl_ops, npu_ops
from estimator_revival.npu.npu_config import DumpConfig, NPURunConfig, ProfilingConfig
from estimator_revival.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from estimator_revival.npu.npu_optimizer import (
    NPUDistributedOptimizer,
    NPULossScaleOptimizer,
    allreduce,
)
from estimator_revival.tf1 import tensorflow_setup

tensorflow_setup.prepare()

__all__ = [
    "DumpConfig",
    "ExponentialUpdateLossScaleManager",
    "FixedLossScaleManager",
    "NPUDistributedOptimizer",
    "NPUEstimator",
    "NPUEstimatorSpec",
    "NPULossScaleOptimizer",
    "NPURunConfig",
    "ProfilingConfig",
    "allreduce",
    "hccl_ops",
    "npu_ops",
]
