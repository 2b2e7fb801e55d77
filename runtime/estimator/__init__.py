"""The runtime's mirror of ``tf.estimator``: migrated code imports from here."""

import tensorflow as tf

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.spec import EstimatorSpec
from estimator_revival.canned.baseline import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from estimator_revival.canned.dnn import DNNClassifier, DNNEstimator, DNNRegressor
from estimator_revival.canned.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from estimator_revival.canned.heads import (
    BinaryClassHead,
    Head,
    LogisticRegressionHead,
    MultiClassHead,
    MultiHead,
    MultiLabelHead,
    PoissonRegressionHead,
    RegressionHead,
)
from estimator_revival.canned.linear import LinearClassifier, LinearEstimator, LinearRegressor
from estimator_revival.engine.estimator import Estimator
from estimator_revival.engine.hooks import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from estimator_revival.engine.run_config import RunConfig
from estimator_revival.engine.train_and_evaluate import EvalSpec, TrainSpec, train_and_evaluate
from estimator_revival.estimator import experimental, export, inputs
from estimator_revival.estimator.api_export import estimator_export
from estimator_revival.estimator.extenders import add_metrics
from estimator_revival.saving import checkpoints
from estimator_revival.saving.exporters import BestExporter, Exporter, FinalExporter, LatestExporter
from estimator_revival.saving.warm_start import WarmStartSettings
from estimator_revival.tf1 import tensorflow_setup

tensorflow_setup.prepare()

# Hooks and listeners are TensorFlow's own classes: model_fns create them and the
# runtime recognizes them (StopAtStep, CheckpointSaver) or drives them.
CheckpointSaverHook = tf.compat.v1.train.CheckpointSaverHook
CheckpointSaverListener = tf.compat.v1.train.CheckpointSaverListener
FeedFnHook = tf.compat.v1.train.FeedFnHook
FinalOpsHook = tf.compat.v1.train.FinalOpsHook
GlobalStepWaiterHook = tf.compat.v1.train.GlobalStepWaiterHook
LoggingTensorHook = tf.compat.v1.train.LoggingTensorHook
NanLossDuringTrainingError = tf.compat.v1.train.NanLossDuringTrainingError
NanTensorHook = tf.compat.v1.train.NanTensorHook
ProfilerHook = tf.compat.v1.train.ProfilerHook
StepCounterHook = tf.compat.v1.train.StepCounterHook
StopAtStepHook = tf.compat.v1.train.StopAtStepHook
SummarySaverHook = tf.compat.v1.train.SummarySaverHook
# WarmStartSettings' vocabulary remapping spec (tf.estimator.VocabInfo).
VocabInfo = tf.compat.v1.train.VocabInfo
# TF 1's name for the TF 2 Estimator class (tf.compat.v1.estimator.EstimatorV2).
EstimatorV2 = Estimator


def _load_global_step_from_checkpoint_dir(checkpoint_dir: str) -> int:
    """The global step of the latest checkpoint in ``checkpoint_dir``, 0 without one:
    the Estimator's private helper, which TF 1 training scripts imported."""
    return checkpoints.latest_global_step(checkpoint_dir)


__all__ = [
    "estimator_export",
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BestExporter",
    "BinaryClassHead",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "Head",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "RegressionHead",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "Estimator",
    "EstimatorSpec",
    "EstimatorV2",
    "EvalSpec",
    "Exporter",
    "FeedFnHook",
    "FinalExporter",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LatestExporter",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "LoggingTensorHook",
    "LogisticRegressionHead",
    "ModeKeys",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "PoissonRegressionHead",
    "ProfilerHook",
    "RunConfig",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "TrainSpec",
    "VocabInfo",
    "WarmStartSettings",
    "add_metrics",
    "experimental",
    "export",
    "inputs",
    "train_and_evaluate",
]
