"""The canned estimators (issue 18) against tensorflow-estimator 2.15's:
tests/programs/canned_estimators.py trains, evaluates, predicts and exports each
model of MODELS on both sides: the TF 2 flavour (tf.estimator.*) and TF 1's
(tf.compat.v1.estimator.*, the v1_* models, with TF 1.15's tf.contrib.estimator
heads for the *Estimator classes).

Everything is bit for bit but the binary and multi-label classifiers: their sigmoid
cross-entropy's gradient goes through Log1p's gradient, whose Reciprocal kernel
gives other last bits on TF 2.21, and their predicted probability through the
Sigmoid kernel, which does too (shown on each fixture's own graphs, in a plain
Session on both versions, by test_the_binary_heads_drift_is_tf_2_21_s_kernels).
Their values are compared each with its own magnitude, within 1e-6; and the runtime
itself, run on TF 2.15's kernels, equals the legacy run bit for bit.
"""

import importlib
import math
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from harness import (
    LEGACY_PYTHON,
    MAIN_PYTHON,
    RACY_SUMMARIES,
    REPO,
    assert_racy_reads,
    assert_relatively_close,
    program_record,
    side_by_side_records,
)
from kernel_drift import changed_kernels

PROGRAM = REPO / "tests" / "programs" / "canned_estimators.py"
PROBE = REPO / "tests" / "programs" / "canned_drift_probe.py"
# The binary heads' values drift by a few ulps (TF 2.21's Reciprocal and Sigmoid):
# each value within 1e-6 of its own size, or within 1e-6 where it is a sum of
# order-1 weights that nearly cancel (a logit near 0).
RECIPROCAL_DRIFT_RTOL = 1e-6
RECIPROCAL_DRIFT_FLOOR = 1e-6
DRIFTING = (
    "binary",
    "linear_binary",
    "wide_deep_binary",
    "baseline_binary",
    "logistic_regression",
    "multi_label",
    "multi_label_sparse_ids",
    "multi_label_sparse_strings",
    "v1_binary",
    "v1_linear_binary",
    "v1_wide_deep_binary",
    "v1_baseline_binary",
    "v1_multi_label_head",
    "v1_multi_label_head_named",
)
# Where training amplifies the drift past 1e-6 (12 FTRL steps take the onset's
# 7e-8 to 1e-5; TF 1's multi-label head's 12 Adagrad or FTRL steps to 2e-6): on
# TF 2.21 the per-step summaries are compared up to the drift's onset (the first
# step where one differs), within 1e-6 there, and the rest by structure; on TF
# 2.15's kernels everything, bit for bit.
AMPLIFIED = ("logistic_regression", "v1_multi_label_head", "v1_multi_label_head_named")
DRIFTING_KERNELS = {"Reciprocal", "Sigmoid"}
MODELS = (
    "binary",
    "multi_class",
    "regression",
    "linear_binary",
    "linear_multi_class",
    "linear_regression",
    "linear_sdca_binary",
    "linear_sdca_regression",
    "wide_deep_binary",
    "wide_deep_multi_class",
    "wide_deep_regression",
    "wide_deep_regression_vocabulary_file",
    "baseline_binary",
    "baseline_multi_class",
    "baseline_regression",
    "poisson_regression",
    "logistic_regression",
    "multi_label",
    "multi_label_sparse_ids",
    "multi_label_sparse_strings",
    "binary_thresholds_loss_fn",
    "regression_loss_fn",
    "batch_norm_regression",
    "regression_warm_started",
    "regression_added_metrics",
    "multi_head",
    "v1_binary",
    "v1_multi_class",
    "v1_regression",
    "v1_linear_binary",
    "v1_linear_multi_class",
    "v1_linear_regression",
    "v1_linear_sdca_binary",
    "v1_wide_deep_binary",
    "v1_wide_deep_multi_class",
    "v1_wide_deep_regression",
    "v1_baseline_binary",
    "v1_baseline_multi_class",
    "v1_baseline_regression",
    "v1_binary_thresholds_head",
    "v1_multi_class_head",
    "v1_poisson_head",
    "v1_logistic_head",
    "v1_regression_head",
    "v1_multi_label_head",
    "v1_multi_label_head_named",
)

