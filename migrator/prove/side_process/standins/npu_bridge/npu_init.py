"""``from npu_bridge.npu_init import *``: the Ascend preamble."""

import tensorflow as tf  # noqa: F401 -- npu_init re-exports tf, as the real one does

from npu_bridge.estimator import npu_ops  # noqa: F401
from npu_bridge.estimator.npu.npu_config import (  # noqa: F401
    DumpConfig,
    NPURunConfig,
    ProfilingConfig,
)
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec  # noqa: F401
from npu_bridge.estimator.npu.npu_loss_scale_manager import (  # noqa: F401
    ExponentialUpdateLossScaleManager,
    FixedLossScaleManager,
)
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer  # noqa: F401
from npu_bridge.estimator.npu.npu_optimizer import NPUDistributedOptimizer  # noqa: F401
from npu_bridge.hccl import hccl_ops  # noqa: F401
