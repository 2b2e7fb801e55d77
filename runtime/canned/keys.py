"""The string keys canned estimators use for metrics, predictions and signatures."""

import tensorflow as tf


class MetricKeys:
    """Keys of the metrics dict ``evaluate()`` returns."""

    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"
    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"
    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"
    PRECISION_AT_RECALL = "precision_at_recall_%g"
    RECALL_AT_PRECISION = "recall_at_precision_%g"
    SENSITIVITY_AT_SPECIFICITY = "sensitivity_at_specificity_%g"
    SPECIFICITY_AT_SENSITIVITY = "specificity_at_sensitivity_%g"
    PROBABILITY_MEAN_AT_CLASS = "probability_mean/class%d"
    AUC_AT_CLASS = "auc/class%d"
    AUC_PR_AT_CLASS = "auc_precision_recall/class%d"
    PROBABILITY_MEAN_AT_NAME = "probability_mean/%s"
    AUC_AT_NAME = "auc/%s"
    AUC_PR_AT_NAME = "auc_precision_recall/%s"


class PredictionKeys:
    """Keys of the dicts ``predict()`` yields."""

    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"
    TOP_K = "top_k"


DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_SERVING_KEY = "classification"
REGRESS_SERVING_KEY = "regression"
PREDICT_SERVING_KEY = "predict"
