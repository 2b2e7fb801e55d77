"""An Estimator called again with the same mode and input keeps its discovery
and traced programs (issue 17, item 6) and nothing it computes changes: every
call's results, the variables, what the global generators draw next, a
checkpoint another Estimator wrote in between, a new input structure or seed
count, and dropout's random streams, which each legacy call started again. The
program runs on both sides; every record must match."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "repeated_calls.py"


def test_repeated_calls_reuse_what_they_can_and_compute_what_the_estimator_did(tmp_path):
    legacy, runtime = side_by_side_records(PROGRAM, tmp_path)
    for case in ("plain", "dropout"):
        assert runtime[case]["calls"] == legacy[case]["calls"], case
    plain = legacy["plain"]["calls"]
    # The sequence is not trivially repeatable: the calls moved the model on,
    # and another Estimator's checkpoint is what the evaluation after it read.
    assert plain["train_again"]["global_step"] == 10
    assert plain["evaluate_after_other_writer"]["global_step"] == 28
    assert plain["predict"] == plain["predict_again"]
    # What was reused: model_fn is not called again for a call like the last one
    # in its mode...
    reused = runtime["plain"]["model_fn_calls"]
    # A first evaluation or prediction calls model_fn once, to discover its graph:
    # metric updates and values, and predictions, run the discovery graph's ops.
    assert reused["evaluate"] == 1 and reused["predict"] == 1, reused
    for call in ("train_again", "evaluate_again", "predict_again", "evaluate_after_other_writer"):
        assert reused[call] == 0, (call, reused)
    # ...but it is when the input's seeds or structure changed,
    assert reused["train_reshuffled"] > 0 and reused["train_with_ids"] > 0
    # and random ops are traced again (their streams restart in each call), once:
    # discovery is still reused.
    assert runtime["dropout"]["model_fn_calls"]["train_again"] == 1
