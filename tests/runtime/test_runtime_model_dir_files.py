"""The model_dir and the log look like the Estimator's (issue 35): graph.pbtxt,
a .meta beside each checkpoint whose graph and Saver restore the checkpoint,
the graph in the events file, and the Estimator's lines (``loss = …, step =
…``, ``Saving checkpoints for …``, ``Saving dict for global step …``, ``Loss
for final step: …``) on TensorFlow's logger, where a program's
``tf.compat.v1.logging`` set-up sees them (runtime/saving/graph_files.py)."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "model_dir_files.py"


def test_the_model_dir_and_the_log_are_the_estimators(tmp_path):
    reference, runtime = side_by_side_records(PROGRAM, tmp_path)
    assert {"graph.pbtxt", "model.ckpt-4.meta", "model.ckpt-8.meta"} <= set(reference["files"])
    assert reference["files"].count("events") == 1
    assert reference["graphs_in_events"] and reference["graph_pbtxt_has_train_op"]
    assert reference["restored"] == reference["variables"]
    assert any(line.startswith("Saving dict for global step 6") for line in reference["lines"])
    assert runtime == reference
