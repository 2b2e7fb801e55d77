"""The equivalence harness forgives the legacy Estimator's own global-step race
(harness.summaries_without_step_races) and nothing else: summaries the legacy
SummarySaverHook wrote one step early from some point on are left out of the
comparison, while any other difference in steps stays for it to fail on. A
reference run the runtime does not equal is run again only to show that TF's
Session did not repeat it (harness.assert_equals_a_run_of_its_side)."""

import copy
from pathlib import Path

import pytest

from helpers.harness import (
    Trace,
    assert_bit_identical,
    assert_equals_a_run_of_its_side,
    assert_racy_reads,
    summaries_without_races_of_either,
    summaries_without_step_races,
)

RUNTIME = {"loss": [[1, 0.9], [6, 0.6], [11, 0.5], [16, 0.4], [21, 0.3]]}


def test_summaries_the_race_moved_one_step_early_are_left_out():
    raced = {"loss": [[1, 0.9], [6, 0.6], [10, 0.55], [15, 0.45], [20, 0.35]]}
    legacy, runtime = summaries_without_step_races(raced, RUNTIME)
    assert legacy == runtime == {"loss": [[1, 0.9], [6, 0.6]]}


def test_a_race_may_fit_one_more_legacy_summary_before_the_last_step():
    # (issue 34 CI run: custom_v1_head's reference wrote at 15, 20 and 25 of 25 steps)
    raced = {"loss": [[1, 0.9], [6, 0.6], [11, 0.5], [15, 0.45], [20, 0.35], [25, 0.3]]}
    legacy, runtime = summaries_without_step_races(raced, RUNTIME)
    assert legacy == runtime == {"loss": [[1, 0.9], [6, 0.6], [11, 0.5]]}


def test_each_race_moves_the_rest_one_more_step():
    twice = {"loss": [[1, 0.9], [5, 0.6], [10, 0.55], [14, 0.45], [19, 0.35]]}
    assert summaries_without_step_races(twice, RUNTIME)[0] == {"loss": [[1, 0.9]]}


def test_other_differences_in_steps_are_kept():
    for steps in (
        [1, 7, 11, 16, 21],
        [1, 6, 12, 16, 21],
        [2, 6, 11, 16, 21],
        [1, 6, 9, 14, 19],
        [1, 6, 11, 16, 21, 26],  # one more summary, with no race
        [1, 6, 11, 16],  # one fewer
    ):
        legacy = {"loss": [[step, 0.5] for step in steps]}
        kept_legacy, kept_runtime = summaries_without_step_races(legacy, RUNTIME)
        assert kept_legacy == legacy and kept_runtime == RUNTIME, steps


def test_equal_runs_are_compared_whole():
    assert summaries_without_step_races(RUNTIME, RUNTIME) == (RUNTIME, RUNTIME)


def test_two_legacy_runs_leave_out_the_race_of_either():
    # the legacy program on TF 2.15 and on TF 2.21: both Sessions raced the read
    raced = {"loss": [[1, 0.9], [6, 0.6], [10, 0.55], [15, 0.45], [20, 0.35]]}
    for old, new in ((raced, RUNTIME), (RUNTIME, raced)):
        kept_old, kept_new = summaries_without_races_of_either(old, new)
        assert kept_old == kept_new == {"loss": [[1, 0.9], [6, 0.6]]}
    steps = {"loss": [[1, 0.9], [7, 0.6], [11, 0.5], [16, 0.4], [21, 0.3]]}
    assert summaries_without_races_of_either(steps, RUNTIME) == (steps, RUNTIME)


def test_a_racy_read_is_the_read_before_or_after_the_update_or_between():
    runtime = [[1, 0.6], [2, 0.5667], [3, 0.5], [4, 0.4]]
    for legacy_at_2 in (0.5667, 0.5, 0.5333):  # before, after, part of the update seen
        assert_racy_reads(runtime, [[1, 0.6], [2, legacy_at_2], [3, 0.5], [4, 0.4]], what="f")
    with pytest.raises(AssertionError, match="nor between them"):
        assert_racy_reads(runtime, [[1, 0.6], [2, 0.55], [3, 0.6], [4, 0.4]], what="f")


