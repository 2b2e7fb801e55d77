"""What a TF 1 Session ran once, at creation, keeps that meaning on the runtime: a
Scaffold's ``Saver`` decides what is saved and how many checkpoints are kept (and
one that leaves variables out cannot resume, as the Session's ready check
refused), and a ``local_init_op`` of variable and table initializers under
control dependencies runs once per call instead of failing in the traced step;
a ``MutableHashTable`` or ``DenseHashTable`` (state that is not a variable), or a
table op with a SaveableObject of the program's own, is checkpointed under TF 1's
keys and restored in every call and export. The programs run on both sides;
every record must match."""

from helpers.harness import REPO, side_by_side_records

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


TABLE_PROGRAM = REPO / "tests" / "programs" / "hash_table_state.py"


def test_hash_tables_are_checkpointed_and_restored_as_the_estimator_did(tmp_path):
    legacy, runtime = side_by_side_records(TABLE_PROGRAM, tmp_path)
    # The legacy side shows state that lives only in the checkpoint: 7 words and 8
    # ids after the first call, read back by evaluate, predict, a second train and
    # the export; the dense table's buckets grew from 8 to 16, then to 32.
    assert len(legacy["after_train"]) == 7
    assert legacy["evaluate"]["table_size"] == 7.0 and legacy["evaluate"]["ids"] == 8.0
    assert legacy["predict"] == [[7, 2.0], [7, 1.0]]  # id 3 was seen twice, id 5 once
    assert len(legacy["buckets_after_train"]["keys"]) == 16
    assert len(legacy["after_second_train"]) == 9
    assert len(legacy["buckets_after_second_train"]["keys"]) == 32
    assert legacy["served"] == {"table_size": [9, 9], "id_count": [2.0, 2.0]}
    for table in ("seen_words", "id_counts"):
        assert {f"{table}-keys", f"{table}-values"} <= set(legacy["checkpoint_keys"])
    assert runtime == legacy


SAVEABLE_PROGRAM = REPO / "tests" / "programs" / "custom_saveable.py"


def test_a_table_op_with_a_saveable_of_its_own_is_checkpointed_as_the_estimator_did(tmp_path):
    """tensorflow/estimator's export test with saveables, as a program: state in
    a hash table op the program checkpoints with its own SaveableObject."""
    legacy, runtime = side_by_side_records(SAVEABLE_PROGRAM, tmp_path)
    # words a, b, a, c counted by 4 steps; a new call restores them, counts a, b
    assert {"word_counts-keys", "word_counts-values"} <= set(legacy["checkpoint_keys"])
    assert legacy["after_train"] == {"a": 2.0, "b": 1.0, "c": 1.0}
    assert (legacy["evaluate"], legacy["predict"]) == (1.5, [2.0, 1.0, 2.0])
    assert legacy["after_second_train"] == {"a": 3.0, "b": 2.0, "c": 1.0}
    assert legacy["served"] == [3.0, 2.0, 3.0]
    assert runtime == legacy
