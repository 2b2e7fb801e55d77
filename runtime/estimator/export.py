"""``tf.estimator.export``: serving outputs (TensorFlow's own classes)."""

from tensorflow.python.saved_model.model_utils.export_output import (
    ClassificationOutput,
    EvalOutput,
    ExportOutput,
    PredictOutput,
    RegressionOutput,
    TrainOutput,
)

__all__ = [
    "ClassificationOutput",
    "EvalOutput",
    "ExportOutput",
    "PredictOutput",
    "RegressionOutput",
    "TrainOutput",
]
