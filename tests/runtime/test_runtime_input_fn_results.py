"""input_fns returning tensors, as tensorflow_estimator's own tests wrote them
(``test_input_fn_args``, ``test_callable_input_fn``, ``test_all_model_fn_args``
...): called once per train/evaluate/predict call, with what the Estimator
passed, and the calls' results the Estimator's (the program runs on both sides)."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "input_fn_results.py"


def test_input_fns_returning_tensors_are_called_once_per_call(tmp_path):
    reference, runtime = side_by_side_records(PROGRAM, tmp_path)
    for call, mode in (("train", "train"), ("evaluate", "eval"), ("predict", "infer")):
        assert reference[call]["calls"] == [[mode, {"scale": 1.5}, 4321]], call
    assert reference["train_empty"]["calls"] == [["empty"]]
    assert reference["weight"] != 0.0  # the constant tensors trained the model
    assert runtime == reference
