"""``from npu_bridge.npu_init import *``: the Ascend preamble."""

import tensorflow as tf  # noqa: F401 -- npu_init re-exports tf, as the real one does

from npu_bridge.estimator.npu.npu_config import NPURunConfig  # noqa: F401
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec  # noqa: F401
