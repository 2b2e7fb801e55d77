"""Programs written for TF1 semantics, run on the runtime."""

import json
import subprocess
import sys
from pathlib import Path

from helpers.sides import RUNTIME

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "v2_behavior_disabled.py"


def test_disable_v2_behavior_programs_train_evaluate_predict_and_export(tmp_path):
    """disable_v2_behavior() switches eager off for the program; the entry points
    run eagerly for their own duration only, and keep its TF1 semantics: Keras v1
    initializers seeded by tf_random_seed (so two fresh runs start equal)."""
    result = subprocess.run(
        [sys.executable, str(PROGRAM), str(tmp_path)],
        env=RUNTIME.env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    runs = json.loads(result.stdout.strip().splitlines()[-1])
    first, second = runs["first"], runs["second"]
    assert set(first["eager_after"].values()) == {False}, first["eager_after"]
    assert first["global_step"] == 5
    assert first["predictions"] == 3
    assert first["exported"]
    assert first["initial_kernel"] == second["initial_kernel"]
    assert first["loss"] == second["loss"]
