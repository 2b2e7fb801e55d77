"""How prove compares two sides' outputs and classifies what differs, on outputs
built here (the runs themselves: test_prove_runs.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.migrator.prove import comparison, report, verdict
from estimator_revival.migrator.prove.kernel_changes import CONTROL_FLOW, KERNEL_CHANGES
from estimator_revival.migrator.prove.outputs import SideOutputs, read


def outputs(summaries=None, checkpoints=None, evaluations=(), predictions=()) -> SideOutputs:
    return SideOutputs(
        summaries=summaries or {},
        checkpoints=checkpoints or {},
        exports={},
        evaluations=list(evaluations),
        predictions=list(predictions),
        graph_ops=set(),
    )


def checkpoint(path, **variables):
    """A checkpoint of ``variables`` at ``path`` (a prefix)."""
    holder = tf.Module()
    for name, value in variables.items():
        setattr(holder, name, tf.Variable(value))
    return tf.train.Checkpoint(**{name: getattr(holder, name) for name in variables}).write(
        str(path)
    )


LOSS = {"out/model_dir": {"loss": [(1, 0.5), (2, 0.25), (3, 0.125)]}}


def test_equal_outputs_are_identical():
    found = comparison.compare(outputs(LOSS), outputs(LOSS))
    assert found.differences == []
    assert found.compared == {"summary": 3}
    assert verdict.classify(found) == verdict.IDENTICAL


def test_the_first_differing_step_of_a_summary_is_named_with_both_values():
    changed = {"out/model_dir": {"loss": [(1, 0.5), (2, 0.2500001), (3, 0.2)]}}
    found = comparison.compare(outputs(LOSS), outputs(changed))
    (difference,) = found.differences
    assert (difference.name, difference.where, difference.step) == ("loss", "out/model_dir", 2)
    assert (difference.expected, difference.actual) == (0.25, 0.2500001)
    assert difference.relative == pytest.approx(0.0000001 / 0.25)
    assert verdict.classify(found) == verdict.NOT_EXPLAINED


def test_a_nan_equals_a_nan_and_a_step_label_is_compared():
    nan = {"out/eval": {"auc": [(10, math.nan)]}}
    assert comparison.compare(outputs(nan), outputs(nan)).differences == []
    relabelled = {"out/eval": {"auc": [(11, math.nan)]}}
    (difference,) = comparison.compare(outputs(nan), outputs(relabelled)).differences
    assert "another step" in difference.note


def test_what_only_one_side_has_differs():
    more = {"out/model_dir": {**LOSS["out/model_dir"], "learning_rate": [(1, 0.1)]}}
    (difference,) = comparison.compare(outputs(LOSS), outputs(more)).differences
    assert difference.name == "learning_rate" and "compared run" in difference.note


def test_checkpoint_variables_each_relative_to_its_own_magnitude(tmp_path):
    expected = checkpoint(tmp_path / "a" / "model.ckpt-40", w=[1e-3, 1000.0], b=[0.0])
    actual = checkpoint(tmp_path / "b" / "model.ckpt-40", w=[1e-3, 1000.001], b=[0.0])
    found = comparison.compare(
        outputs(checkpoints={"out/model.ckpt-40": expected}),
        outputs(checkpoints={"out/model.ckpt-40": actual}),
    )
    (difference,) = found.differences
    assert difference.kind == "checkpoint" and difference.step == 40
    assert difference.name.startswith("w/")
    # the element that changed, by its own value (not by the array's largest or
    # its smallest); 1000.001 is 1000.0009765625 in float32
    assert difference.relative == (float(np.float32(1000.001)) - 1000.0) / 1000.0
    assert found.compared["checkpoint"] == 3  # w, b and the object graph


def test_only_training_summaries_differing_with_equal_checkpoints_is_a_race(tmp_path):
    prefix = checkpoint(tmp_path / "model.ckpt-3", w=[1.0])
    racy = {"out/model_dir": {**LOSS["out/model_dir"], "fraction_of_zero_weights": [(1, 0.5)]}}
    raced = {"out/model_dir": {**LOSS["out/model_dir"], "fraction_of_zero_weights": [(1, 0.4)]}}
    found = comparison.compare(
        outputs(racy, {"out/model.ckpt-3": prefix}), outputs(raced, {"out/model.ckpt-3": prefix})
    )
    assert verdict.classify(found) == verdict.RACED
    assert verdict.overall(verdict.RACED, legacy_differs=False) == verdict.EXPLAINED
    # the same difference in an evaluation's summaries is not a race
    evaluation = {"out/model_dir/eval": racy["out/model_dir"]}
    other = {"out/model_dir/eval": raced["out/model_dir"]}
    found = comparison.compare(
        outputs(evaluation, {"out/model.ckpt-3": prefix}),
        outputs(other, {"out/model.ckpt-3": prefix}),
    )
    assert verdict.classify(found) == verdict.NOT_EXPLAINED


def test_evaluations_and_predictions_are_compared_call_by_call():
    expected = outputs(
        evaluations=[{"accuracy": 0.75, "loss": 0.5}],
        predictions=[{"classes": np.array([b"a", b"b"]), "logits": np.ones((2, 3), np.float32)}],
    )
    actual = outputs(
        evaluations=[{"accuracy": 0.75, "loss": 0.5}, {"accuracy": 1.0, "loss": 0.1}],
        predictions=[{"classes": np.array([b"a", b"c"]), "logits": np.ones((2, 3), np.float32)}],
    )
    found = comparison.compare(expected, actual)
    kinds = sorted((d.kind, d.name) for d in found.differences)
    assert kinds == [("evaluation", "calls"), ("prediction", "classes")]
    assert verdict.overall(verdict.classify(found), True) == verdict.NOT_EXPLAINED


def test_the_legacy_drift_names_the_changed_kernels_its_graphs_have():
    before = {"out/model_dir": {"loss": [(1, 0.5), (2, 0.25)]}}
    after = {"out/model_dir": {"loss": [(1, 0.5), (2, 0.25 * (1 + 1e-7))]}}
    found = comparison.compare(outputs(before), outputs(after))
    drift = verdict.legacy_drift(found, {"Tanh", "MatMul", "Enter"}, onednn=True, tf1=True)
    assert set(drift.kernels) == {"Tanh", CONTROL_FLOW}
    assert drift.onset == 2 and drift.within_bound
    far = {"out/model_dir": {"loss": [(1, 0.5), (2, 0.26)]}}
    found = comparison.compare(outputs(before), outputs(far))
    drift = verdict.legacy_drift(found, {"Tanh"}, onednn=True, tf1=False)
    assert set(drift.kernels) == {"Tanh"} and drift.within_bound is False
    # a kernel whose change shows only with oneDNN off is not named with it on
    assert KERNEL_CHANGES["Softmax"].shows_with(onednn=False)
    assert not verdict.legacy_drift(found, {"Softmax"}, onednn=True, tf1=False).kernels


def test_reading_pairs_timestamped_exports_by_their_place(tmp_path):
    for stamp in ("1700000000", "1700000100"):
        (tmp_path / "export" / "best" / stamp).mkdir(parents=True)
        (tmp_path / "export" / "best" / stamp / "saved_model.pb").write_bytes(b"")
    read_back = read({"out": tmp_path}, tmp_path / "record")
    assert sorted(read_back.exports) == ["out/export/best/#0", "out/export/best/#1"]


def test_the_plot_shows_the_training_loss_however_the_program_named_it():
    named = {
        "out/output": {"loss_1": [(1, 0.5)] * 3, "train/loss": [(1, 0.5)] * 3, "xloss": [(1, 1)]},
        "out/output/eval": {"loss": [(3, 0.4)]},
    }
    assert report.loss_series(named) == ("out/output", "loss_1")  # model_fn took "loss"
    named["out/output"]["loss"] = [(1, 0.5)] * 3
    assert report.loss_series(named) == ("out/output", "loss")
    assert report.loss_series({"out/model/eval": {"loss": [(3, 0.4)]}}) is None