# The keys TensorFlow's heads produce (tensorflow-estimator's metric_keys and
# prediction_keys), with the Estimator's own loss and global_step, per head.
_BINARY_METRICS = {
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
}
_MULTI_CLASS_METRICS = {"accuracy", "average_loss", "loss", "global_step"}
_REGRESSION_METRICS = {"average_loss", "label/mean", "prediction/mean", "loss", "global_step"}
# two thresholds, class-based metrics of classes 0 and 2
_MULTI_LABEL_METRICS = {
    "auc",
    "auc_precision_recall",
    "average_loss",
    *(
        f"{metric}/positive_threshold_{threshold}"
        for metric in ("accuracy", "precision", "recall")
        for threshold in (0.3, 0.7)
    ),
    *(
        f"{metric}/class{class_id}"
        for metric in ("probability_mean", "auc", "auc_precision_recall")
        for class_id in (0, 2)
    ),
    "loss",
    "global_step",
}
_CLASSES = {"logits", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"}
HEADS = {
    "binary": (
        _BINARY_METRICS,
        {"logistic", *_CLASSES},
        {"serving_default", "classification", "regression", "predict"},
    ),
    "multi_class": (
        _MULTI_CLASS_METRICS,
        _CLASSES,
        {"serving_default", "classification", "predict"},
    ),
    "regression": (
        _REGRESSION_METRICS,
        {"predictions"},
        {"serving_default", "regression", "predict"},
    ),
    # thresholds 0.3 and 0.6 besides the default 0.5
    "binary_thresholds": (
        _BINARY_METRICS
        | {
            f"{metric}/positive_threshold_{threshold}"
            for metric in ("accuracy", "precision", "recall")
            for threshold in (0.3, 0.6)
        },
        {"logistic", *_CLASSES},
        {"serving_default", "classification", "regression", "predict"},
    ),
    # no thresholds, no class-based metrics
    "multi_label_plain": (
        {"auc", "auc_precision_recall", "average_loss", "loss", "global_step"},
        {"logits", "probabilities", "classes"},
        {"serving_default", "classification", "predict"},
    ),
    # two thresholds, class-based metrics of classes 0 and 2
    "multi_label": (
        _MULTI_LABEL_METRICS,
        {"logits", "probabilities", "classes"},
        {"serving_default", "classification", "predict"},
    ),
    # TF 1.15's multi_label_head: the same keys as MultiLabelHead's, no class names
    # among the predictions
    "v1_multi_label": (
        _MULTI_LABEL_METRICS,
        {"logits", "probabilities"},
        {"serving_default", "classification", "predict"},
    ),
    # named "topics" (every key but the Estimator's ends in /topics), a class-based
    # metric of a class by name
    "v1_multi_label_named": (
        {
            *(
                f"{metric}/topics"
                for metric in (
                    "auc",
                    "auc_precision_recall",
                    "average_loss",
                    "probability_mean/senior",
                    "auc/senior",
                    "auc_precision_recall/senior",
                )
            ),
            "loss",
            "global_step",
        },
        {"logits", "probabilities"},
        {"serving_default", "classification", "predict"},
    ),
    # MultiHead of a three-class head "level" and a regression head "spend": each
    # head's keys end in its name, each head's loss is one; predictions by head;
    # the first head serves by default, every head's signatures under its name
    "multi_head": (
        {
            "accuracy/level",
            "average_loss/level",
            "loss/level",
            "average_loss/spend",
            "label/mean/spend",
            "prediction/mean/spend",
            "loss/spend",
            "loss",
            "global_step",
        },
        {*(f"level/{key}" for key in _CLASSES), "spend/predictions"},
        {
            "serving_default",
            "predict",
            "level",
            "level/classification",
            "level/predict",
            "spend",
            "spend/regression",
            "spend/predict",
        },
    ),
    # tf.estimator.add_metrics: the head's, and the metric_fn's
    "added_metrics": (
        _REGRESSION_METRICS | {"extra/rmse", "extra/mae", "extra/summary_steps"},
        {"predictions"},
        {"serving_default", "regression", "predict"},
    ),
    # with an inverse link: the logits too
    "linked_regression": (
        _REGRESSION_METRICS,
        {"predictions", "logits"},
        {"serving_default", "regression", "predict"},
    ),
}
# Estimators whose name does not say their (family, head): most are a head given
# to DNNEstimator / LinearEstimator
WITH_A_HEAD = {
    "poisson_regression": ("dnn", "linked_regression"),
    "logistic_regression": ("linear", "linked_regression"),
    "multi_label": ("dnn", "multi_label"),
    "multi_label_sparse_ids": ("dnn", "multi_label_plain"),
    "multi_label_sparse_strings": ("dnn", "multi_label_plain"),
    "binary_thresholds_loss_fn": ("dnn", "binary_thresholds"),
    "regression_loss_fn": ("dnn", "regression"),
    "batch_norm_regression": ("dnn", "regression"),
    "regression_warm_started": ("dnn", "regression"),
    "regression_added_metrics": ("dnn", "added_metrics"),
    "multi_head": ("dnn", "multi_head"),
    "wide_deep_regression_vocabulary_file": ("wide_deep", "regression"),
    # trained by LinearSDCA (one example per step: tests/programs/canned_estimators.py)
    "linear_sdca_binary": ("linear", "binary"),
    "linear_sdca_regression": ("linear", "regression"),
    "v1_linear_sdca_binary": ("linear", "binary"),
    # TF 1's flavour: the same keys as TF 2's
    "v1_binary": ("dnn", "binary"),
    "v1_multi_class": ("dnn", "multi_class"),
    "v1_regression": ("dnn", "regression"),
    "v1_linear_binary": ("linear", "binary"),
    "v1_linear_multi_class": ("linear", "multi_class"),
    "v1_linear_regression": ("linear", "regression"),
    "v1_wide_deep_binary": ("wide_deep", "binary"),
    "v1_wide_deep_multi_class": ("wide_deep", "multi_class"),
    "v1_wide_deep_regression": ("wide_deep", "regression"),
    "v1_baseline_binary": ("baseline", "binary"),
    "v1_baseline_multi_class": ("baseline", "multi_class"),
    "v1_baseline_regression": ("baseline", "regression"),
    # TF 1.15's tf.contrib.estimator heads, given to TF 1's *Estimator classes
    "v1_binary_thresholds_head": ("dnn", "binary_thresholds"),
    "v1_multi_class_head": ("wide_deep", "multi_class"),
    "v1_poisson_head": ("linear", "linked_regression"),
    "v1_logistic_head": ("baseline", "linked_regression"),
    "v1_regression_head": ("dnn", "regression"),
    "v1_multi_label_head": ("dnn", "v1_multi_label"),
    "v1_multi_label_head_named": ("linear", "v1_multi_label_named"),
}
# The variables each family names as TensorFlow named them.
_DNN_VARIABLES = {"dnn/hiddenlayer_0/kernel", "dnn/logits/bias"}
_BASELINE_VARIABLES = {"baseline/bias"}
_LINEAR_VARIABLES = {"linear/linear_model/bias_weights", "linear/linear_model/education/weights"}
FAMILY_VARIABLES = {
    "dnn": _DNN_VARIABLES,
    "linear": _LINEAR_VARIABLES,
    "wide_deep": _DNN_VARIABLES | _LINEAR_VARIABLES,
    "baseline": _BASELINE_VARIABLES,
}


def _family_and_head(model: str) -> tuple[str, str]:
    """``wide_deep_binary`` -> ``("wide_deep", "binary")``; ``binary`` -> ``("dnn", ...)``."""
    if model in WITH_A_HEAD:
        return WITH_A_HEAD[model]
    for family in ("linear", "wide_deep", "baseline"):
        if model.startswith(family + "_"):
            return family, model.removeprefix(family + "_")
    return "dnn", model


class CannedRuns:
    """Each estimator of the program, run on both sides once per test process
    (tests of one estimator share its run; xdist workers run what they need)."""

    def __init__(self, directory):
        self.directory = directory
        self._records = {}

    def records(self, model: str) -> tuple[dict, dict]:
        if model not in self._records:
            legacy, runtime = side_by_side_records(PROGRAM, self.directory, args=[model])
            self._records[model] = legacy[model], runtime[model]
        return self._records[model]

    def runtime_on_tf_2_15(self, model: str) -> dict:
        record = program_record(
            LEGACY_PYTHON, PROGRAM, "runtime", self.directory / "runtime on 2.15", [model]
        )
        return record[model]

    def legacy_checkpoint(self, model: str) -> str:
        self.records(model)
        return tf.train.latest_checkpoint(str(self.directory / "legacy" / model))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return CannedRuns(tmp_path_factory.mktemp("canned"))


def assert_same(actual, expected, *, what: str, rtol: float) -> None:
    """Equal, or (with ``rtol`` > 0) each number within ``rtol`` of its own size
    (``math.inf``: numbers of the same shape); strings and structure always equal."""
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), what
        for key in expected:
            assert_same(actual[key], expected[key], what=f"{what}/{key}", rtol=rtol)
    elif rtol == math.inf and np.asarray(expected).dtype.kind in "fiub":
        assert np.shape(actual) == np.shape(expected), what  # structure only
    elif rtol and np.asarray(expected).dtype.kind in "fiub":
        assert_relatively_close(
            actual, expected, rtol=rtol, what=what, floor=RECIPROCAL_DRIFT_FLOOR
        )
    elif isinstance(expected, list) and expected and isinstance(expected[0], dict | list):
        assert len(actual) == len(expected), what
        for index, (one, other) in enumerate(zip(actual, expected, strict=True)):
            assert_same(one, other, what=f"{what}[{index}]", rtol=rtol)
    else:
        assert actual == expected, what


