"""``tf.contrib.learn.utils``: the export strategies of an Experiment."""

from estimator_revival.contrib.learn.utils import saved_model_export_utils

__all__ = ["saved_model_export_utils"]
