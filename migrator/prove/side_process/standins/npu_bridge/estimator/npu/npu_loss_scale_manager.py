"""npu_bridge's loss scale managers: tf.contrib.mixed_precision's."""

from contrib_mixed_precision import (  # noqa: F401
    ExponentialUpdateLossScaleManager,
    FixedLossScaleManager,
)