@pytest.mark.parametrize("model", MODELS)
def test_losses_metrics_predictions_serving_and_variables_match(runs, model):
    legacy, runtime = runs.records(model)
    family, head = _family_and_head(model)
    metrics, predictions, signatures = HEADS[head]
    assert set(legacy["evaluate"]) == metrics
    assert set(legacy["predictions"][0]) == predictions
    assert set(legacy["served"]) == signatures
    assert FAMILY_VARIABLES[family] <= set(legacy["variables"])
    assert len(legacy["summaries"]["loss"]) == 12  # every step's loss
    runtime_summaries, legacy_summaries = _without_racy_reads(
        runtime["summaries"], legacy["summaries"], check=model not in DRIFTING
    )
    if model in AMPLIFIED:
        assert_equal_until_the_onset(runtime_summaries, legacy_summaries, what=model)
        for part in ("evaluate", "predictions", "served", "variables"):
            assert_same(runtime[part], legacy[part], what=f"{model}/{part}", rtol=math.inf)
        return
    rtol = RECIPROCAL_DRIFT_RTOL if model in DRIFTING else 0.0
    assert_same(runtime_summaries, legacy_summaries, what=f"{model}/summaries", rtol=rtol)
    for part in ("evaluate", "predictions", "served", "variables"):
        assert_same(runtime[part], legacy[part], what=f"{model}/{part}", rtol=rtol)


