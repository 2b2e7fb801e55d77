"""``migrate prove`` end to end: a planted bug is caught and located, a side that
cannot run says why, and the repository is never written to. (Every project of
fixtures/projects/ is proven by tests/equivalence/test_projects.py.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from helpers.project_runs import PROJECTS, migrate_command
from helpers.prove_runs import prove, tree_bytes

ABALONE = (
    ("prepare_data.py", "--data_dir", "{out}/data"),
    ("abalone.py", "--data_dir={out}/data", "--model_dir={out}/model", "--train_steps=60"),
)


def migrated_copy(name: str, tmp_path):
    """``migrate``'s copy of a project, to plant a bug in."""
    out = tmp_path / "migrated"
    finished = subprocess.run(
        [*migrate_command(), str(PROJECTS / name), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert finished.returncode == 1, finished.stdout + finished.stderr
    return out / name


def prove_planted(tmp_path, old: str, new: str, *, steps: int) -> tuple:
    """prove of abalone_numpy_input_fn, its migrated model.py with ``old``
    replaced by ``new``."""
    migrated = migrated_copy("abalone_numpy_input_fn", tmp_path)
    model = migrated / "model.py"
    text = model.read_text()
    assert old in text, f"{model} has no {old!r}"
    model.write_text(text.replace(old, new))
    return prove(
        PROJECTS / "abalone_numpy_input_fn",
        ABALONE,
        tmp_path / "work",
        "--migrated",
        migrated,
        "--steps",
        str(steps),
    )


def test_a_changed_learning_rate_decay_is_caught_at_its_first_step(tmp_path):
    # the learning rate decays every 10 steps instead of every 100
    finished, report = prove_planted(tmp_path, "decay_steps=100", "decay_steps=10", steps=30)
    assert finished.returncode == 1, finished.stdout + finished.stderr
    part = report["runtime_vs_reference"]
    assert report["verdict"] == part["verdict"] == "not explained"
    first = part["first"]
    # step 11 is the first run at global step 10, the first the decay lowers the
    # rate at; the summary of the rate it used is that step's, and the first loss
    # computed with weights it moved is step 12's
    assert (first["kind"], first["name"], first["step"]) == ("summary", "learning_rate", 11)
    assert first["expected"] == pytest.approx(0.05) and first["actual"] == pytest.approx(0.035)
    assert "step 11" in finished.stdout and "learning_rate" in finished.stdout
    differing = {(d["kind"], d["name"].split("/")[0]) for d in part["shown"]}
    assert ("checkpoint", "dense") in differing  # the weights the other rate moved
    loss = next(d for d in part["shown"] if d["name"] == "loss" and "eval" not in d["where"])
    assert loss["step"] == 12
    # the legacy side and the reference agree: the Estimator did not change
    assert report["legacy_vs_reference"]["verdict"] in ("identical", "explained")


def test_a_changed_metric_average_is_caught_in_the_evaluation(tmp_path):
    finished, report = prove_planted(
        tmp_path,
        "mean_absolute_error(labels, predictions)",
        "mean_absolute_error(labels, predictions, weights=labels)",
        steps=20,
    )
    assert finished.returncode == 1, finished.stdout + finished.stderr
    part = report["runtime_vs_reference"]
    names = {(d["kind"], d["name"]) for d in part["shown"]}
    assert ("evaluation", "mae") in names and ("evaluation", "rmse") not in names
    assert {kind for kind, _ in names} <= {"evaluation", "summary"}  # training is equal
    assert all("eval" in d["where"] for d in part["shown"] if d["kind"] == "summary")
    assert part["first"]["name"] == "mae"


def test_a_contrib_name_without_a_stand_in_is_named(tmp_path):
    repository = tmp_path / "repo"
    repository.mkdir()
    (repository / "train.py").write_text(
        "import tensorflow as tf\n\nquantized = tf.contrib.quantize.create_training_graph\n"
    )
    before = tree_bytes(repository)
    finished, report = prove(repository, ["python train.py"], tmp_path / "work")
    assert finished.returncode == 2, finished.stdout + finished.stderr
    assert report["verdict"] == "a side failed"
    problems = "\n".join(report["problems"])
    assert re.search(r"tensorflow\.contrib\.quantize\b.*has no stand-in", problems), problems
    assert tree_bytes(repository) == before


def test_a_legacy_environment_without_the_estimator_says_what_to_install(tmp_path):
    repository = shutil.copytree(PROJECTS / "abalone_numpy_input_fn", tmp_path / "repo")
    before = tree_bytes(repository)
    main_python = migrate_command()[0].replace("/migrate", "/python")
    finished, report = prove(repository, ABALONE, tmp_path / "work", "--legacy-python", main_python)
    assert finished.returncode == 2
    message = finished.stderr
    assert "has TensorFlow 2.21" in message and "needs TensorFlow 2.15" in message, message
    assert "pip install tensorflow-cpu==2.15.1 tensorflow-estimator==2.15.0" in message
    assert report["verdict"] == "a side failed"
    assert tree_bytes(repository) == before


def test_an_unreachable_package_index_says_how_to_go_on(tmp_path):
    repository = shutil.copytree(PROJECTS / "abalone_numpy_input_fn", tmp_path / "repo")
    before = tree_bytes(repository)
    argv = [
        *migrate_command(),
        "prove",
        str(repository),
        "--run",
        "python abalone.py",
        "--work",
        str(tmp_path / "work"),
    ]
    env = dict(
        os.environ,
        ESTIMATOR_REVIVAL_CACHE=str(tmp_path / "cache"),
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_RETRIES="0",
        PIP_TIMEOUT="2",
    )
    finished = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert finished.returncode == 2, finished.stdout + finished.stderr
    assert "is the package index reachable?" in finished.stderr
    assert "--legacy-python" in finished.stderr
    assert tree_bytes(repository) == before


def test_bad_commands_are_refused_before_anything_runs(tmp_path):
    repository = shutil.copytree(PROJECTS / "abalone_numpy_input_fn", tmp_path / "repo")
    finished = subprocess.run(
        [*migrate_command(), "prove", str(repository), "--run", "bash train.sh"],
        capture_output=True,
        text=True,
    )
    assert finished.returncode == 2
    assert "--run" in finished.stderr and "start it with python" in finished.stderr
    inside = subprocess.run(
        [
            *migrate_command(),
            "prove",
            str(repository),
            "--run",
            "python abalone.py",
            "--work",
            str(repository / "scratch"),
        ],
        capture_output=True,
        text=True,
    )
    assert inside.returncode == 2 and "overlaps" in inside.stderr
    assert not (repository / "scratch").exists()


def test_migrate_names_prove_and_prove_has_its_own_help():
    listed = subprocess.run([*migrate_command(), "--help"], capture_output=True, text=True)
    assert "migrate prove REPOSITORY" in listed.stdout
    helped = subprocess.run([*migrate_command(), "prove", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0
    assert "Usage: migrate prove [OPTIONS] REPOSITORY" in helped.stdout
    for option in ("--run", "--steps", "--legacy-python", "--migrated", "--report"):
        assert option in helped.stdout, option
