"""train_and_evaluate on the runtime (docs/estimator_contract.md §1.9). That local mode
evaluates and exports exactly as tf.estimator did is proven by the
train_and_evaluate_exporters program in tests/equivalence/test_equivalence.py."""

import json
import os
import types

import pytest

from estimator_revival import estimator
from estimator_revival.distribute import strategy_selection
from helpers.runtime_models import (
    event_scalars,
    finite_input_fn,
    make,
    predict_input_fn,
    raw_receiver_fn,
    train_input_fn,
)


def test_throttled_evaluation_runs_once_at_the_end(tmp_path):
    est = make(tmp_path / "model", save_checkpoints_steps=5)
    metrics, exports = estimator.train_and_evaluate(
        est,
        estimator.TrainSpec(train_input_fn, max_steps=20),
        estimator.EvalSpec(finite_input_fn, throttle_secs=3600, start_delay_secs=0),
    )
    assert metrics["global_step"] == 20
    assert exports == []
    # Saves at 0 (the first: skipped), 5 (evaluated), 10 and 15 (within the
    # throttle), 20 (evaluated at the end, as the last save was not).
    assert event_scalars(tmp_path / "model" / "eval")["mae"] == [5, 20]


def test_evaluator_task_evaluates_until_max_steps(tmp_path, monkeypatch):
    make(tmp_path / "model", save_checkpoints_steps=10).train(train_input_fn, max_steps=10)
    tf_config = {
        "cluster": {"chief": ["localhost:2222"]},
        "task": {"type": "evaluator", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    evaluator = make(tmp_path / "model")
    metrics, _ = estimator.train_and_evaluate(
        evaluator,
        estimator.TrainSpec(train_input_fn, max_steps=10),
        estimator.EvalSpec(finite_input_fn, start_delay_secs=0, throttle_secs=0),
    )
    assert metrics["global_step"] == 10
    assert event_scalars(tmp_path / "model" / "eval")["mae"] == [10]


def test_a_second_evaluator_is_rejected(tmp_path, monkeypatch):
    tf_config = {
        "cluster": {"chief": ["localhost:2222"]},
        "task": {"type": "evaluator", "index": 1},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    with pytest.raises(ValueError, match="only be one `evaluator` task"):
        estimator.train_and_evaluate(
            make(tmp_path / "model"),
            estimator.TrainSpec(train_input_fn, max_steps=10),
            estimator.EvalSpec(finite_input_fn),
        )


def test_multi_worker_training_needs_step_based_checkpoints(tmp_path, monkeypatch):
    """Checked before any worker connects: a time-based cadence would make the
    workers save at different steps."""
    tf_config = {
        "cluster": {"chief": ["localhost:2222"], "worker": ["localhost:2223"]},
        "task": {"type": "chief", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    fake_strategy = types.SimpleNamespace(
        extended=types.SimpleNamespace(_in_multi_worker_mode=lambda: True)
    )
    monkeypatch.setattr(strategy_selection, "training_strategy", lambda config: fake_strategy)
    with pytest.raises(
        ValueError, match=r"at the same global steps, which save_checkpoints_secs cannot"
    ):
        make(tmp_path / "model", save_checkpoints_secs=60).train(train_input_fn, max_steps=3)


def test_latest_exporter_keeps_the_newest_exports(tmp_path):
    est = make(tmp_path / "model", save_checkpoints_steps=5)
    _, exports = estimator.train_and_evaluate(
        est,
        estimator.TrainSpec(train_input_fn, max_steps=20),
        estimator.EvalSpec(
            finite_input_fn,
            throttle_secs=0,
            start_delay_secs=0,
            exporters=estimator.LatestExporter("latest", raw_receiver_fn, exports_to_keep=2),
        ),
    )
    kept = sorted(os.listdir(tmp_path / "model" / "export" / "latest"))
    assert len(kept) == 2
    assert os.path.basename(exports[0]).decode() == kept[-1]
    assert list(est.predict(predict_input_fn))  # the model still predicts after exports