# A model of each family and flavour (the ones bit for bit on TF 2.21): a DNN with
# Adam's slots, wide & deep on a vocabulary file and weighted ids and with three
# classes, the linear models (TF 1's with partitioned variables), the baseline, TF
# 1's DNN with batch norm, and SDCA (its tables of example states).
RESUMED = (
    "regression",
    "wide_deep_regression_vocabulary_file",
    "wide_deep_multi_class",
    "linear_regression",
    "v1_linear_regression",
    "baseline_regression",
    "v1_regression",
    "linear_sdca_regression",
)


@pytest.mark.parametrize("model", RESUMED)
@pytest.mark.parametrize("first", ["legacy", "runtime"])
def test_a_model_dir_trains_on_under_the_other_side(runs, tmp_path, model, first):
    """``first``'s model_dir after its run (12 steps, checkpointed) is copied for
    each side, which trains 12 more steps from it, evaluates, predicts and exports:
    checkpoints interchange both ways, and both continue with the same numbers."""
    runs.records(model)
    continued = {}
    for side, python in (("legacy", LEGACY_PYTHON), ("runtime", MAIN_PYTHON)):
        shutil.copytree(runs.directory / first / model, tmp_path / side / model)
        continued[side] = program_record(python, PROGRAM, side, tmp_path / side, [model])[model]
    legacy, runtime = continued["legacy"], continued["runtime"]
    assert [step for step, _ in legacy["summaries"]["loss"]] == list(range(1, 25))
    assert legacy["evaluate"]["global_step"] == 24
    runtime_summaries, legacy_summaries = _without_racy_reads(
        runtime["summaries"], legacy["summaries"], check=True
    )
    assert_same(runtime_summaries, legacy_summaries, what=f"{model}/summaries", rtol=0.0)
    for part in ("evaluate", "predictions", "served", "variables"):
        assert_same(runtime[part], legacy[part], what=f"{model}/{part}", rtol=0.0)


