"""The runtime's mirror of npu_bridge (``npu_bridge.npu_init`` and
``npu_bridge.estimator.npu``): migrated Ascend code imports from here."""

from runtime.npu.npu_config import NPURunConfig
from runtime.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec

__all__ = ["NPUEstimator", "NPUEstimatorSpec", "NPURunConfig"]
