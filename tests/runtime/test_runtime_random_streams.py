"""TF 1's stateful random ops keep one stream per op across a call's programs:
steps that hooks' fetches send through different traced programs draw the
dropout masks and noise the Estimator's single kernel drew at that step
(runtime/tf1/random_streams.py)."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "random_streams.py"


def test_random_ops_draw_the_estimators_numbers_whatever_a_step_fetches(tmp_path):
    legacy, runtime = side_by_side_records(PROGRAM, tmp_path)
    # the hooks changed what the steps fetched: logits on steps 2, 4 and 6
    assert [len(call["fetched_logits"]) for call in (legacy["train"], legacy["train_again"])] == [
        3,
        3,
    ]
    assert runtime == legacy