def _without_racy_reads(actual: dict, expected: dict, *, check: bool) -> tuple[dict, dict]:
    """The summaries but the linear models' racy reads, which are checked by
    harness.assert_racy_reads (``check``; else only by their steps)."""
    for tag in RACY_SUMMARIES:
        if tag in expected:
            if check:
                assert_racy_reads(actual[tag], expected[tag], what=tag)
            assert [s for s, _ in actual[tag]] == [s for s, _ in expected[tag]], tag
    return tuple(
        {tag: series for tag, series in summaries.items() if tag not in RACY_SUMMARIES}
        for summaries in (actual, expected)
    )


def assert_equal_until_the_onset(actual: dict, expected: dict, *, what: str) -> None:
    """The same tags and steps; values equal before the first step where any
    differs, and within RECIPROCAL_DRIFT_RTOL of their own size at it."""
    assert sorted(actual) == sorted(expected), what
    pairs = []  # (step, tag, actual value, expected value)
    for tag, series in expected.items():
        assert [step for step, _ in actual[tag]] == [step for step, _ in series], tag
        pairs += [(s, tag, a, e) for (s, e), (_, a) in zip(series, actual[tag], strict=True)]
    onset = min((s for s, _, a, e in pairs if a != e), default=None)
    for step, tag, actual_value, expected_value in pairs:
        if onset is None or step < onset:
            assert actual_value == expected_value, f"{what}/{tag}@{step}"
        elif step == onset:
            assert_relatively_close(
                actual_value, expected_value, rtol=RECIPROCAL_DRIFT_RTOL, what=f"{what}/{tag}"
            )


