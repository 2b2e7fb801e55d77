"""``tf.estimator.export``: serving input receivers and serving outputs
(the output classes are TensorFlow's own)."""

from tensorflow.python.saved_model.model_utils.export_output import (
    ClassificationOutput,
    EvalOutput,
    ExportOutput,
    PredictOutput,
    RegressionOutput,
    TrainOutput,
)

from estimator_revival.saving.receivers import (
    ServingInputReceiver,
    SupervisedInputReceiver,
    TensorServingInputReceiver,
    UnsupervisedInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
    build_raw_supervised_input_receiver_fn,
)

__all__ = [
    "ClassificationOutput",
    "EvalOutput",
    "ExportOutput",
    "PredictOutput",
    "RegressionOutput",
    "ServingInputReceiver",
    "SupervisedInputReceiver",
    "TensorServingInputReceiver",
    "TrainOutput",
    "UnsupervisedInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "build_raw_supervised_input_receiver_fn",
]
