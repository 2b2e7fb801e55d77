"""An Estimator called again with the same mode and input keeps its traced
programs (issue 17, item 6) and nothing it computes changes: every call's
results, the variables, what the global generators draw next, a checkpoint
another Estimator wrote in between, a new input structure or seed count, and
dropout's random streams, which each legacy call started again. model_fn is
called once per call, as the Estimator called it (issue 37). The program runs on
both sides; every record must match."""

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
    # model_fn once per call, discovered as the Estimator built it; the steps run
    # the discovered graph (or the programs an earlier call traced).
    # With dropout too: its masks are drawn from the call's random streams by the
    # discovered graph's own random ops.
    for case in ("plain", "dropout"):
        assert set(legacy[case]["model_fn_calls"].values()) == {1}
        assert runtime[case]["model_fn_calls"] == legacy[case]["model_fn_calls"], case