@pytest.mark.parametrize("model", DRIFTING)
def test_on_tf_2_15_s_kernels_the_binary_heads_are_bit_identical(runs, model):
    """The runtime itself adds nothing to the drift: on the kernels the legacy run
    used, everything it computes is the legacy run's, bit for bit."""
    legacy, _ = runs.records(model)
    on_tf_2_15 = runs.runtime_on_tf_2_15(model)
    summaries, legacy_summaries = _without_racy_reads(
        on_tf_2_15["summaries"], legacy["summaries"], check=True
    )
    assert_same(summaries, legacy_summaries, what=f"{model}/summaries", rtol=0.0)
    for part in ("evaluate", "predictions", "served", "variables"):
        assert_same(on_tf_2_15[part], legacy[part], what=f"{model}/{part}", rtol=0.0)


@pytest.mark.parametrize("model", DRIFTING)
def test_the_binary_heads_drift_is_tf_2_21_s_kernels(tmp_path, runs, model):
    """The fixture's TRAIN and EVAL graphs, built by tensorflow-estimator on TF
    2.15, replayed from the legacy run's last checkpoint in a plain Session on each
    version: the only ops whose outputs differ while all their inputs are equal are
    Reciprocal (Log1p's gradient) and Sigmoid ops, and some do."""
    checkpoint = runs.legacy_checkpoint(model)
    changed = set()
    for mode in ("train", "eval"):
        changed |= _changed_kernels(tmp_path / mode, model, mode, checkpoint)
    assert changed and changed <= DRIFTING_KERNELS


def _changed_kernels(directory, model: str, mode: str, checkpoint: str) -> set[str]:
    directory.mkdir()
    meta = directory / "graph.meta"
    programs = REPO / "tests" / "programs"
    subprocess.run([LEGACY_PYTHON, PROBE, model, mode, meta], cwd=programs, check=True)
    return changed_kernels(meta, checkpoint, directory)


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
        (lambda e: e.MultiLabelHead(1), "n_classes must be > 1 for multi-label"),
        (lambda e: e.MultiLabelHead(3, thresholds=[1.0]), r"thresholds must be in \(0, 1\) range"),
        (
            lambda e: e.MultiLabelHead(3, classes_for_class_based_metrics=["a"]),
            "label_vocabulary must be provided when classes_for_class_based_metrics are strings",
        ),
        (
            lambda e: e.MultiLabelHead(3, classes_for_class_based_metrics=[3]),
            r"must be in range \[0, 2\]. Given: 3",
        ),
        (lambda e: e.MultiHead([]), r"Must specify heads\. Given: \[\]"),
        (
            lambda e: e.MultiHead([e.RegressionHead(name="a")], head_weights=[1.0, 2.0]),
            "heads and head_weights must have the same size",
        ),
        (lambda e: e.MultiHead([e.RegressionHead()]), "All given heads must have name specified"),
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


def test_add_metrics_rejects_a_metric_fn_with_other_arguments_as_tensorflow_did(tmp_path):
    from runtime import estimator

    regressor = estimator.DNNRegressor([2], [tf.feature_column.numeric_column("x")])

    def metric_fn(labels, predictions, mode):
        return {}

    with pytest.raises(ValueError, match=r"has following not expected args: \['mode'\]"):
        estimator.add_metrics(regressor, metric_fn)


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


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (
            lambda v1: v1.DNNClassifier([2], [], loss_reduction="none"),
            ValueError,
            "Invalid loss_reduction: none",
        ),
        (
            lambda v1: v1.LinearClassifier([], label_vocabulary="ab"),
            TypeError,
            "label_vocabulary should be a list or tuple",
        ),
        (lambda v1: v1.DNNClassifier([2], [], n_classes=1), ValueError, "n_classes must be > 2: 1"),
        (
            lambda v1: v1.DNNLinearCombinedRegressor(),
            ValueError,
            "Either linear_feature_columns or dnn_feature_columns must be defined",
        ),
    ],
)
def test_tf_1_flavour_rejects_bad_arguments_as_tensorflow_did(make, error, message):
    from runtime.estimator import v1

    with pytest.raises(error, match=message):
        make(v1)


@pytest.mark.parametrize(
    ("optimizer", "message"),
    [
        ("Adamax", r"Unsupported optimizer name: Adamax\. Supported names are: \('Adagrad'"),
        (
            lambda: tf.keras.optimizers.legacy.SGD(0.1),
            "The given object is not an Optimizer instance",
        ),
    ],
)
def test_tf_1_flavour_takes_v1_optimizers_only(tmp_path, optimizer, message):
    """TF 1's canned estimators named or were given ``tf.compat.v1.train`` optimizers."""
    from runtime.estimator import v1

    classifier = v1.DNNClassifier(
        [2], [tf.feature_column.numeric_column("x")], optimizer=optimizer, model_dir=str(tmp_path)
    )

    def input_fn():
        features = {"x": np.ones((4, 1), np.float32)}
        return tf.data.Dataset.from_tensors((features, np.ones((4, 1), np.int64)))

    with pytest.raises(ValueError, match=message):
        classifier.train(input_fn, steps=1)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"n_classes": 1}, r"n_classes must be > 1 for multi-class classification\. Given: 1"),
        ({"n_classes": 3, "thresholds": [0.0]}, r"thresholds must be in \(0, 1\) range"),
        (
            {"n_classes": 2, "label_vocabulary": ["a"]},
            r"Length of label_vocabulary must be n_classes \(2\)\. Given: 1",
        ),
        ({"n_classes": 3, "loss_reduction": "none"}, "Invalid loss_reduction: none"),
    ],
)
def test_tf_1_multi_label_head_rejects_bad_arguments_as_tf_1_15_did(arguments, message):
    """TF 1.15's ``tf.contrib.estimator.multi_label_head`` validated up front (its
    texts: n_classes said "multi-class")."""
    from runtime.contrib import estimator as contrib_estimator

    with pytest.raises(ValueError, match=message):
        contrib_estimator.multi_label_head(**arguments)


def test_tf_1_head_interface_behaves_as_tensorflow_s_private_head():
    """``canned.head._Head`` as custom heads subclassed it: nothing enforced at
    construction, its defaults raise TensorFlow's errors, and a
    ``_create_tpu_estimator_spec`` becomes ``create_estimator_spec``'s spec."""
    from runtime.estimator import EstimatorSpec, ModeKeys, canned, tpu

    class Partial(canned._Head):
        pass

    class FromTpuSpec(canned._Head):
        def _create_tpu_estimator_spec(self, features, mode, logits, *args):
            return tpu.TPUEstimatorSpec(mode=mode, predictions={"logits": logits})

    with pytest.raises(NotImplementedError, match="Calling an abstract method"):
        _ = Partial().logits_dimension
    with pytest.raises(NotImplementedError, match=r"must implement `create_estimator_spec\(\)`"):
        Partial().create_estimator_spec(features={}, mode=ModeKeys.PREDICT, logits=None)
    logits = tf.constant([[1.0]])
    spec = FromTpuSpec().create_estimator_spec(features={}, mode=ModeKeys.PREDICT, logits=logits)
    assert isinstance(spec, EstimatorSpec) and spec.predictions["logits"] is logits


