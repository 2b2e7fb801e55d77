"""TPUEstimator on replicas runs the discovery graph's slices in every replica,
as a TPU ran model_fn's one graph on every core (runtime/tf1/tpu_slices.py):
model_fn once per train/evaluate/predict call where TF called it once, and the
same numbers as the path that calls model_fn in every replica (the one
tests/distribution/test_replication.py holds against one device).

The program (tests/programs/tpu_replica_steps.py) runs on 2 replicas without
hooks, then with a hook that does nothing, which needs model_fn's graph and so
takes the other path.
"""

from concurrent.futures import ThreadPoolExecutor

import pytest

from helpers.harness import REPO, program_record
from helpers.sides import RUNTIME

PROGRAM = REPO / "tests" / "programs" / "tpu_replica_steps.py"
ONCE = {"train": 1, "evaluate": 1, "predict": 1}
# discovery, then each of the 2 replicas (evaluate and predict: one program each;
# a hooked training builds its step and its loop)
IN_EVERY_REPLICA = {"train": 5, "evaluate": 3, "predict": 3}


def _records(tmp_path, model: str, *options: str, other="hooked") -> tuple[dict, dict]:
    runs = {"sliced": (model, *options), "traced": (model, other, *options)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            label: pool.submit(program_record, RUNTIME, PROGRAM, tmp_path / label, args)
            for label, args in runs.items()
        }
    return futures["sliced"].result(), futures["traced"].result()


@pytest.mark.parametrize(
    "program_args",
    [("adam",), ("custom_apply",), ("adam", "tf1")],
    ids=["adam", "custom_apply", "adam_tf1"],
)
def test_one_core_graph_on_every_replica_equals_model_fn_in_every_replica(tmp_path, program_args):
    """``adam``: CrossShardOptimizer(Adam), clipped gradients, a decayed learning
    rate; ``custom_apply``: CrossShardOptimizer around an optimizer with
    assignments of its own (applied once, in cross-replica context, on the other
    path) and a hand-bumped global step; ``tf1``: reference variables. Bit for bit."""
    sliced, traced = _records(tmp_path, *program_args)
    assert sliced["model_fn_calls"] == ONCE
    assert traced["model_fn_calls"] == IN_EVERY_REPLICA
    assert sliced["metrics"]["global_step"] == 7
    assert sliced["metrics"] == traced["metrics"]
    assert sliced["variables"] == traced["variables"]
    assert len(sliced["predictions"]) == 12  # the padded rows of the last batch dropped
    assert sliced["predictions"] == traced["predictions"]
    # one loss per run of iterations_per_loop steps without hooks; every one equal
    traced_losses = dict(map(tuple, traced["losses"]))
    assert [step for step, _ in sliced["losses"]] == [1, 4, 7]
    assert all(traced_losses[step] == loss for step, loss in sliced["losses"])


def test_random_ops_draw_in_each_replica_as_model_fn_in_every_replica_drew(tmp_path):
    """Dropout: each replica's copy of the op is a kernel of its own, seeded as
    discovery's op, as each replica's trace of model_fn seeded it. Compared with
    the runtime with the slices declined (no hooks: a hooked training runs other
    programs, whose kernels draw other streams)."""
    sliced, traced = _records(tmp_path, "dropout", other="every_replica")
    assert sliced["model_fn_calls"] == ONCE
    assert traced["model_fn_calls"] == {"train": 3, "evaluate": 5, "predict": 3}
    for key in ("losses", "metrics", "variables", "predictions"):
        assert sliced[key] == traced[key]
