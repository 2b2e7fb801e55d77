"""The three modes a model_fn is called in, with the legacy string values."""


class ModeKeys:
    """Standard names for model modes (``tf.estimator.ModeKeys``)."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"
