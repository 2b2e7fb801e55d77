"""Equivalence harness: run a legacy program under TF 2.15 + tensorflow-estimator
and its migrated twin under the runtime on TF 2.21, then compare their traces.

Both sides always really run; nothing is recorded ahead of time.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from migrator.dialect import TF1, tensorflow_dialect

REPO = Path(__file__).resolve().parents[1]
MAIN_PYTHON = Path(sys.executable)
LEGACY_PYTHON = Path(os.environ.get("LEGACY_PYTHON", REPO / ".venv-legacy" / "bin" / "python"))
FIXTURES = REPO / "fixtures" / "equivalence"
RUN_LEGACY = REPO / "tests" / "standins" / "run_legacy.py"
# Replays a legacy run's saved graph in a plain Session (reference runs, kernel drift)
LEGACY_GRAPH_REPLAY = REPO / "tests" / "programs" / "legacy_graph_replay.py"


@dataclasses.dataclass
class Trace:
    """What one program run wrote: ``trace.json`` plus ``arrays.npz``."""

    data: dict
    arrays: dict
    out: Path  # the run's output directory (exports live under it)

    @classmethod
    def load(cls, out: Path) -> Trace:
        with open(out / "trace.json") as f:
            data = json.load(f)
        with np.load(out / "arrays.npz") as npz:
            arrays = {key: npz[key] for key in npz.files}
        return cls(data, arrays, out)


def program_env(*, legacy: bool) -> dict:
    """The environment both sides run in: CPU only, the repository importable, and
    no tf-keras selection on the legacy side (TF 2.15 ships Keras 2)."""
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        TF_CPP_MIN_LOG_LEVEL="2",
        CUDA_VISIBLE_DEVICES="",
        TF_ENABLE_ONEDNN_OPTS="1",
    )
    if legacy:
        env.pop("TF_USE_LEGACY_KERAS", None)
    return env


def run_program(program: Path, out: Path, *, legacy: bool, args=(), timeout=600) -> Trace:
    """Runs a fixture program with the right interpreter and returns its trace."""
    result = subprocess.run(
        [*program_command(program, legacy=legacy), "--out", str(out), *args],
        cwd=REPO,
        env=program_env(legacy=legacy),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        side = "legacy" if legacy else "migrated"
        raise AssertionError(
            f"{side} program {program} failed ({result.returncode}):\n{result.stderr[-6000:]}"
        )
    return Trace.load(out)


def side_by_side_records(program: Path, model_dir: Path, args=()) -> tuple:
    """``(legacy, runtime)``: the JSON a test program prints when run as
    ``program legacy|runtime MODEL_DIR [ARGS]`` under each interpreter."""
    return (
        program_record(LEGACY_PYTHON, program, "legacy", model_dir / "legacy", args),
        program_record(MAIN_PYTHON, program, "runtime", model_dir / "runtime", args),
    )


def program_record(python: Path, program: Path, side: str, model_dir: Path, args=()) -> dict:
    """The JSON ``program SIDE MODEL_DIR [ARGS]`` prints under ``python`` (the
    runtime side also runs on TF 2.15: the legacy interpreter with the repository
    importable and tf-keras installed)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO))
    env.pop("TF_CONFIG", None)
    result = subprocess.run(
        [str(python), str(program), side, str(model_dir), *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(result.stdout)


# CPython 3.11's ast.parse is not safe in two threads at once (its AST conversion
# keeps one recursion counter per interpreter: "SystemError: AST constructor
# recursion depth mismatch", seen in a clean-clone CI run); run_sides' threads
# parse one at a time.
_PARSING = threading.Lock()


def program_command(program: Path, *, legacy: bool) -> list[str]:
    """How to run a program: a legacy one written for TF 1.x (``migrator.dialect``)
    gets TF 1's API on TF 2.15 (``tests/standins/tf1_api.py``)."""
    if not legacy:
        return [str(MAIN_PYTHON), str(program)]
    code = program.read_text()
    with _PARSING:
        tree = ast.parse(code)
    if tensorflow_dialect(code, tree) == TF1:
        return [str(LEGACY_PYTHON), str(RUN_LEGACY), "--tf1-api", str(program)]
    return [str(LEGACY_PYTHON), str(program)]


def run_sides(case: str, tmp: Path, runs: dict[str, tuple[bool, tuple]]) -> dict[str, Trace]:
    """Runs several invocations of a fixture in parallel.

    ``runs`` maps a label to ``(legacy, args)``; the legacy side runs
    ``legacy.py`` under TF 2.15, the other ``migrated.py`` under the runtime.
    """
    directory = FIXTURES / case
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        futures = {
            label: pool.submit(
                run_program,
                directory / ("legacy.py" if legacy else "migrated.py"),
                tmp / label,
                legacy=legacy,
                args=args,
            )
            for label, (legacy, args) in runs.items()
        }
        return {label: future.result() for label, future in futures.items()}


def run_pair(case: str, tmp: Path, args=()) -> tuple[Trace, Trace]:
    """The legacy program on TF 2.15 and its migrated twin on the runtime."""
    traces = run_sides(case, tmp, {"legacy": (True, tuple(args)), "migrated": (False, tuple(args))})
    return traces["legacy"], traces["migrated"]


def assert_close(legacy: Trace, migrated: Trace, *, rtol: float) -> None:
    """Like :func:`assert_bit_identical`, each value within ``rtol`` of its own
    magnitude (:func:`assert_relatively_close`)."""
    pairs = [("per-step loss", migrated.data["losses"], legacy.data["losses"])]
    assert migrated.data["eval"].keys() == legacy.data["eval"].keys()
    pairs += [(k, migrated.data["eval"][k], v) for k, v in legacy.data["eval"].items()]
    assert migrated.data["variables"] == legacy.data["variables"], "variable names"
    for key in ("checkpoints", "loop_checkpoints", "extras", "exporter_versions"):
        assert migrated.data.get(key) == legacy.data.get(key), key
    for key in ("summaries", "loop_summaries", "eval_summaries"):
        assert migrated.data[key].keys() == legacy.data[key].keys(), key
        legacy_summaries, migrated_summaries = summaries_without_step_races(
            legacy.data[key], migrated.data[key]
        )
        for tag, expected in legacy_summaries.items():
            actual = migrated_summaries[tag]
            assert [step for step, _ in actual] == [step for step, _ in expected], tag
            pairs.append((f"{key}/{tag}", [v for _, v in actual], [v for _, v in expected]))
    assert sorted(migrated.arrays) == sorted(legacy.arrays)
    for key, expected in legacy.arrays.items():
        if expected.dtype.kind == "f":
            pairs.append((key, migrated.arrays[key], expected))
        else:
            np.testing.assert_array_equal(migrated.arrays[key], expected, key)
    for name, actual, expected in pairs:
        assert_relatively_close(actual, expected, rtol=rtol, what=name)


# Below this magnitude a float32 value is rounding noise of the O(1) quantities it
# was computed from (cancellation in a sum, an optimizer slot that decayed towards
# zero): one ulp of 1.0 is 1.2e-7.
NOISE_FLOOR = 1e-7


def assert_relatively_close(
    actual, expected, *, rtol: float, what: str, floor: float = NOISE_FLOOR
) -> None:
    """Each value within ``rtol`` of its own magnitude, or within ``floor`` of the
    expected value where that is larger; names the worst value."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, what
    if not expected.size:
        return
    allowed = np.maximum(rtol * np.abs(expected), floor)
    excess = np.abs(actual - expected) / allowed
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess[worst] <= 1.0, (
        f"{what}[{', '.join(map(str, worst))}]: {actual[worst]!r} vs {expected[worst]!r} "
        f"(allowed {allowed[worst]:g})"
    )


def assert_bit_identical(legacy: Trace, migrated: Trace, *, skipped_steps: bool = False) -> None:
    """Every number equal: losses, evaluate dict, predictions, variables, and the
    checkpoints and summaries of the hooked and the hook-free (multi-step loop) runs.

    ``skipped_steps``: some runs did not advance the global step (a loss-scale
    optimizer skipped them); see :func:`assert_skipped_step_labels`.
    """
    assert len(legacy.data["losses"]) > 0, "the legacy run recorded no training step"
    np.testing.assert_array_equal(
        np.asarray(migrated.data["losses"]), np.asarray(legacy.data["losses"]), "per-step loss"
    )
    assert migrated.data.get("eval") == legacy.data.get("eval"), "evaluate() dict"
    assert migrated.data["variables"] == legacy.data["variables"], "variable names"
    exact = ["checkpoints", "loop_checkpoints", "eval_summaries", "extras", "exporter_versions"]
    for summaries in ("summaries", "loop_summaries"):
        if skipped_steps:
            assert_skipped_step_labels(legacy.data[summaries], migrated.data[summaries])
        else:
            expected, actual = summaries_without_step_races(
                legacy.data[summaries], migrated.data[summaries]
            )
            assert actual == expected, summaries
    for key in exact:
        assert migrated.data.get(key) == legacy.data.get(key), key
    assert sorted(migrated.arrays) == sorted(legacy.arrays)
    for key, expected in legacy.arrays.items():
        np.testing.assert_array_equal(migrated.arrays[key], expected, key)


def summaries_without_step_races(legacy: dict, migrated: dict) -> tuple[dict, dict]:
    """``{tag: [[step, value], ...]}`` of both runs without the summaries TF 1's
    SummarySaverHook wrote early: its global step read races the optimizer's
    increment in the same run (tests/programs/global_step_race_probe.py: 9 of 20000
    runs on TF 2.15), and when the increment wins, the hook takes the step for one
    more than it is and writes the next summary, and every later one, one step
    early. The runtime always writes at the steps of the read winning. So where the
    legacy labels fall behind the runtime's, by one more step at each race, the
    entries from there on are another step's values and are left out of both; any
    other difference in labels is kept, for the comparison to fail on."""
    kept_legacy, kept_migrated = {}, {}
    for tag, expected in legacy.items():
        actual = migrated.get(tag, [])
        behind = [a - e for (e, _), (a, _) in zip(expected, actual, strict=False)]
        raced = (
            len(actual) == len(expected)
            and behind
            and behind[0] == 0
            and all(later - earlier in (0, 1) for earlier, later in itertools.pairwise(behind))
        )
        kept = behind.index(1) if raced and 1 in behind else len(expected)
        kept_legacy[tag], kept_migrated[tag] = expected[:kept], actual[:kept]
    for tag in migrated.keys() - legacy.keys():
        kept_migrated[tag] = migrated[tag]
    return kept_legacy, kept_migrated


def assert_skipped_step_labels(legacy: dict, migrated: dict) -> None:
    """Summaries written every step (``save_summary_steps=1``) of a run in which
    some steps did not advance the global step: the same values in the same
    order; the Estimator labelled a skipped run's summaries with the global step
    after the run (unchanged), the runtime labels every run's in-step summaries
    with the step before it + 1 (docs/runtime.md, "Summaries"). So each label is
    equal, except a skipped run's, which is one more.
    """
    assert migrated.keys() == legacy.keys(), "summary tags"
    for tag, expected in legacy.items():
        actual = migrated[tag]
        assert [value for _, value in actual] == [value for _, value in expected], tag
        labels = [step for step, _ in expected]
        skipped = [step == (labels[i - 1] if i else 0) for i, step in enumerate(labels)]
        assert any(skipped), f"{tag}: no skipped step, compare summaries exactly"
        wanted = [step + int(skip) for step, skip in zip(labels, skipped, strict=True)]
        assert [step for step, _ in actual] == wanted, tag


# Summaries the canned linear models write of variables they read with no
# dependency on the train op (tensorflow-estimator's `bias` and
# `fraction_of_zero_weights`; the TF 1 flavour's under `linear/`): TF 1's Session
# raced those reads with the update.
RACY_SUMMARIES = (
    "bias",
    "fraction_of_zero_weights",
    "linear/bias",
    "linear/fraction_of_zero_weights",
)


def assert_racy_reads(actual: list, expected: list, *, what: str) -> None:
    """A summary of a read that TF 1's Session raced with the step's update: the
    runtime reads before the update (TF 1's usual outcome); the legacy value at
    each step is that one (the read won) or the next step's (the update won, and
    the next step reads what it wrote). A lost race at the last step has no next
    value to match, and is the one value left unchecked."""
    assert [step for step, _ in actual] == [step for step, _ in expected], what
    values = [value for _, value in actual]
    for index, (step, value) in enumerate(expected):
        following = values[index + 1 : index + 2]
        if index + 1 == len(expected) and value != values[index]:
            continue
        assert value in (values[index], *following), (
            f"{what}@{step}: {value!r} is neither the runtime's read before the update "
            f"({values[index]!r}) nor after it ({following})"
        )
