"""Two sides' outputs compared value by value: every summary at every step, every
variable of every checkpoint, every export's variables, signatures and served
outputs, every evaluation's metrics and the kept predictions. Equal means equal
bits (a NaN equals a NaN); each difference keeps where it first shows."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

from estimator_revival.migrator.prove import saved_models
from estimator_revival.migrator.prove.outputs import SideOutputs

_CHECKPOINT_STEP = re.compile(r"-(\d+)$")


@dataclasses.dataclass(frozen=True)
class Difference:
    """One compared thing that differs: ``kind`` (summary, checkpoint, export,
    evaluation, prediction), where (an event folder, checkpoint, export or call),
    what (a tag, variable, metric or output), the first step where it differs
    (summaries, checkpoints), and the values there: the first differing element
    and the largest difference relative to each element's own magnitude."""

    kind: str
    where: str
    name: str
    step: int | None = None
    expected: float | str | None = None
    actual: float | str | None = None
    relative: float | None = None
    note: str = ""

    @property
    def training_summary(self) -> bool:
        return self.kind == "summary" and not _is_evaluation(self.where)


@dataclasses.dataclass
class Comparison:
    """What was compared (counts by kind) and what differed."""

    names: tuple = ("reference", "compared")
    compared: dict = dataclasses.field(default_factory=dict)
    differences: list = dataclasses.field(default_factory=list)

    def count(self, kind: str, number: int = 1) -> None:
        self.compared[kind] = self.compared.get(kind, 0) + number

    def first(self) -> Difference | None:
        """The difference to look at first: the earliest step of a training
        summary or checkpoint, else the first found."""
        stepped = [d for d in self.differences if d.step is not None and d.kind != "export"]
        if stepped:
            return min(stepped, key=lambda d: (d.step, d.kind != "summary", d.where, d.name))
        return self.differences[0] if self.differences else None


def compare(expected: SideOutputs, actual: SideOutputs, *, names=("reference", "compared")):
    """``names``: the two sides', as a difference in what they have names them."""
    found = Comparison(names=names)
    _summaries(expected.summaries, actual.summaries, found)
    _checkpoints(expected.checkpoints, actual.checkpoints, found)
    _exports(expected.exports, actual.exports, found)
    _calls("evaluation", expected.evaluations, actual.evaluations, found)
    _calls("prediction", expected.predictions, actual.predictions, found)
    return found


def _is_evaluation(folder: str) -> bool:
    return any(part.startswith("eval") for part in folder.split("/"))


def _missing(kind: str, where: str, names_expected, names_actual, found: Comparison) -> set:
    """Records what only one side has; returns what both have."""
    for name in sorted(set(names_expected) ^ set(names_actual)):
        side = found.names[0] if name in names_expected else found.names[1]
        found.differences.append(
            Difference(kind, where, str(name), note=f"only the {side} run has it")
        )
    return set(names_expected) & set(names_actual)


def _summaries(expected: dict, actual: dict, found: Comparison) -> None:
    for folder in sorted(_missing("summary", "event folders", expected, actual, found)):
        tags = _missing("summary", folder, expected[folder], actual[folder], found)
        for tag in sorted(tags):
            found.count("summary", len(expected[folder][tag]))
            difference = _series(folder, tag, expected[folder][tag], actual[folder][tag])
            if difference is not None:
                found.differences.append(difference)


def _series(folder: str, tag: str, expected: list, actual: list) -> Difference | None:
    for index, ((step, value), (other_step, other)) in enumerate(
        zip(expected, actual, strict=False)
    ):
        if step != other_step:
            return Difference(
                "summary",
                folder,
                tag,
                step,
                f"step {step}",
                f"step {other_step}",
                note=f"value {index + 1} is labelled with another step",
            )
        if not _same(value, other):
            return Difference("summary", folder, tag, step, value, other, _relative(value, other))
    if len(expected) != len(actual):
        return Difference("summary", folder, tag, note=f"{len(expected)} vs {len(actual)} values")
    return None


