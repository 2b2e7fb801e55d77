"""A Scaffold's Saver with code of its own (runtime/tf1/own_saver.py) is asked
what the Estimator asked of it, in the same order: save at each checkpoint
step, restore (and recover the last checkpoints) when training resumes, restore
for evaluation and prediction; its own code runs (an audit file beside each
checkpoint) and its max_to_keep prunes. The program runs on both sides
(issue 37: TensorFlow's tests of Scaffold(saver=...))."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "scaffold_saver.py"


def test_the_scaffold_saver_is_asked_what_the_estimator_asked_of_it(tmp_path):
    reference, runtime = side_by_side_records(PROGRAM, tmp_path)
    assert runtime == reference
    assert reference["train"]["requests"] == [["save", 0], ["save", 2], ["save", 4], ["save", 5]]
    resumed = reference["train_again"]["requests"]
    assert resumed[:2] == [
        ["restore", "model.ckpt-5"],
        ["recover", ["model.ckpt-4", "model.ckpt-5"]],
    ]
    assert reference["predict"]["requests"] == [["restore", "model.ckpt-8"]]
    # Its max_to_keep=2 kept two checkpoints; its own code wrote every audit file.
    assert [f for f in reference["files"] if f.endswith(".index")] == [
        "model.ckpt-7.index",
        "model.ckpt-8.index",
    ]
    assert sum(f.endswith(".audit") for f in reference["files"]) == 6
