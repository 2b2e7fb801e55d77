"""The hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` tool on a
temporary git repository (pre-commit installs this package into its own env)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LEGACY = "import tensorflow as tf\n\nspec = tf.estimator.EstimatorSpec\n"
CANNED = "import tensorflow as tf\n\nmodel = tf.estimator.BoostedTreesClassifier([8])\n"
MIGRATED = (
    "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n\n"
    "spec = tf_estimator.EstimatorSpec\n"
)


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def user_repo(tmp_path):
    repo = tmp_path / "user"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "dev@example.com", cwd=repo)
    git("config", "user.name", "dev", cwd=repo)
    (repo / "model.py").write_text(LEGACY)
    git("add", "model.py", cwd=repo)
    return repo


def pre_commit(hook, repo, home, *files):
    """`pre-commit try-repo` runs a hook from this checkout (uncommitted changes too)."""
    executable = shutil.which("pre-commit", path=os.path.dirname(sys.executable))
    env = dict(os.environ, PRE_COMMIT_HOME=str(home))
    return subprocess.run(
        [executable, "try-repo", str(REPO), hook, "--files", *(files or ["model.py"])],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_check_hook_fails_and_fixing_hook_rewrites(user_repo, tmp_path):
    home = tmp_path / "pre-commit-home"
    check = pre_commit("migrate-estimator-check", user_repo, home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "model.py" in check.stdout
    assert (user_repo / "model.py").read_text() == LEGACY

    fix = pre_commit("migrate-estimator", user_repo, home)
    assert fix.returncode == 1, "pre-commit fails a hook that modified files"
    assert (user_repo / "model.py").read_text() == MIGRATED

    again = pre_commit("migrate-estimator-check", user_repo, home)
    assert again.returncode == 0, again.stdout + again.stderr

    # Nothing to change, but code the runtime cannot run: the gate still fails.
    (user_repo / "canned.py").write_text(CANNED)
    git("add", "canned.py", cwd=user_repo)
    gate = pre_commit("migrate-estimator-check", user_repo, home, "canned.py")
    assert gate.returncode == 1, gate.stdout + gate.stderr  # pre-commit: a hook failed
    assert "exit code: 2" in gate.stdout
    assert "canned.py:3:9: MIG101 tf.estimator.BoostedTreesClassifier" in gate.stdout
