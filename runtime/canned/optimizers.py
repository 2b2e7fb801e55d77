"""The optimizer argument of the TF 2 canned estimators: a name, an instance of a
Keras legacy optimizer, or a callable returning one."""

import inspect

import tf_keras

_BY_NAME = {
    "Adagrad": tf_keras.optimizers.legacy.Adagrad,
    "Adam": tf_keras.optimizers.legacy.Adam,
    "Ftrl": tf_keras.optimizers.legacy.Ftrl,
    "RMSProp": tf_keras.optimizers.legacy.RMSprop,
    "SGD": tf_keras.optimizers.legacy.SGD,
}
# For an optimizer named without a learning rate whose class has no default one.
_FALLBACK_LEARNING_RATE = 0.05


def keras_optimizer(optimizer, learning_rate: float | None = None):
    """A Keras legacy optimizer instance for ``optimizer``, as tensorflow-estimator
    2.15's ``get_optimizer_instance_v2`` made it."""
    if isinstance(optimizer, str):
        if optimizer not in _BY_NAME:
            raise ValueError(
                f"Unsupported optimizer name: {optimizer}. Supported names are: "
                f"{tuple(sorted(_BY_NAME))}"
            )
        cls = _BY_NAME[optimizer]
        if learning_rate:
            return cls(learning_rate=learning_rate)
        if _has_default_learning_rate(cls):
            return cls()
        return cls(learning_rate=_FALLBACK_LEARNING_RATE)
    if callable(optimizer):
        optimizer = optimizer()
    if isinstance(optimizer, tf_keras.optimizers.Optimizer) and not isinstance(
        optimizer, tf_keras.optimizers.legacy.Optimizer
    ):
        raise ValueError(
            "Please set your optimizer as an instance of "
            "`tf.keras.optimizers.legacy.Optimizer`, e.g., "
            f"`tf.keras.optimizers.legacy.{type(optimizer).__name__}`."
            f"Received optimizer type: {type(optimizer)}."
        )
    if not isinstance(optimizer, tf_keras.optimizers.legacy.Optimizer):
        raise ValueError(
            f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {optimizer}"
        )
    return _unused_copy(optimizer)


def _unused_copy(optimizer):
    """The same optimizer with no weights yet. Each legacy call built model_fn's
    graph once; the runtime builds it more than once per call (discovery, then the
    traced step), and a Keras optimizer's weights belong to the graph it first ran
    in. A subclass its config cannot rebuild is used as it is."""
    try:
        return type(optimizer).from_config(optimizer.get_config())
    except (TypeError, ValueError, NotImplementedError):
        return optimizer


def _has_default_learning_rate(cls) -> bool:
    parameter = inspect.signature(cls.__init__).parameters.get("learning_rate")
    return parameter is not None and parameter.default is not inspect.Parameter.empty
