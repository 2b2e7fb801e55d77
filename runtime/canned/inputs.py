"""What the canned estimators require of their inputs: a features dict, and
feature columns of TF 2's kind."""

from tensorflow.python.feature_column import feature_column_v2 as fc

V1_COLUMNS = (
    "Received a feature column from TensorFlow v1, but this is a TensorFlow v2 Estimator. "
    "Please either use v2 feature columns (accessible via tf.feature_column.* in TF 2.x) "
    "with this Estimator, or switch to a v1 Estimator for use with v1 feature columns "
    "(accessible via tf.compat.v1.estimator.* and tf.compat.v1.feature_column.*, "
    "respectively."
)


def require_features_dict(features) -> None:
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )


def require_v2_columns(feature_columns) -> None:
    if not fc.is_feature_column_v2(feature_columns):
        raise ValueError(V1_COLUMNS)
