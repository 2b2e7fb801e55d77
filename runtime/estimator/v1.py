"""The TF 1 flavour of the canned estimators (``tf.compat.v1.estimator.DNNClassifier``,
and ``tf.estimator.DNNClassifier`` in TF 1 code): ``migrate`` rewrites those here."""

from estimator_revival.canned.v1.baseline import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from estimator_revival.canned.v1.dnn import DNNClassifier, DNNEstimator, DNNRegressor
from estimator_revival.canned.v1.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from estimator_revival.canned.v1.linear import LinearClassifier, LinearEstimator, LinearRegressor

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
]
