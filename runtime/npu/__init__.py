"""The runtime's mirror of npu_bridge (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu``, ``npu_bridge.estimator.npu_ops``,
``npu_bridge.hccl.hccl_ops``): migrated Ascend code imports from here."""

from runtime.contrib.mixed_precision import (
    ExponentialUpdateLossScaleManager,
    FixedLossScaleManager,
)
from runtime.npu import hccl_ops, npu_ops
from runtime.npu.npu_config import DumpConfig, NPURunConfig, ProfilingConfig
from runtime.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from runtime.npu.npu_optimizer import NPUDistributedOptimizer, NPULossScaleOptimizer

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
    "hccl_ops",
    "npu_ops",
]
