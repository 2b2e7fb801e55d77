"""How often the user's functions are called, against tensorflow_estimator's own
counts (the program runs on both sides): input_fn, and the generator of its
``from_generator`` dataset, once per train/evaluate/predict call, in
train_and_evaluate too (issue 37); model_fn and the serving receiver once per
first evaluation, prediction and export.

Where the runtime calls model_fn otherwise, it is by design or still open:
a call like the last one in its mode reuses the last discovery (0 calls;
test_runtime_call_cache.py), and a first training call discovers, then traces
(2 calls; issue 37).
"""

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


def test_input_fn_is_called_once_per_call_and_model_fn_as_the_estimator_called_it(tmp_path):
    reference, runtime = side_by_side_records(PROGRAM, tmp_path)
    assert tuple(reference) == tuple(runtime) == CALLS
    for call in CALLS:
        for counted in ("input_fn/train", "input_fn/eval", "input_fn/infer", "generator_starts"):
            assert runtime[call].get(counted) == reference[call].get(counted), (call, counted)
    assert reference["train"]["input_fn/train"] == 1
    assert reference["train_and_evaluate"]["input_fn/eval"] >= 2  # one per evaluation
    for call, counted in (
        ("evaluate", "model_fn/eval"),
        ("predict", "model_fn/infer"),
        ("export", "model_fn/infer"),
        ("export", "serving_input_receiver_fn"),
    ):
        assert runtime[call][counted] == reference[call][counted] == 1, (call, counted)
