"""The optimizer argument of the TF 1 canned estimators: a name, a
``tf.compat.v1.train.Optimizer``, or a callable returning one."""

import tensorflow as tf

_BY_NAME = {
    "Adagrad": tf.compat.v1.train.AdagradOptimizer,
    "Adam": tf.compat.v1.train.AdamOptimizer,
    "Ftrl": tf.compat.v1.train.FtrlOptimizer,
    "RMSProp": tf.compat.v1.train.RMSPropOptimizer,
    "SGD": tf.compat.v1.train.GradientDescentOptimizer,
}


def v1_optimizer(optimizer, learning_rate: float):
    """A v1 optimizer for ``optimizer``, as tensorflow-estimator 2.15's
    ``get_optimizer_instance`` made it; a name gets ``learning_rate``."""
    if isinstance(optimizer, str):
        if optimizer not in _BY_NAME:
            raise ValueError(
                f"Unsupported optimizer name: {optimizer}. Supported names are: "
                f"{tuple(sorted(_BY_NAME))}"
            )
        return _BY_NAME[optimizer](learning_rate=learning_rate)
    if callable(optimizer):
        optimizer = optimizer()
    if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {optimizer}")
    return optimizer
