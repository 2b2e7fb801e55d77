"""The heads of the TF 2 canned estimators (``tf.estimator.*Head``)."""

from estimator_revival.canned.heads.binary_class import BinaryClassHead
from estimator_revival.canned.heads.head import Head
from estimator_revival.canned.heads.multi_class import MultiClassHead
from estimator_revival.canned.heads.multi_head import MultiHead
from estimator_revival.canned.heads.multi_label import MultiLabelHead
from estimator_revival.canned.heads.regression import (
    LogisticRegressionHead,
    PoissonRegressionHead,
    RegressionHead,
)


def classification_head(n_classes, weight_column, label_vocabulary, loss_reduction) -> Head:
    """A classifier's head: binary for two classes, multi-class otherwise."""
    if n_classes == 2:
        return BinaryClassHead(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return MultiClassHead(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


__all__ = [
    "BinaryClassHead",
    "Head",
    "LogisticRegressionHead",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "PoissonRegressionHead",
    "RegressionHead",
    "classification_head",
]
