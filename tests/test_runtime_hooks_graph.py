"""Hooks and listeners see the model's graph in every method, as under
MonitoredSession: collections, ``get_tensor_by_name``, name scopes and
``get_global_step()`` resolve in ``before_run``/``after_run``/``end`` (not only
in ``begin``), tensors looked up in ``before_run`` are fetched, and hooks and the
checkpoint saver's listeners run in the Estimator's order. The program runs on
both sides; every record must match."""

import json
import os
import subprocess

from harness import LEGACY_PYTHON, MAIN_PYTHON, REPO

PROGRAM = REPO / "tests" / "programs" / "hooks_graph_lookups.py"


def _records(python, side, model_dir):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO))
    env.pop("TF_CONFIG", None)
    result = subprocess.run(
        [str(python), str(PROGRAM), side, str(model_dir)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(result.stdout)


def test_hook_methods_find_the_model_graph_as_the_estimator_did(tmp_path):
    legacy = _records(LEGACY_PYTHON, "legacy", tmp_path / "legacy")
    runtime = _records(MAIN_PYTHON, "runtime", tmp_path / "runtime")
    # The lookups really happened: before_run fetched the loss by name, a
    # collection member and a scoped tensor, three steps long.
    fetched = [record[2] for record in legacy["train"] if record[0] == "after_run"]
    assert len(fetched) == 3 and all(
        set(values) == {"mse", "probe", "scoped"} for values in fetched
    )
    for mode in ("train", "evaluate", "predict"):
        assert runtime[mode] == legacy[mode], mode