def _same(expected: float, actual: float) -> bool:
    return expected == actual or (math.isnan(expected) and math.isnan(actual))


def _relative(expected: float, actual: float) -> float:
    if _same(expected, actual):
        return 0.0
    if math.isnan(expected) or math.isnan(actual) or expected == 0:
        return math.inf
    return abs(actual - expected) / abs(expected)


def _arrays(kind, where, name, expected, actual, step=None) -> Difference | None:
    """Two arrays: equal bits, or the first differing element and the largest
    relative difference."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return Difference(
            kind,
            where,
            name,
            step,
            f"{expected.dtype}{list(expected.shape)}",
            f"{actual.dtype}{list(actual.shape)}",
            note="another dtype or shape",
        )
    if expected.dtype.kind not in "fc":
        if np.array_equal(expected, actual):
            return None
        index = np.argwhere(expected != actual)[0]
        return Difference(
            kind,
            where,
            name,
            step,
            repr(expected[tuple(index)]),
            repr(actual[tuple(index)]),
            math.inf,
        )
    if np.array_equal(expected, actual, equal_nan=True):
        return None
    wide_expected = expected.astype(np.float64)
    wide_actual = actual.astype(np.float64)
    unequal = ~((wide_expected == wide_actual) | (np.isnan(wide_expected) & np.isnan(wide_actual)))
    first = tuple(np.argwhere(unequal)[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.abs(wide_actual - wide_expected) / np.abs(wide_expected)
    relative = np.where(unequal, np.nan_to_num(relative, nan=np.inf, posinf=np.inf), 0.0)
    return Difference(
        kind,
        where,
        name,
        step,
        float(wide_expected[first]),
        float(wide_actual[first]),
        float(relative.max()),
    )


def _checkpoints(expected: dict, actual: dict, found: Comparison) -> None:
    import tensorflow as tf

    for prefix in sorted(_missing("checkpoint", "checkpoints", expected, actual, found)):
        try:
            readers = [tf.train.load_checkpoint(str(side[prefix])) for side in (expected, actual)]
        except (tf.errors.OpError, ValueError):
            continue  # an .index file that is not a checkpoint's
        step_match = _CHECKPOINT_STEP.search(prefix)
        step = int(step_match.group(1)) if step_match else None
        shapes = [reader.get_variable_to_shape_map() for reader in readers]
        for name in sorted(_missing("checkpoint", prefix, *shapes, found)):
            found.count("checkpoint")
            difference = _arrays(
                "checkpoint",
                prefix,
                name,
                readers[0].get_tensor(name),
                readers[1].get_tensor(name),
                step,
            )
            if difference is not None:
                found.differences.append(difference)


def _exports(expected: dict, actual: dict, found: Comparison) -> None:
    for export in sorted(_missing("export", "exports", expected, actual, found)):
        found.count("export")
        layouts = [saved_models.signature_layout(side[export]) for side in (expected, actual)]
        if layouts[0] != layouts[1]:
            found.differences.append(
                Difference("export", export, "signatures", note="other signatures or specs")
            )
            continue
        served = [saved_models.serve(side[export], layouts[0]) for side in (expected, actual)]
        for key in sorted(served[0]):
            for output, value in sorted(served[0][key].items()):
                difference = _arrays(
                    "export", export, f"{key}/{output}", value, served[1][key][output]
                )
                if difference is not None:
                    found.differences.append(difference)


def _calls(kind: str, expected: list, actual: list, found: Comparison) -> None:
    if len(expected) != len(actual):
        found.differences.append(
            Difference(kind, f"{kind} calls", "calls", note=f"{len(expected)} vs {len(actual)}")
        )
    for index, (values, others) in enumerate(zip(expected, actual, strict=False)):
        where = f"{'evaluate' if kind == 'evaluation' else 'predict'} call {index + 1}"
        for name in sorted(_missing(kind, where, values, others, found)):
            found.count(kind)
            difference = _arrays(kind, where, name, values[name], others[name])
            if difference is not None:
                found.differences.append(difference)
