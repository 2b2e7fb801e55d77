"""Hooks and listeners see the model's graph in every method, as under
MonitoredSession: collections, ``get_tensor_by_name``, name scopes and
``get_global_step()`` resolve in ``before_run``/``after_run``/``end`` (not only
in ``begin``), tensors looked up in ``before_run`` are fetched, and hooks and the
checkpoint saver's listeners run in the Estimator's order. The program runs on
both sides; every record must match."""

from harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "hooks_graph_lookups.py"


def test_hook_methods_find_the_model_graph_as_the_estimator_did(tmp_path):
    legacy, runtime = side_by_side_records(PROGRAM, tmp_path)
    # The lookups really happened: before_run fetched the loss by name, a
    # collection member and a scoped tensor, three steps long.
    fetched = [record[2] for record in legacy["train"] if record[0] == "after_run"]
    assert len(fetched) == 3 and all(
        set(values) == {"mse", "probe", "scoped"} for values in fetched
    )
    for mode in ("train", "evaluate", "predict"):
        assert runtime[mode] == legacy[mode], mode
