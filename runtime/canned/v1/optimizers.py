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


def get_optimizer_instance(opt, learning_rate: float | None = None):
    """A v1 optimizer for ``opt``, as tensorflow-estimator 2.15's
    ``canned.optimizers.get_optimizer_instance`` made it; a name gets ``learning_rate``."""
    if isinstance(opt, str):
        if opt not in _BY_NAME:
            raise ValueError(
                f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(_BY_NAME))}"
            )
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return _BY_NAME[opt](learning_rate=learning_rate)
    if callable(opt):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt
