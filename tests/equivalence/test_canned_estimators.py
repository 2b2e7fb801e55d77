"""The canned estimators (issue 18) against tensorflow-estimator 2.15's:
tests/programs/canned_estimators.py trains, evaluates, predicts and exports each
model of MODELS on each side (tests/helpers/sides.py): the TF 2 flavour (tf.estimator.*)
and TF 1's (tf.compat.v1.estimator.*, the v1_* models, with TF 1.15's
tf.contrib.estimator heads for the *Estimator classes).

The runtime equals the legacy program on TF 2.21 bit for bit: every summary of
every step, the evaluate dict, predictions, served outputs and every variable. The
legacy program on TF 2.15 equals it bit for bit too, but for the kernels
KERNEL_DRIFT names, found changed on each model's own TRAIN and EVAL graphs
(tests/helpers/kernel_drift.py): the binary and multi-label heads' sigmoid cross-entropy
(Log1p's gradient, a Reciprocal) and probabilities (Sigmoid), the DNNs' tanh.
"""

import importlib
import json
import math
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from helpers.harness import (
    RACY_SUMMARIES,
    REPO,
    assert_racy_reads,
    assert_relatively_close,
    program_record,
)
from helpers.kernel_drift import (
    assert_equal_until_the_drift,
    assert_named,
    changed_kernels_of,
    drift_bound,
    showing_here,
)
from helpers.shared_runs import computed_once, shared_directory
from helpers.sides import LEGACY, REFERENCE, RUNTIME

PROGRAM = REPO / "tests" / "programs" / "canned_estimators.py"
REPLAY = REPO / "tests" / "programs" / "first_step_replay.py"
PROBE = REPO / "tests" / "programs" / "canned_drift_probe.py"
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


def _runs_alone(model: str) -> bool:
    """An SDCA model runs in a process of its own: TF 1's Sessions keep its
    example-state tables in the process's resource manager, where the next SDCA
    model would find them."""
    return "sdca" in model


def _chunks(models, size: int) -> list[list[str]]:
    """``models`` in the runs that run them: each SDCA model alone, the others
    ``size`` at a time."""
    shared = [model for model in models if not _runs_alone(model)]
    return [[model] for model in models if _runs_alone(model)] + [
        shared[start : start + size] for start in range(0, len(shared), size)
    ]


def _chunk_of(chunks: list[list[str]], model: str) -> tuple[int, list[str]]:
    """The index of the chunk that runs ``model``, and the chunk."""
    return next((index, chunk) for index, chunk in enumerate(chunks) if model in chunk)


class CannedRuns:
    """Each estimator of the program, run by each side once per test run, in
    chunks of CHUNK models per process (starting TensorFlow and the program, about
    5 s, is paid once per chunk; a model takes about 2 s more); the runs are shared
    by the test processes (helpers/shared_runs.py), whichever of them runs a
    chunk's tests."""

    CHUNK = 11

    def __init__(self, directory):
        self.directory = directory
        self._chunks = _chunks(MODELS, self.CHUNK)

    def records(self, model: str) -> dict:
        """``{side name: record}``."""
        index, chunk = _chunk_of(self._chunks, model)
        return computed_once(self.directory, f"chunk-{index}", lambda: self._run(chunk))[model]

    def _run(self, chunk: list[str]) -> dict:
        by_side = {
            side.name: program_record(side, PROGRAM, self.directory / side.name, chunk)
            for side in (LEGACY, REFERENCE, RUNTIME)
        }
        return {name: {side: record[name] for side, record in by_side.items()} for name in chunk}


class ResumedRuns:
    """Each RESUMED model's model_dir after ``first``'s run in CannedRuns,
    copied for the legacy program and the runtime on TF 2.21, each of which
    trains on from it, in as few processes as CannedRuns' chunks."""

    def __init__(self, runs: CannedRuns, directory):
        self._runs = runs
        self.directory = directory
        self._chunks = _chunks(RESUMED, len(RESUMED))

    def records(self, first, model: str) -> dict:
        """``{side name: record}`` of ``model`` resumed from ``first``'s model_dir."""
        index, chunk = _chunk_of(self._chunks, model)
        key = f"{first.name}-{index}"
        return computed_once(self.directory, key, lambda: self._run(first, chunk))[model]

    def _run(self, first, chunk: list[str]) -> dict:
        for name in chunk:
            self._runs.records(name)  # first's run of it
        by_side = {}
        for side in (REFERENCE, RUNTIME):
            model_dir = self.directory / first.name / side.name
            for name in chunk:
                shutil.copytree(self._runs.directory / first.name / name, model_dir / name)
            by_side[side.name] = program_record(side, PROGRAM, model_dir, chunk)
        return {name: {side: record[name] for side, record in by_side.items()} for name in chunk}


@pytest.fixture(scope="module")
def runs(request):
    return CannedRuns(shared_directory(request, "canned"))


@pytest.fixture(scope="module")
def resumed_runs(runs, request):
    return ResumedRuns(runs, shared_directory(request, "resumed"))


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
        assert_relatively_close(actual, expected, rtol=rtol, what=what, floor=0.0)
    elif isinstance(expected, list) and expected and isinstance(expected[0], dict | list):
        assert len(actual) == len(expected), what
        for index, (one, other) in enumerate(zip(actual, expected, strict=True)):
            assert_same(one, other, what=f"{what}[{index}]", rtol=rtol)
    else:
        assert actual == expected, what


# The kernels that changed between TF 2.15 and 2.21 that each model's graphs
# compute with (test_each_model_names_the_kernels_that_changed_on_its_graphs).
# Binary and multi-class heads take their probabilities' softmax (of [0, logit]
# for two classes).
_SIGMOID_CROSS_ENTROPY = {"Reciprocal", "Sigmoid", "Softmax"}  # Log1p's gradient; probabilities
_HINGE_LOSS = {"Sigmoid", "Softmax"}  # the probabilities only
_SOFTMAX = {"Softmax"}
_LOGISTIC = {"Reciprocal", "Sigmoid"}  # sigmoid cross-entropy, sigmoid probabilities only
KERNEL_DRIFT = {
    "binary": _SIGMOID_CROSS_ENTROPY,
    "multi_class": _SOFTMAX,
    "linear_binary": _SIGMOID_CROSS_ENTROPY,
    "linear_multi_class": _SOFTMAX,
    "wide_deep_binary": _SIGMOID_CROSS_ENTROPY,
    "wide_deep_multi_class": {"Pow", *_SOFTMAX},  # Keras Adam: beta ** step
    "baseline_binary": _SIGMOID_CROSS_ENTROPY,
    "baseline_multi_class": _SOFTMAX,
    "logistic_regression": _LOGISTIC,
    "multi_label": _LOGISTIC,  # sigmoid probabilities
    "multi_label_sparse_ids": _LOGISTIC,
    "multi_label_sparse_strings": _LOGISTIC,
    "binary_thresholds_loss_fn": _HINGE_LOSS,
    "linear_sdca_binary": _HINGE_LOSS,  # SDCA's own loss
    "multi_head": _SOFTMAX,  # its multi-class head
    "v1_binary": _SIGMOID_CROSS_ENTROPY,
    "v1_multi_class": _SOFTMAX,
    "v1_linear_binary": _SIGMOID_CROSS_ENTROPY,
    "v1_linear_multi_class": _SOFTMAX,
    "v1_wide_deep_binary": _SIGMOID_CROSS_ENTROPY,
    "v1_wide_deep_multi_class": _SOFTMAX,
    "v1_baseline_binary": _SIGMOID_CROSS_ENTROPY,
    "v1_baseline_multi_class": _SOFTMAX,
    "v1_binary_thresholds_head": _HINGE_LOSS,
    "v1_multi_class_head": _SOFTMAX,
    "v1_logistic_head": _LOGISTIC,
    "v1_linear_sdca_binary": _HINGE_LOSS,
    "v1_multi_label_head": _LOGISTIC,
    "v1_multi_label_head_named": _LOGISTIC,
    "regression": {"Pow", "Tanh"},  # Keras Adam's beta ** step; the activation
    "v1_regression": {"Tanh"},
}


@pytest.mark.parametrize("model", MODELS)
def test_losses_metrics_predictions_serving_and_variables_match(runs, model):
    records = runs.records(model)
    legacy, reference, runtime = records["legacy"], records["reference"], records["runtime"]
    family, head = _family_and_head(model)
    metrics, predictions, signatures = HEADS[head]
    assert set(reference["evaluate"]) == metrics
    assert set(reference["predictions"][0]) == predictions
    assert set(reference["served"]) == signatures
    assert FAMILY_VARIABLES[family] <= set(reference["variables"])
    assert len(reference["summaries"]["loss"]) == 12  # every step's loss
    assert_runtime_equals_reference(runtime, reference, what=model)
    assert_versions_agree(
        legacy,
        reference,
        KERNEL_DRIFT.get(model, set()),
        what=model,
        replay_first_step=first_step_replay(runs.directory, model, legacy, reference),
    )


@pytest.mark.parametrize("model", ["regression", "v1_regression"])
def test_tanh_models_with_onednn_off_as_tensorflow_defaults_on_cpus_without_avx512_vnni(
    tmp_path, model
):
    """With oneDNN off (TensorFlow's default on CPUs without AVX-512 VNNI), the tanh
    layers run Eigen's Tanh, which changed: the legacy program's losses on TF 2.15
    differ from its own on TF 2.21 from the first step, and the runtime equals the
    TF 2.21 run bit for bit, every value. (How far the versions' first losses may
    differ is not asserted here: a loss downstream of the changed kernel is not
    bounded by the kernel's own bound; see docs/proof.md.)"""
    records = {
        side.name: program_record(
            side, PROGRAM, tmp_path / side.name, [model], TF_ENABLE_ONEDNN_OPTS="0"
        )[model]
        for side in (LEGACY, REFERENCE, RUNTIME)
    }
    legacy, reference = records["legacy"], records["reference"]
    assert legacy["summaries"]["loss"][0] != reference["summaries"]["loss"][0]
    assert_runtime_equals_reference(records["runtime"], reference, what=model)
    replay = first_step_replay(tmp_path, model, legacy, reference, TF_ENABLE_ONEDNN_OPTS="0")
    assert "loss" in replay({"Tanh"})  # the first loss's difference is Tanh's, exactly
    with pytest.raises(AssertionError, match="other kernels than"):
        replay({"Sigmoid"})  # which the regressor lacks: nothing fed, TF 2.21 stands


def assert_runtime_equals_reference(runtime: dict, reference: dict, *, what: str) -> None:
    """Bit for bit; summaries of the reads TF 1's Session raced with the update
    equal the runtime's read before the update or the next step's
    (harness.assert_racy_reads)."""
    runtime_summaries, reference_summaries = _without_racy_reads(runtime, reference, check=True)
    assert_same(runtime_summaries, reference_summaries, what=f"{what}/summaries", rtol=0.0)
    for part in ("evaluate", "predictions", "served", "variables"):
        assert_same(runtime[part], reference[part], what=f"{what}/{part}", rtol=0.0)


def first_step_replay(directory, model: str, old: dict, new: dict, **env: str):
    """``replay(kernels)``: each first-step summary of the legacy program's runs on TF
    2.15 (``old``) and 2.21 (``new``), whose model_dirs are ``directory/<side>/model``,
    computed again from their ``model.ckpt-0`` in a plain Session
    (tests/programs/first_step_replay.py): each run's own value on its TensorFlow,
    and TF 2.21's equal to TF 2.15's once fed TF 2.15's outputs of ``kernels``, so
    that the step's difference between the versions is theirs, exactly. Asserts
    that, and returns the tags shown."""

    def replay(kernels: set[str]) -> frozenset[str]:
        values = {}
        runs = (("old", LEGACY, None), ("new", REFERENCE, None), ("fed", REFERENCE, "old"))
        for label, side, fed in runs:
            out = directory / f"{model}-first-step-{label}.npz"
            command = [*side.interpreter, str(REPLAY), str(directory / side.name / model)]
            command += [str(out), ",".join(sorted(kernels))]
            if fed is not None:
                command.append(str(directory / f"{model}-first-step-{fed}.npz"))
            subprocess.run(command, env=side.env(TF_CPP_MIN_LOG_LEVEL="3", **env), check=True)
            values[label] = dict(np.load(out))
        shown = set()
        for key, value in values["old"].items():
            tag = key.removeprefix("summary/")
            if tag == key or tag not in old["summaries"] or tag not in new["summaries"]:
                continue
            what = f"{model} {tag}@1"
            assert old["summaries"][tag][0] == [1, float(value)], what
            assert new["summaries"][tag][0] == [1, float(values["new"][key])], what
            assert values["fed"][key] == value, f"{what}: other kernels than {kernels} changed it"
            shown.add(tag)
        return frozenset(shown)

    return replay


def assert_versions_agree(
    old: dict, new: dict, kernels: set[str], *, what: str, replay_first_step=None
) -> None:
    """The legacy program on TF 2.15 (``old``) and on 2.21 (``new``): bit for bit
    without named kernels; with them, every step's summaries equal until the
    drift's onset (kernel_drift), and, if training did not drift (the same
    variables), the evaluation, predictions and served outputs each within the
    named kernels' bound of its own value; else by structure. Only the named
    kernels whose change shows in this configuration count. A first step whose
    values move further than that bound is shown exactly by ``replay_first_step``
    (first_step_replay)."""
    kernels = showing_here(kernels)
    new_summaries, old_summaries = _without_racy_reads(new, old, check=False)
    pairs = [
        (tag, step, actual, expected)
        for tag, series in old_summaries.items()
        for (step, expected), (_, actual) in zip(series, new_summaries[tag], strict=True)
    ]
    assert sorted(new_summaries) == sorted(old_summaries), what
    onset = assert_equal_until_the_drift(
        pairs, kernels, what=what, replay_first_step=replay_first_step
    )
    drifted = onset is not None or new["variables"] != old["variables"]
    rtol = 0.0 if not kernels else math.inf if drifted else drift_bound(kernels)
    for part in ("evaluate", "predictions", "served", "variables"):
        assert_same(new[part], old[part], what=f"{what}/{part}", rtol=rtol)


def _without_racy_reads(actual: dict, expected: dict, *, check: bool) -> tuple[dict, dict]:
    """Both records' summaries but the linear models' racy reads, which are checked
    by harness.assert_racy_reads (``check``; else only by their steps)."""
    for tag in RACY_SUMMARIES:
        if tag in expected["summaries"]:
            actual_series, expected_series = actual["summaries"][tag], expected["summaries"][tag]
            if check:
                assert_racy_reads(actual_series, expected_series, what=tag)
            assert [s for s, _ in actual_series] == [s for s, _ in expected_series], tag
    return tuple(
        {tag: series for tag, series in record["summaries"].items() if tag not in RACY_SUMMARIES}
        for record in (actual, expected)
    )


def test_each_model_names_the_kernels_that_changed_on_its_graphs(tmp_path):
    """Each model's TRAIN and EVAL graphs, built by tensorflow-estimator on TF 2.15
    and trained three steps (tests/programs/canned_drift_probe.py), run on both
    versions: every kernel whose outputs changed is one KERNEL_DRIFT names, and
    every one it names is an op of them (tests/helpers/kernel_drift.py)."""
    exported = subprocess.run(
        [*LEGACY.interpreter, str(PROBE), str(tmp_path / "graphs"), *MODELS],
        cwd=PROBE.parent,
        env=LEGACY.env(),
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr[-4000:]
    graphs = {name: tuple(paths) for name, paths in json.loads(exported.stdout).items()}
    changed = changed_kernels_of(graphs, tmp_path / "kernels")
    wrong = []  # every model's, to fix the table in one run
    for model in MODELS:
        probes = [changed[f"{model}/{mode}"] for mode in ("train", "eval")]
        try:
            assert_named(probes, KERNEL_DRIFT.get(model, set()), what=model)
        except AssertionError as error:
            wrong.append(str(error))
    assert not wrong, "\n".join(wrong)


# A model of each family and flavour: a DNN with Adam's slots, wide & deep on a
# vocabulary file and weighted ids and with three classes, the linear models (TF
# 1's with partitioned variables), the baseline, TF 1's DNN with batch norm, and
# SDCA (its tables of example states).
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
@pytest.mark.parametrize("first", [LEGACY, RUNTIME], ids=lambda side: side.name)
def test_a_model_dir_trains_on_under_the_other_side(resumed_runs, model, first):
    """``first``'s model_dir after its run (12 steps, checkpointed: written by TF
    2.15's Estimator or by the runtime) is copied for the legacy program and the
    runtime on TF 2.21, each of which trains 12 more steps from it, evaluates,
    predicts and exports: checkpoints interchange both ways, and both continue with
    the same numbers."""
    continued = resumed_runs.records(first, model)
    reference, runtime = continued["reference"], continued["runtime"]
    assert [step for step, _ in reference["summaries"]["loss"]] == list(range(1, 25))
    assert reference["evaluate"]["global_step"] == 24
    assert_runtime_equals_reference(runtime, reference, what=model)


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
    from estimator_revival import estimator

    with pytest.raises(ValueError, match=message):
        make(estimator)


def test_add_metrics_rejects_a_metric_fn_with_other_arguments_as_tensorflow_did(tmp_path):
    from estimator_revival import estimator

    regressor = estimator.DNNRegressor([2], [tf.feature_column.numeric_column("x")])

    def metric_fn(labels, predictions, mode):
        return {}

    with pytest.raises(ValueError, match=r"has following not expected args: \['mode'\]"):
        estimator.add_metrics(regressor, metric_fn)


def _train_with(tmp_path, **arguments):
    from estimator_revival import estimator

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
    from estimator_revival import estimator

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
    from estimator_revival.estimator import v1

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
    from estimator_revival.estimator import v1

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
    from estimator_revival.contrib import estimator as contrib_estimator

    with pytest.raises(ValueError, match=message):
        contrib_estimator.multi_label_head(**arguments)


def test_tf_1_head_interface_behaves_as_tensorflow_s_private_head():
    """``canned.head._Head`` as custom heads subclassed it: nothing enforced at
    construction, its defaults raise TensorFlow's errors, and a
    ``_create_tpu_estimator_spec`` becomes ``create_estimator_spec``'s spec."""
    from estimator_revival.estimator import EstimatorSpec, ModeKeys, canned, tpu

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
    from estimator_revival.canned.v1 import head as v1_head
    from estimator_revival.estimator import canned

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
    from estimator_revival.estimator.canned import get_optimizer_instance

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
    from estimator_revival import estimator

    namespace = importlib.import_module("estimator_revival.estimator" + flavour)
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
    from estimator_revival import estimator

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


def test_linear_sdca_updates_the_weights_after_the_step_loss_read_them():
    """TF 1's Session raced the loss's reads of the weights with the chief hook's
    update of them, the reads usually first (docs/canned.md). The runtime's update
    waits for the loss by data, so that no schedule can compute the loss from an
    updated weight (a clean-clone CI run once saw one: linear_sdca_regression's
    loss at step 16 off by one one-hot weight's share of that step's update)."""
    from estimator_revival import estimator
    from estimator_revival.tf1 import unfetched_updates

    regressor = estimator.LinearRegressor(
        [
            tf.feature_column.numeric_column("x"),
            tf.feature_column.categorical_column_with_hash_bucket("c", 5),
        ],
        optimizer=estimator.experimental.LinearSDCA("example_id"),
    )
    with tf.Graph().as_default() as graph:
        tf.compat.v1.train.create_global_step()
        features = {
            "x": tf.constant([[1.0]]),
            "c": tf.constant([["a"]]),
            "example_id": tf.constant(["e"]),
        }
        spec = regressor.model_fn(features, tf.constant([[1.0]]), "train", regressor.config)
    variables = graph.get_collection("trainable_variables")
    weights = {v.op.name for v in variables if not v.op.name.endswith("_unshrunk")}
    initializers = {v.initializer for v in variables}
    updates = [
        op
        for op in graph.get_operations()
        if op.type == "AssignVariableOp"
        and op.inputs[0].op.name in weights
        and op not in initializers
    ]
    assert len(updates) == len(weights) == 3  # x, c and the bias
    for update in updates:
        assert spec.loss.op in unfetched_updates.ancestors(update), update.name
