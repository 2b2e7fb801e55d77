"""What a TF 1 Session ran once, at creation, keeps that meaning on the runtime: a
Scaffold's ``Saver`` decides what is saved and how many checkpoints are kept (and
one that leaves variables out cannot resume, as the Session's ready check
refused), and a ``local_init_op`` of variable and table initializers under
control dependencies runs once per call instead of failing in the traced step.
The program runs on both sides; every record must match."""

from harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "scaffold_session_setup.py"


def test_scaffold_savers_and_local_init_ops_behave_as_under_the_estimator(tmp_path):
    legacy, runtime = side_by_side_records(PROGRAM, tmp_path)
    # What the legacy side shows is the behaviour under test, not a default:
    assert legacy["saver"]["checkpoints"] == ["model.ckpt-8.index", "model.ckpt-9.index"]
    assert not any(name.startswith("out/") for name in legacy["saver_subset"]["saved"])
    assert legacy["saver_subset"]["resuming"] == "RuntimeError"
    assert {row["steps_this_call"][0] for row in legacy["local_init"]["predictions"]} == {0.0}
    assert legacy["local_init"]["evaluate"]["steps_this_call"] == 1.5
    assert legacy["local_init"]["losses"][0] == 2 * legacy["saver"]["losses"][0]  # the table
    for case in ("saver", "saver_subset", "local_init"):
        assert runtime[case] == legacy[case], case
