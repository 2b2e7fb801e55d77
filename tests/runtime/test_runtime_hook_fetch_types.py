"""A hook's fetches come back as TF 1's Session returned them: a scalar string as
``bytes`` (an encoded image a profiler hook writes to a file), a scalar number as
a numpy scalar, arrays as arrays (strings of bytes); the image files the hook
writes are the legacy run's, byte for byte."""

from helpers.harness import REPO, side_by_side_records

PROGRAM = REPO / "tests" / "programs" / "hook_fetch_types.py"


def test_hook_fetches_have_the_types_a_session_returned(tmp_path):
    legacy, runtime = side_by_side_records(PROGRAM, tmp_path)
    assert legacy["types"] == [["bytes", "float32", "ndarray", "object", "ndarray"]] * 3
    assert runtime["types"] == legacy["types"]
    assert runtime["losses"] == legacy["losses"]  # the same model: the images must match
    for step in (1, 2, 3):
        name = f"mask_{step}.png"
        written = (tmp_path / "runtime" / name).read_bytes()
        assert written.startswith(b"\x89PNG")
        assert written == (tmp_path / "reference" / name).read_bytes(), name
