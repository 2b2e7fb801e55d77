"""``tf.contrib.learn.Experiment`` run by ``learn_runner.run`` (a 2017 Cloud ML
Engine trainer, fixtures/experiments/): the legacy program, with TF 1.15's
Experiment (the stand-in written from its source) on the Estimator of this
TensorFlow (the reference side), and its migrated copy on the runtime train,
evaluate and export at the same steps with the same numbers, bit for bit."""

import numpy as np
import pytest

from helpers.harness import REPO, run_program
from helpers.sides import REFERENCE, RUNTIME

PROGRAM = REPO / "fixtures" / "experiments" / "cloudml_census_experiment"

# schedule: (arguments, the evaluations TF 1.15's Experiment made: global steps by directory)
SCHEDULES = {
    # learn_runner's default on one machine; ValidationMonitor evaluates each new
    # checkpoint (0, 15, 30; checked every step), then train_and_evaluate the last
    "train_and_evaluate": (("--check-interval-secs", "0"), {"eval": [0, 15, 30, 40]}),
    # train_steps / 10 = 4 steps, then one evaluation of that checkpoint, in turns
    "continuous_train_and_eval": (
        ("--schedule", "continuous_train_and_eval"),
        {"eval_one_pass": list(range(4, 41, 4))},
    ),
    # an evaluation and an export after every checkpoint saved
    "checkpoint_and_export": (
        ("--checkpoint-and-export",),
        {"eval_intermediate_export": [0, 15, 30, 40]},
    ),
}


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_experiment_schedule_equals_the_legacy_run(schedule, tmp_path):
    args, evaluations = SCHEDULES[schedule]
    reference = run_program(
        PROGRAM / "legacy.py", tmp_path / "reference", side=REFERENCE, args=args
    )
    runtime = run_program(PROGRAM / "migrated.py", tmp_path / "runtime", side=RUNTIME, args=args)
    assert reference.data["evaluations"] == evaluations
    assert reference.data["exports"] >= 1
    eval_result, exports = reference.data["result"]
    assert eval_result["global_step"] == 40 and len(exports) == 1
    assert _without_export_paths(runtime.data) == _without_export_paths(reference.data)
    assert sorted(runtime.arrays) == sorted(reference.arrays)
    for name, value in reference.arrays.items():
        np.testing.assert_array_equal(runtime.arrays[name], value, name)


def _without_export_paths(trace: dict) -> dict:
    """The trace with the exports the schedule returned counted, not named (each
    side's directory and timestamp)."""
    eval_result, exports = trace["result"]
    assert all("/model/export/Servo/" in path for path in exports)
    return dict(trace, result=[eval_result, len(exports)])