def _trace(histogram_steps, scalar_steps=None) -> Trace:
    """A hooked run whose SummarySaverHook wrote a ``logits`` histogram and a
    ``loss`` scalar at ``histogram_steps`` (each step's values its own)."""
    scalar_steps = histogram_steps if scalar_steps is None else scalar_steps
    histograms = [
        [s, -s / 10, s / 10, 10.0, 0.5 * s, float(s), [0.0, 1.0], [4.0, 6.0]]
        for s in histogram_steps
    ]
    data = {
        "losses": [0.5],
        "eval": {"loss": 0.5},
        "variables": ["w"],
        "summaries": {"loss": [[s, 1 / s] for s in scalar_steps]},
        "loop_summaries": {},
        "summary_protos": {
            "forms": {"logits": ["histo"], "loss": ["simple_value"]},
            "histograms": {"logits": histograms},
        },
    }
    return Trace(data, {}, Path("."))


def test_histograms_the_race_moved_one_step_early_are_left_out_as_scalars_are():
    # (CI at 5adfbbf: v1_summaries' reference wrote its logits histogram, with its
    # scalars, at 1, 6, 10, 15, 19, 24, 29; the runtime at 1, 6, 11, ..., 31)
    runtime = _trace([1, 6, 11, 16, 21, 26, 31])
    assert_bit_identical(_trace([1, 6, 10, 15, 19, 24, 29]), runtime)
    assert_bit_identical(copy.deepcopy(runtime), runtime)


def test_histograms_that_differ_otherwise_fail_the_comparison():
    runtime = _trace([1, 6, 11, 16, 21])
    for legacy in (
        _trace([1, 7, 11, 16, 21], [1, 6, 11, 16, 21]),
        _trace([1, 6, 11, 16], [1, 6, 11, 16, 21]),
    ):
        with pytest.raises(AssertionError, match="histograms"):
            assert_bit_identical(legacy, runtime)
    other_values = copy.deepcopy(runtime)
    other_values.data["summary_protos"]["histograms"]["logits"][2][4] += 1e-7
    with pytest.raises(AssertionError, match="histograms"):
        assert_bit_identical(other_values, runtime)
    other_form = copy.deepcopy(runtime)
    other_form.data["summary_protos"]["forms"]["logits"] = ["tensor"]
    with pytest.raises(AssertionError, match="forms"):
        assert_bit_identical(other_form, runtime)


def _with_loss(trace: Trace, loss: float) -> Trace:
    other = copy.deepcopy(trace)
    other.data["losses"] = [loss]
    return other


def test_a_reference_that_did_not_repeat_is_replaced_by_its_second_run():
    runtime = _trace([1, 6, 11])
    unrepeated = _with_loss(runtime, 0.5000001)
    reruns = []

    def rerun():
        reruns.append(1)
        return copy.deepcopy(runtime)

    assert assert_equals_a_run_of_its_side(unrepeated, runtime, rerun=rerun).data == runtime.data
    assert reruns == [1]


def test_a_reference_that_repeats_itself_is_not_replaced():
    runtime = _trace([1, 6, 11])
    reference = _with_loss(runtime, 0.5000001)
    with pytest.raises(AssertionError, match="per-step loss"):
        assert_equals_a_run_of_its_side(reference, runtime, rerun=lambda: copy.deepcopy(reference))


def test_the_runtime_must_equal_the_second_run_too():
    runtime = _trace([1, 6, 11])
    first, second = _with_loss(runtime, 0.5000001), _with_loss(runtime, 0.5000002)
    with pytest.raises(AssertionError, match="per-step loss"):
        assert_equals_a_run_of_its_side(first, runtime, rerun=lambda: second)


def test_a_reference_the_runtime_equals_is_not_run_again():
    runtime = _trace([1, 6, 11])

    def rerun():
        raise AssertionError("ran again")

    reference = copy.deepcopy(runtime)
    assert assert_equals_a_run_of_its_side(reference, runtime, rerun=rerun) is reference
