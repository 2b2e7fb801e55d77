"""Whole legacy projects end to end (fixtures/projects/): each runs as written on
TF 2.15 + tensorflow-estimator, is migrated with ``migrate``, and its migrated copy
runs on TF 2.21 + the runtime; then everything the two runs wrote is compared:
result files, every scalar summary (per-step losses included), checkpoints, and
the served outputs of the exports.

A project whose input is in the graph also has its legacy training graph replayed
in a plain TF 2.21 Session (tests/programs/legacy_graph_replay.py): the runtime on
TF 2.21 must equal that reference bit for bit, so that only TensorFlow's own kernel
changes, named per project and shown on its own graph, may separate it from the
legacy run on TF 2.15."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import tensorflow as tf
from harness import LEGACY_PYTHON, MAIN_PYTHON, RACY_SUMMARIES, REPO
from kernel_drift import changed_kernels
from project_runs import (
    Comparison,
    Project,
    assert_training_equals_replay,
    copy_project,
    migrate_command,
    replay_legacy_training,
    run_sides,
)

PROJECTS = [
    Project(
        name="bert_classifier",
        commands=(
            ("create_data.py", "--output_dir", "{out}/data"),
            (
                "run_classifier.py",
                "--data_dir={out}/data",
                "--output_dir={out}/output",
                "--init_checkpoint={out}/data/bert_model.ckpt",
                "--do_train",
                "--do_eval",
                "--do_predict",
                "--do_export",
                "--save_summary_steps=1",
            ),
        ),
        results=("output/eval_results.txt", "output/test_results.tsv"),
        model_dirs=("output",),
        exports=("output/export",),
        id_inputs={"input_ids": 28, "input_mask": 2},
        # gelu's tanh, shown on the project's own graph
        # (_assert_runtime_is_the_legacy_graph_on_tf_2_21)
        kernel_drift=("Tanh",),
    ),
    Project(
        name="tpu_text_transformer",
        commands=(
            ("create_data.py", "--output_dir", "{out}/data"),
            (
                "run_classifier.py",
                "--data_dir={out}/data",
                "--output_dir={out}/output",
                "--save_summary_steps=1",
            ),
        ),
        results=("output/eval_results.txt", "output/test_results.tsv"),
        model_dirs=("output",),
    ),
    Project(
        name="sentiment_hparams",
        commands=(
            ("make_data.py", "--data_dir", "{out}/data"),
            (
                "trainer.py",
                "--data_dir={out}/data",
                "--model_dir={out}/model",
                "--save_summary_steps=1",
                "--hparams=hidden_units=[32,16],learning_rate=0.005",
            ),
        ),
        results=("model/metrics.json", "model/predictions.txt"),
        model_dirs=("model",),
    ),
    Project(
        name="tpu_resnet",
        commands=(
            (
                "resnet_main.py",
                "--model_dir={out}/model",
                "--export_dir={out}/export",
                "--save_summary_steps=1",
            ),
        ),
        results=("model/eval_results.txt", "model/predictions.tsv"),
        model_dirs=("model",),
        exports=("export",),
    ),
    Project(
        name="ascend_npu_classifier",
        commands=(
            ("prepare_data.py", "--data_dir", "{out}/data"),
            (
                "train.py",
                "--data_dir={out}/data",
                "--model_dir={out}/model",
                "--save_summary_steps=1",
            ),
        ),
        results=("model/metrics.txt", "model/predictions.csv"),
        model_dirs=("model",),
    ),
    Project(
        name="abalone_numpy_input_fn",
        commands=(
            ("prepare_data.py", "--data_dir", "{out}/data"),
            (
                "abalone.py",
                "--data_dir={out}/data",
                "--model_dir={out}/model",
                "--save_summary_steps=1",
            ),
        ),
        results=("model/evaluation.txt", "model/predictions.txt"),
        model_dirs=("model",),
        exports=("model/export",),
        input_in_graph=False,  # numpy_input_fn
    ),
    Project(
        name="census_train_and_evaluate",
        commands=(("-m", "trainer.task", "--job-dir={out}", "--save-summary-steps=1"),),
        results=("final_metrics.json",),
        model_dirs=("model",),
        exports=("model/export/latest", "model/export/best"),
        # the parsing receiver's "examples"; the classify signature calls it "inputs"
        record_inputs={"examples": "data/eval.tfrecord", "inputs": "data/eval.tfrecord"},
    ),
    Project(
        name="census_wide_deep",
        commands=(("-m", "trainer.task", "--job-dir={out}", "--save-summary-steps=1"),),
        results=("final_metrics.json",),
        model_dirs=("model",),
        exports=("model/export/census",),
        record_inputs={"examples": "data/serving.tfrecord", "inputs": "data/serving.tfrecord"},
        # the binary head: Log1p's gradient in its sigmoid cross-entropy, and its
        # probabilities (tests/test_canned_estimators.py shows both on its own graphs)
        kernel_drift=("Reciprocal", "Sigmoid"),
        racy_summaries=RACY_SUMMARIES,
    ),
    Project(
        name="census_tf1_wide_deep",
        commands=(("-m", "trainer.task", "--job-dir={out}", "--save-summary-steps=1"),),
        results=("final_metrics.json",),
        model_dirs=("model",),
        exports=("model/export/census",),
        record_inputs={"examples": "data/serving.tfrecord", "inputs": "data/serving.tfrecord"},
        # TF 1's binary head: the same kernels as census_wide_deep's TF 2 head
        kernel_drift=("Reciprocal", "Sigmoid"),
        racy_summaries=RACY_SUMMARIES,
    ),
    Project(
        name="housing_notebook",
        commands=(
            (
                str(REPO / "tests" / "run_notebook.py"),
                "house_prices.ipynb",
                *("-p", "MODEL_DIR", "{out}/model"),
                *("-p", "SAVE_SUMMARY_STEPS", "1"),
            ),
        ),
        results=("model/metrics.json", "model/predictions.csv"),
        model_dirs=("model",),
        exports=("model/export",),
        id_inputs={"city_id": 5, "neighborhood_id": 40},
        input_in_graph=False,  # pandas_input_fn
    ),
]


@pytest.mark.parametrize("project", PROJECTS, ids=lambda project: project.name)
def test_project_migrates_runs_and_gives_the_legacy_numbers(project, tmp_path):
    legacy_source = copy_project(project.name, tmp_path / "legacy" / project.name)
    migrated_root = tmp_path / "migrated"
    report = tmp_path / "migration-report.json"
    migration = subprocess.run(
        [*migrate_command(), str(legacy_source), "--out", str(migrated_root), "--report", report],
        capture_output=True,
        text=True,
    )
    assert migration.returncode == 1, migration.stdout + migration.stderr  # changed, no errors
    error_level_diagnostics = json.loads(report.read_text())["errors"]
    assert error_level_diagnostics == 0, migration.stdout
    migrated_source = migrated_root / project.name
    check = subprocess.run(
        [*migrate_command(), "--check", str(migrated_source)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr

    runs = {"legacy": legacy_source, "migrated": migrated_source}
    if project.kernel_drift:
        runs["migrated on TF 2.15"] = migrated_source
    outs = run_sides(project, runs, tmp_path)
    if project.input_in_graph:
        _assert_runtime_is_the_legacy_graph_on_tf_2_21(project, outs, tmp_path)
    comparisons = [
        Comparison(
            project, outs["legacy"], outs["migrated"], kernel_drift=bool(project.kernel_drift)
        )
    ]
    if project.kernel_drift:  # the same kernels: the runtime itself, bit for bit
        comparisons.append(Comparison(project, outs["legacy"], outs["migrated on TF 2.15"]))
    for comparison in comparisons:
        comparison.results()
        assert comparison.summaries() > 0
        comparison.checkpoints()
        comparison.exports()


def _assert_runtime_is_the_legacy_graph_on_tf_2_21(project, outs, tmp_path) -> None:
    """The reference that separates the runtime from kernel changes: the legacy
    run's own training graph (the MetaGraph saved with its checkpoints) replayed in a
    plain TF 2.21 Session, which the runtime on TF 2.21 equals bit for bit. With
    kernel drift, the same replay on TF 2.15 equals the legacy run (the replay is
    that run's computation), and the kernels whose outputs change on the project's
    own graph, restored from its last checkpoint, are the ones it names."""
    on_tf_2_21 = replay_legacy_training(
        outs["legacy"], project, tmp_path / "replay_on_2.21", python=MAIN_PYTHON
    )
    assert assert_training_equals_replay(project, outs["migrated"], on_tf_2_21) > 0
    if not project.kernel_drift:
        return
    on_tf_2_15 = replay_legacy_training(
        outs["legacy"], project, tmp_path / "replay_on_2.15", python=LEGACY_PYTHON
    )
    assert assert_training_equals_replay(project, outs["legacy"], on_tf_2_15) > 0
    latest = tf.train.latest_checkpoint(str(outs["legacy"] / project.train_dir))
    changed = changed_kernels(Path(latest + ".meta"), latest, tmp_path / "kernels")
    assert changed == set(project.kernel_drift)
