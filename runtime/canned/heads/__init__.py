"""The heads of the TF 2 canned estimators (``tf.estimator.*Head``)."""

from runtime.canned.heads.binary_class import BinaryClassHead
from runtime.canned.heads.head import Head
from runtime.canned.heads.multi_class import MultiClassHead
from runtime.canned.heads.regression import RegressionHead

__all__ = ["BinaryClassHead", "Head", "MultiClassHead", "RegressionHead"]
