"""``tf.contrib.learn.ModeKeys``."""


class ModeKeys:
    """TF 1.15's ``tf.contrib.learn.ModeKeys``: the mode strings of the contrib
    Estimator (``INFER`` is what ``tf.estimator.ModeKeys.PREDICT`` became)."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"