def test_tf_1_private_head_factories_are_the_contrib_heads_summed_by_default():
    """``canned.head``'s factories, which TF 1.15's ``tf.contrib.estimator`` heads
    called with the loss averaged over the batch: the same heads (compared with TF
    by the v1_*_head programs), the loss summed unless the call says otherwise."""
    from runtime.canned.v1 import head as v1_head
    from runtime.estimator import canned

    reduction = tf.compat.v1.losses.Reduction
    regression = canned._regression_head(label_dimension=2, name="spend")
    assert isinstance(regression, v1_head._RegressionHead)
    assert (regression.logits_dimension, regression.name) == (2, "spend")
    assert regression._loss_reduction == reduction.SUM
    binary = canned._binary_logistic_head_with_sigmoid_cross_entropy_loss("weight", [0.3])
    assert isinstance(binary, v1_head._BinaryHead) and binary._loss_reduction == reduction.SUM
    assert binary._weight_column == "weight"
    multi_class = canned._multi_class_head_with_softmax_cross_entropy_loss(
        3, loss_reduction=reduction.MEAN
    )
    assert isinstance(multi_class, v1_head._MultiClassHead)
    assert (multi_class.logits_dimension, multi_class._loss_reduction) == (3, reduction.MEAN)
    either = canned._binary_logistic_or_multi_class_head
    assert isinstance(either(2, None, None, reduction.SUM), v1_head._BinaryHead)
    assert isinstance(either(4, None, None, reduction.SUM), v1_head._MultiClassHead)
    with pytest.raises(ValueError, match="Invalid loss_reduction: none"):
        canned._regression_head(loss_reduction="none")
    with pytest.raises(TypeError, match="label_vocabulary should be a list or tuple"):
        canned._binary_logistic_head_with_sigmoid_cross_entropy_loss(label_vocabulary="ab")


@pytest.mark.parametrize(
    ("opt", "message"),
    [
        ("Adagrad", "learning_rate must be specified when opt is string"),
        ("Adadelta", r"Unsupported optimizer name: Adadelta\. Supported names are"),
        (lambda: "sgd", "The given object is not an Optimizer instance. Given: sgd"),
    ],
)
def test_get_optimizer_instance_rejects_as_tensorflow_did(opt, message):
    from runtime.estimator.canned import get_optimizer_instance

    with pytest.raises(ValueError, match=message):
        get_optimizer_instance(opt)


@pytest.mark.parametrize(
    ("flavour", "make", "message"),
    [
        (
            "",
            lambda e, sdca, x: e.LinearClassifier([x], optimizer=sdca, sparse_combiner="mean"),
            'sparse_combiner must be "sum" when optimizer is a LinearSDCA object',
        ),
        (
            "",
            lambda e, sdca, x: e.LinearClassifier([x], n_classes=3, optimizer=sdca),
            "LinearSDCA cannot be used in a multi-class setting",
        ),
        (
            "",
            lambda e, sdca, x: e.LinearRegressor([x], label_dimension=2, optimizer=sdca),
            "LinearSDCA can only be used with one-dimensional label",
        ),
        (
            ".v1",
            lambda e, sdca, x: e.LinearClassifier([x], n_classes=4, optimizer=sdca),
            "LinearSDCA cannot be used in a multi-class setting",
        ),
    ],
)
def test_linear_sdca_arguments_are_refused_as_tensorflow_did(flavour, make, message):
    from runtime import estimator

    namespace = importlib.import_module("runtime.estimator" + flavour)
    sdca = estimator.experimental.LinearSDCA("example_id")
    with pytest.raises(ValueError, match=message):
        make(namespace, sdca, tf.feature_column.numeric_column("x"))


@pytest.mark.parametrize(
    ("regularization", "message"),
    [
        ({"symmetric_l2_regularization": 0.0}, "symmetric_l2_regularization should be positive"),
        (
            {"symmetric_l1_regularization": -1.0},
            "symmetric_l1_regularization should be non-negative",
        ),
    ],
)
def test_linear_sdca_regularization_is_checked_when_training_as_tensorflow_did(
    tmp_path, regularization, message
):
    from runtime import estimator

    regressor = estimator.LinearRegressor(
        [tf.feature_column.numeric_column("x")],
        model_dir=str(tmp_path),
        optimizer=estimator.experimental.LinearSDCA("example_id", **regularization),
    )

    def input_fn():
        features = {"x": np.ones((2, 1), np.float32), "example_id": np.array(["a", "b"])}
        return tf.data.Dataset.from_tensors((features, np.ones((2, 1), np.float32)))

    with pytest.raises(ValueError, match=message):
        regressor.train(input_fn, steps=1)
