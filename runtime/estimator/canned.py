"""The keys TF 1 code imported from tensorflow-estimator's private canned modules
(``canned.metric_keys.MetricKeys``, ``canned.prediction_keys.PredictionKeys``):
``migrate`` maps those modules here."""

from runtime.canned.keys import MetricKeys, PredictionKeys

__all__ = ["MetricKeys", "PredictionKeys"]
