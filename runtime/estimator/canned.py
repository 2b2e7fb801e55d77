"""The names TF 1 code imported from tensorflow-estimator's private canned modules:
the keys (``canned.metric_keys.MetricKeys``, ``canned.prediction_keys.PredictionKeys``),
TF 1's head interface that custom heads subclassed (``canned.head._Head``) and the
optimizer helper (``canned.optimizers.get_optimizer_instance``), under the names
they had: ``migrate`` maps those modules here."""

from runtime.canned.keys import MetricKeys, PredictionKeys
from runtime.canned.v1.head import Head as _Head
from runtime.canned.v1.optimizers import get_optimizer_instance

__all__ = ["MetricKeys", "PredictionKeys", "_Head", "get_optimizer_instance"]
