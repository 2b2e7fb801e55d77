"""TF 1.15's in-graph replication (``tf.contrib.estimator.replicate_model_fn`` and
``TowerOptimizer``, runtime/contrib/replicate_model_fn.py) against TF 1.15's own
module on the reference side: what the equivalence fixture
(fixtures/equivalence/tf1_replicate_model_fn_towers) does not cover."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "tower_replication.py"


def test_towers_train_and_fail_as_tf_1_15s(tmp_path):
    reference, runtime = side_by_side_records(PROGRAM, tmp_path)
    trained = ("one_device", "summed", "averaged", "zipped")
    assert all("linear/kernel" in reference[case] for case in trained)
    # summed and averaged losses give other gradients; TF 1.15 used the first
    # tower's zip of gradients up before it summed the towers'
    kernels = {case: tuple(reference[case]["linear/kernel"]) for case in trained}
    assert len(set(kernels.values())) == len(trained)
    assert reference["no_tower_optimizer"]["error"].startswith("Please wrap optimizers")
    assert reference["indivisible_batch"]["error"] == (
        "Batch size 7 needs to be divisible by the number of GPUs, which is 2."
    )
    assert reference["no_reduction"].startswith("Tower losses need to be reduced")
    assert runtime == reference
