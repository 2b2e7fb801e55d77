"""Hooks and listeners see the model's graph in every method, as under
MonitoredSession: collections, ``get_tensor_by_name``, name scopes and
``get_global_step()`` resolve in ``before_run``/``after_run``/``end`` (not only
in ``begin``), tensors looked up in ``before_run`` are fetched, and hooks and the
checkpoint saver's listeners run in the Estimator's order. The program runs on
both sides; every record must match."""

from helpers.harness import REPO, side_by_side_records

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
    # The hook's own session reads: after_run sees the step's update, end the final
    # state (train: 3 steps; evaluate: 2 steps on the trained weights).
    methods = [(method, step) for method, step, _ in legacy["session"]]
    train = [("after_create_session", 0)]
    for step in range(3):
        train += [("before_run", step), ("after_run", step + 1)]
    evaluate = [("after_create_session", 3), *[("before_run", 3), ("after_run", 3)] * 2]
    assert methods == [*train, ("end", 3), *evaluate, ("end", 3)]
    assert runtime["session"] == legacy["session"]
