"""Equivalence harness: runs a fixture program as each side runs it
(``tests/helpers/sides.py``: the legacy program on TF 2.15 and on TF 2.21, the migrated one
on the runtime) and compares what the runs wrote.

Every side always really runs; nothing is recorded ahead of time.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from helpers.kernel_drift import assert_equal_until_the_drift, drift_bound, showing_here
from helpers.sides import REFERENCE, REPO, RUNTIME, Side

FIXTURES = REPO / "fixtures" / "equivalence"


@dataclasses.dataclass
class Trace:
    """What one program run wrote: ``trace.json`` plus ``arrays.npz``."""

    data: dict
    arrays: dict
    out: Path  # the run's output directory (exports and the model_dir live under it)

    @classmethod
    def load(cls, out: Path) -> Trace:
        with open(out / "trace.json") as f:
            data = json.load(f)
        with np.load(out / "arrays.npz") as npz:
            arrays = {key: npz[key] for key in npz.files}
        return cls(data, arrays, out)


def run_program(program: Path, out: Path, *, side: Side, args=(), timeout=600) -> Trace:
    """Runs a fixture program as ``side`` runs it and returns its trace."""
    result = subprocess.run(
        [*side.command(program), "--out", str(out), *args],
        cwd=REPO,
        env=side.env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise AssertionError(
            f"{side.name} program {program} failed ({result.returncode}):\n{result.stderr[-6000:]}"
        )
    return Trace.load(out)


def side_by_side_records(program: Path, model_dir: Path, args=()) -> tuple:
    """``(reference, runtime)``: the JSON a test program prints when run as
    ``program legacy|runtime MODEL_DIR [ARGS]`` by the reference and the runtime side."""
    return tuple(
        program_record(side, program, model_dir / side.name, args) for side in (REFERENCE, RUNTIME)
    )


def program_record(side: Side, program: Path, model_dir: Path, args=(), **env: str) -> dict:
    """The JSON ``program legacy|runtime MODEL_DIR [ARGS]`` prints, run as ``side``
    (its environment updated with ``env``)."""
    result = subprocess.run(
        [*side.interpreter, str(program), side.program_argument, str(model_dir), *args],
        capture_output=True,
        text=True,
        env=side.env(TF_CPP_MIN_LOG_LEVEL="3", **env),
    )
    assert result.returncode == 0, f"{side.name} {program.name}:\n{result.stderr[-6000:]}"
    return json.loads(result.stdout)


def run_sides(case: str, tmp: Path, runs: dict[str, tuple[Side, tuple]]) -> dict[str, Trace]:
    """Runs several invocations of a fixture in parallel.

    ``runs`` maps a label to ``(side, args)``; a side that runs the legacy program
    runs ``legacy.py``, the runtime ``migrated.py``.
    """
    directory = FIXTURES / case
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        futures = {
            label: pool.submit(
                run_program,
                directory / ("legacy.py" if side.runs_legacy_program else "migrated.py"),
                tmp / label,
                side=side,
                args=args,
            )
            for label, (side, args) in runs.items()
        }
        return {label: future.result() for label, future in futures.items()}


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
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(actual == expected, 0.0, np.abs(actual - expected) / allowed)
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess[worst] <= 1.0, (
        f"{what}[{', '.join(map(str, worst))}]: {actual[worst]!r} vs {expected[worst]!r} "
        f"(allowed {allowed[worst]:g})"
    )


def assert_bit_identical(
    legacy: Trace, migrated: Trace, *, skipped_steps: bool = False, both_legacy: bool = False
) -> None:
    """Every number equal: losses, evaluate dict, predictions, variables, and the
    checkpoints and summaries of the hooked and the hook-free (multi-step loop) runs.

    ``skipped_steps``: some runs did not advance the global step (a loss-scale
    optimizer skipped them); see :func:`assert_skipped_step_labels`.
    ``both_legacy``: two runs of TF 1's Session, either of which may have raced
    (:func:`summaries_without_races_of_either`).
    """
    without_races = (
        summaries_without_races_of_either if both_legacy else summaries_without_step_races
    )
    assert len(legacy.data["losses"]) > 0, "the legacy run recorded no training step"
    np.testing.assert_array_equal(
        np.asarray(migrated.data["losses"]), np.asarray(legacy.data["losses"]), "per-step loss"
    )
    assert migrated.data.get("eval") == legacy.data.get("eval"), "evaluate() dict"
    assert migrated.data["variables"] == legacy.data["variables"], "variable names"
    exact = [
        "checkpoints",
        "loop_checkpoints",
        "eval_summaries",
        "extras",
        "exporter_versions",
        "input_fn_calls",
    ]
    for summaries in ("summaries", "loop_summaries"):
        if skipped_steps:
            assert_skipped_step_labels(legacy.data[summaries], migrated.data[summaries])
        else:
            expected, actual = without_races(legacy.data[summaries], migrated.data[summaries])
            assert actual == expected, summaries
    legacy_protos, migrated_protos = legacy.data["summary_protos"], migrated.data["summary_protos"]
    assert migrated_protos["forms"] == legacy_protos["forms"], "summary_protos forms"
    expected, actual = (
        (legacy_protos["histograms"], migrated_protos["histograms"])
        if skipped_steps
        else without_races(_histogram_series(legacy_protos), _histogram_series(migrated_protos))
    )
    assert actual == expected, "summary_protos histograms"
    for key in exact:
        assert migrated.data.get(key) == legacy.data.get(key), key
    assert_every_step_identical(legacy, migrated)
    assert sorted(migrated.arrays) == sorted(legacy.arrays)
    for key, expected in legacy.arrays.items():
        if not key.startswith("step/"):  # compared step by step above
            np.testing.assert_array_equal(migrated.arrays[key], expected, key)


def assert_equals_a_run_of_its_side(
    reference: Trace, runtime: Trace, *, rerun: Callable[[], Trace], skipped_steps: bool = False
) -> Trace:
    """:func:`assert_bit_identical` against ``reference``, or, where the two differ
    and ``rerun()`` (the reference's side run again) does not repeat ``reference``,
    against that second run; returns the run the runtime equals.

    TF's own Session does not always repeat itself: under load, a run of the
    legacy program on TF 2.21 has ended with different optimizer slots after the
    last steps of its hook-free training (``tf1_xlnet_relative_attention``: 77 slots
    a few ulp off after step 63 or 64, checkpoint 62 equal, its variables equal;
    once in about 30 loaded runs, never with a light load). The runtime still has
    to equal a run of the reference bit for bit; a second run is asked for only
    when it does not, and counts only if it shows that the first one did not
    repeat.
    """
    try:
        assert_bit_identical(reference, runtime, skipped_steps=skipped_steps)
        return reference
    except AssertionError as mismatch:
        again = rerun()
        try:
            assert_bit_identical(reference, again, skipped_steps=skipped_steps, both_legacy=True)
        except AssertionError:  # the reference did not repeat itself
            assert_bit_identical(again, runtime, skipped_steps=skipped_steps)
            return again
        raise mismatch


def _histogram_series(summary_protos: dict) -> dict:
    """The histograms of ``summary_protos`` as ``{tag: [[step, (min, max, ...)], ...]}``,
    the series form :func:`summaries_without_step_races` reads: the hooked run's
    histograms are written by the same racing SummarySaverHook as its scalars."""
    return {
        tag: [[row[0], row[1:]] for row in rows]
        for tag, rows in summary_protos["histograms"].items()
    }


def recorded_steps(trace: Trace) -> list[str]:
    """The steps after which the hooked training read every global variable."""
    return sorted({key.split("/")[1] for key in trace.arrays if key.startswith("step/")})


def assert_every_step_identical(legacy: Trace, migrated: Trace) -> None:
    """Every global variable (the model's, every optimizer slot, the step) after
    every step of the hooked training, bit for bit; names the first step and
    variable that differ (a slot's few ulp show here long before a loss does)."""
    keys = sorted(key for key in legacy.arrays if key.startswith("step/"))
    assert keys == sorted(key for key in migrated.arrays if key.startswith("step/")), (
        "the variables read after each step"
    )
    for key in keys:  # step by step, each step's variables by name
        expected, actual = legacy.arrays[key], migrated.arrays[key]
        if not np.array_equal(actual, expected, equal_nan=expected.dtype.kind == "f"):
            _, step, name = key.split("/", 2)
            differing = np.flatnonzero(np.asarray(actual != expected).ravel())
            raise AssertionError(
                f"after step {int(step)}, {name} differs first ({differing.size} of "
                f"{expected.size} elements, e.g. element {differing[0]}: "
                f"{np.ravel(actual)[differing[0]]!r} vs {np.ravel(expected)[differing[0]]!r})"
            )


def assert_versions_agree(old: Trace, new: Trace, kernels: set[str]) -> None:
    """The legacy program on TF 2.15 (``old``) and on TF 2.21 (``new``): everything
    bit for bit without named kernels; with them, the same structure, and each
    training's steps equal until the drift's onset (kernel_drift). Values after a
    drifting training compound the change, and are left to the runtime's
    comparison with ``new``; after a training that did not drift (the same
    variables), the evaluation and predictions differ by the named kernels alone.
    Only the named kernels whose change shows in this configuration count."""
    kernels = showing_here(kernels)
    if not kernels:
        assert_bit_identical(old, new, both_legacy=True)
        return
    for key in ("variables", "checkpoints", "loop_checkpoints", "exporter_versions"):
        assert new.data.get(key) == old.data.get(key), key
    assert new.data["eval"].keys() == old.data["eval"].keys(), "evaluate() keys"
    assert {k: v.shape for k, v in new.arrays.items()} == {
        k: v.shape for k, v in old.arrays.items()
    }
    hooked = [(f"loss[{i}]", i + 1, a, e) for i, (a, e) in enumerate(_paired(new, old, "losses"))]
    old_hooked, new_hooked = summaries_without_races_of_either(
        old.data["summaries"], new.data["summaries"]
    )
    hooked += _step_pairs(new_hooked, old_hooked, "summaries")
    old_looped, new_looped = summaries_without_races_of_either(
        old.data["loop_summaries"], new.data["loop_summaries"]
    )
    looped = _step_pairs(new_looped, old_looped, "loop_summaries")
    onsets = [
        assert_equal_until_the_drift(pairs, kernels, what=run)
        for run, pairs in (("trained with hooks", hooked), ("trained in loops", looped))
    ]
    trained = [key for key in old.arrays if key.startswith(("var/", "loopvar/"))]
    if any(onset is not None for onset in onsets) or not all(
        np.array_equal(new.arrays[key], old.arrays[key]) for key in trained
    ):
        return  # the training drifted (at its last update, if no step shows it)
    bound = drift_bound(kernels)
    evaluation = _step_pairs(new.data["eval_summaries"], old.data["eval_summaries"], "eval")
    evaluation += [
        (key, 0, new.data["eval"][key], value) for key, value in old.data["eval"].items()
    ]
    assert_equal_until_the_drift(evaluation, kernels, what="evaluation")
    for key, expected in old.arrays.items():
        if expected.dtype.kind == "f":
            assert_relatively_close(new.arrays[key], expected, rtol=bound, what=key, floor=0.0)
        else:
            np.testing.assert_array_equal(new.arrays[key], expected, key)


def _paired(new: Trace, old: Trace, key: str) -> list:
    assert len(new.data[key]) == len(old.data[key]), key
    return list(zip(new.data[key], old.data[key], strict=True))


def _step_pairs(new: dict, old: dict, what: str) -> list:
    """``(label, step, new value, old value)`` of two runs' ``{tag: [[step, value]]}``,
    which have the same tags and steps."""
    assert new.keys() == old.keys(), what
    pairs = []
    for tag, series in old.items():
        assert [s for s, _ in new[tag]] == [s for s, _ in series], f"{what}/{tag} steps"
        pairs += [
            (f"{what}/{tag}", s, a, e) for (s, e), (_, a) in zip(series, new[tag], strict=True)
        ]
    return pairs


def summaries_without_races_of_either(old: dict, new: dict) -> tuple[dict, dict]:
    """:func:`summaries_without_step_races` of two legacy runs (the program on TF
    2.15 and on 2.21), where either one's SummarySaverHook may have raced: the
    entries from where ``old``'s labels fall behind ``new``'s, or ``new``'s behind
    ``old``'s, are left out of both."""
    old, new = summaries_without_step_races(old, new)
    new, old = summaries_without_step_races(new, old)
    return old, new


def summaries_without_step_races(legacy: dict, migrated: dict) -> tuple[dict, dict]:
    """``{tag: [[step, value], ...]}`` of both runs without the summaries TF 1's
    SummarySaverHook wrote early: its global step read races the optimizer's
    increment in the same run (tests/programs/global_step_race_probe.py: 9 of 20000
    runs on TF 2.15), and when the increment wins, the hook takes the step for one
    more than it is and writes the next summary, and every later one, one step
    early. The runtime always writes at the steps of the read winning. So where the
    legacy labels fall behind the runtime's, by one more step at each race, the
    entries from there on are another step's values and are left out of both (the
    legacy run may then fit one more summary per race before its last step); any
    other difference in labels is kept, for the comparison to fail on."""
    kept_legacy, kept_migrated = {}, {}
    for tag, expected in legacy.items():
        actual = migrated.get(tag, [])
        behind = [a - e for (e, _), (a, _) in zip(expected, actual, strict=False)]
        raced = (
            behind
            and behind[0] == 0
            and all(later - earlier in (0, 1) for earlier, later in itertools.pairwise(behind))
            and 0 <= len(expected) - len(actual) <= behind[-1]
        )
        if raced and 1 in behind:
            kept_legacy[tag], kept_migrated[tag] = (
                expected[: behind.index(1)],
                actual[: behind.index(1)],
            )
        else:
            kept_legacy[tag], kept_migrated[tag] = expected, actual
    for tag in migrated.keys() - legacy.keys():
        kept_migrated[tag] = migrated[tag]
    return kept_legacy, kept_migrated


def assert_racy_step_labels(
    actual: list, expected: list, *, what: str, actual_races: bool = False
) -> None:
    """``[(step, value), ...]`` of a summary whose step label is the program's own
    read of the global step, a TF 1 reference variable its Session read with no
    order against the optimizer's increment in the same run (a host_call's
    ``tf.reshape(global_step, [1])`` after ``minimize``, as TF 1.15 ran it): the
    same values in the same order, and each legacy label the step before the
    increment (the runtime's: the read runs first) or the one after it. With
    ``actual_races`` (two legacy runs) either label may be the later one."""
    assert [value for _, value in actual] == [value for _, value in expected], what
    allowed = (-1, 0, 1) if actual_races else (0, 1)
    for (label, _), (actual_label, _) in zip(expected, actual, strict=True):
        assert label - actual_label in allowed, (what, label, actual_label)


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
    each step is that one (the read won), the next step's (the update won, and
    the next step reads what it wrote), or, for a read of many weights that the
    update was writing meanwhile, one between the two (a fraction of zero weights
    with part of them updated: 0.5333 between 0.5667 and 0.5 in a clean-clone CI
    run of 2026-11-27). A lost race at the last step has no next value to match,
    and is the one value left unchecked."""
    assert [step for step, _ in actual] == [step for step, _ in expected], what
    values = [value for _, value in actual]
    for index, (step, value) in enumerate(expected):
        following = values[index + 1 : index + 2]
        if index + 1 == len(expected) and value != values[index]:
            continue
        bounds = (values[index], *following)
        assert min(bounds) <= value <= max(bounds), (
            f"{what}@{step}: {value!r} is neither the runtime's read before the update "
            f"({values[index]!r}), nor after it ({following}), nor between them"
        )
