"""The canned estimators (issue 18) against tensorflow-estimator 2.15's:
tests/programs/canned_estimators.py trains, evaluates, predicts and exports a
binary and a three-class DNNClassifier and a DNNRegressor on both sides.

Everything is bit for bit but the binary classifier's Adagrad accumulators: its
sigmoid cross-entropy's gradient goes through Log1p's gradient, whose Reciprocal
kernel gives other last bits on TF 2.21 (shown on the fixture's own graph, in a
plain Session on both versions, by test_the_binary_head_s_drift_is_tf_2_21_s_reciprocal).
"""

import subprocess

import numpy as np
import pytest
import tensorflow as tf
from harness import LEGACY_PYTHON, MAIN_PYTHON, REPO, assert_relatively_close, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "canned_estimators.py"
PROBE = REPO / "tests" / "programs" / "canned_drift_probe.py"
# Accumulators sum squared gradients; one ulp of drift per step stays within this.
RECIPROCAL_DRIFT_RTOL = 1e-6
MODELS = ("binary", "multi_class", "regression")

# The keys TensorFlow's heads produce (tensorflow-estimator's metric_keys and
# prediction_keys), with the Estimator's own loss and global_step.
EVALUATE_KEYS = {
    "binary": {
        "accuracy",
        "accuracy_baseline",
        "auc",
        "auc_precision_recall",
        "average_loss",
        "label/mean",
        "precision",
        "prediction/mean",
        "recall",
        "loss",
        "global_step",
    },
    "multi_class": {"accuracy", "average_loss", "loss", "global_step"},
    "regression": {"average_loss", "label/mean", "prediction/mean", "loss", "global_step"},
}
PREDICTION_KEYS = {
    "binary": {
        "logits",
        "logistic",
        "probabilities",
        "class_ids",
        "classes",
        "all_class_ids",
        "all_classes",
    },
    "multi_class": {
        "logits",
        "probabilities",
        "class_ids",
        "classes",
        "all_class_ids",
        "all_classes",
    },
    "regression": {"predictions"},
}
SIGNATURES = {
    "binary": {"serving_default", "classification", "regression", "predict"},
    "multi_class": {"serving_default", "classification", "predict"},
    "regression": {"serving_default", "regression", "predict"},
}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return side_by_side_records(PROGRAM, tmp_path_factory.mktemp("canned"))


@pytest.mark.parametrize("model", MODELS)
def test_losses_metrics_predictions_and_serving_are_bit_identical(records, model):
    legacy, runtime = (side[model] for side in records)
    assert set(legacy["evaluate"]) == EVALUATE_KEYS[model]
    assert set(legacy["predictions"][0]) == PREDICTION_KEYS[model]
    assert set(legacy["served"]) == SIGNATURES[model]
    # per step: the loss and every hidden layer's fraction of zeros
    assert "loss" in legacy["summaries"] and len(legacy["summaries"]["loss"]) == 12
    for part in ("summaries", "evaluate", "predictions", "served"):
        assert runtime[part] == legacy[part], (model, part)


@pytest.mark.parametrize("model", MODELS)
def test_variables_have_the_same_names_and_values(records, model):
    legacy, runtime = (side[model]["variables"] for side in records)
    assert sorted(runtime) == sorted(legacy)
    assert "dnn/hiddenlayer_0/kernel" in legacy and "dnn/logits/bias" in legacy
    for name, expected in legacy.items():
        if model == "binary" and name.endswith("/accumulator"):
            assert_relatively_close(runtime[name], expected, rtol=RECIPROCAL_DRIFT_RTOL, what=name)
        else:
            assert runtime[name] == expected, name


def test_the_binary_head_s_drift_is_tf_2_21_s_reciprocal(tmp_path):
    """The fixture's binary TRAIN graph, built by tensorflow-estimator on TF 2.15,
    replayed in a plain Session on each version: the only ops whose outputs differ
    while all their inputs are equal are Reciprocal ops (Log1p's gradient)."""
    meta = tmp_path / "binary.meta"
    outputs = {"2.15": tmp_path / "tf215.npz", "2.21": tmp_path / "tf221.npz"}
    programs = REPO / "tests" / "programs"
    subprocess.run([LEGACY_PYTHON, PROBE, "export", meta], cwd=programs, check=True)
    for version, python in (("2.15", LEGACY_PYTHON), ("2.21", MAIN_PYTHON)):
        subprocess.run([python, PROBE, "replay", meta, outputs[version]], cwd=programs, check=True)
    with np.load(outputs["2.15"]) as old, np.load(outputs["2.21"]) as new:
        assert old.files and sorted(old.files) == sorted(new.files)
        differing = {name for name in old.files if not np.array_equal(old[name], new[name])}
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(str(meta))
    changed_kernels = {
        graph.get_tensor_by_name(name).op.type
        for name in differing
        if not any(t.name in differing for t in graph.get_tensor_by_name(name).op.inputs)
    }
    assert changed_kernels == {"Reciprocal"}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda e: e.BinaryClassHead(thresholds=[0.5, 1.5]), r"thresholds not in \(0, 1\)"),
        (lambda e: e.BinaryClassHead(label_vocabulary="ab"), "label_vocabulary should be a list"),
        (lambda e: e.MultiClassHead(2), "n_classes must be > 2: 2"),
        (
            lambda e: e.MultiClassHead(3, label_vocabulary=["a", "b"]),
            '"label_vocabulary" does not have "n_classes" items',
        ),
        (lambda e: e.RegressionHead(label_dimension=0), "Invalid label_dimension 0"),
        (lambda e: e.RegressionHead(loss_reduction="none"), "Invalid loss_reduction: none"),
        (
            lambda e: e.RegressionHead(loss_fn=lambda labels: labels),
            "must contain argument: logits",
        ),
    ],
)
def test_heads_reject_bad_arguments_as_tensorflow_did(make, message):
    from runtime import estimator

    with pytest.raises(ValueError, match=message):
        make(estimator)


def _train_with(tmp_path, **arguments):
    from runtime import estimator

    columns = arguments.pop("columns", [tf.feature_column.numeric_column("x")])
    classifier = estimator.DNNClassifier([2], columns, model_dir=str(tmp_path), **arguments)

    def input_fn():
        features = {"x": np.ones((4, 1), np.float32)}
        return tf.data.Dataset.from_tensors((features, np.ones((4, 1), np.int64)))

    classifier.train(input_fn, steps=1)


def test_an_unknown_optimizer_name_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"Unsupported optimizer name: Adamax\. Supported names"):
        _train_with(tmp_path, optimizer="Adamax")


def test_features_that_are_not_a_dict_are_refused(tmp_path):
    from runtime import estimator

    classifier = estimator.DNNClassifier([2], [tf.feature_column.numeric_column("x")])

    def input_fn():
        return tf.data.Dataset.from_tensors((np.ones((4, 1), np.float32), np.ones((4, 1))))

    with pytest.raises(ValueError, match="features should be a dictionary of `Tensor`s"):
        classifier.train(input_fn, steps=1)
