"""How often the user's functions are called, against tensorflow_estimator's own
counts (the program runs on both sides): input_fn, the generator of its
``from_generator`` dataset and model_fn once per train/evaluate/predict call,
again or not, in train_and_evaluate too; model_fn and the serving receiver once
per export (issue 37).

Checked for a TF 2 program, for a TF 1 one (``disable_v2_behavior``: model_fn
makes reference variables), for one whose model_fn writes v1 summaries, and for
a TPUEstimator on 2 replicas with TPUEstimator's TPU semantics (against
TPUEstimator on CPU: its TPU path called the user's functions as often; see
tests/programs/call_counts.py). model_fn is still called a second time, to trace
it, in a training call with hooks, with summaries that read a variable after the
update or write one the step uses, and in every replica of a MirroredStrategy
Estimator or of a TPUEstimator step that is not one core's graph with its
gradients summed by CrossShardOptimizer (issue 37; docs/estimator_contract.md
§1.1, docs/runtime.md).
"""

import pytest

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "call_counts.py"
CALLS = (
    "train",
    "train_again",
    "evaluate",
    "evaluate_again",
    "predict",
    "export",
    "train_and_evaluate",
)


@pytest.mark.parametrize(
    "program_args",
    [(), ("tf1",), ("summaries",), ("tpu",)],
    ids=["tf2", "tf1", "summaries", "tpu_replicas"],
)
def test_input_fn_and_model_fn_are_called_as_often_as_the_estimator_called_them(
    tmp_path, program_args
):
    """``tf1``: a TF 1 program (``disable_v2_behavior``: reference variables);
    ``summaries``: model_fn writes v1 summaries; ``tpu``: TPUEstimator, on 2
    replicas on the runtime's side."""
    reference, runtime = side_by_side_records(PROGRAM, tmp_path, program_args)
    assert tuple(reference) == tuple(runtime) == CALLS
    if "tpu" in program_args:
        # The replicas' input pipeline reads ahead (a prefetch per replica), so a
        # short call may start the generator's next epoch where the Estimator's
        # one-device iterator had not, as a TPU's infeed read ahead too.
        for counts in (*reference.values(), *runtime.values()):
            counts.pop("generator_starts", None)
        for call in ("evaluate", "evaluate_again"):
            assert reference[call]["metric_fn"] == runtime[call]["metric_fn"] == 1
    assert runtime == reference
    for call in ("train", "train_again"):
        assert reference[call]["input_fn/train"] == reference[call]["model_fn/train"] == 1
    # one input_fn and one model_fn call per evaluation in train_and_evaluate
    assert reference["train_and_evaluate"]["model_fn/eval"] >= 2
    assert reference["export"] == {"serving_input_receiver_fn": 1, "model_fn/infer": 1}
