"""What the comparisons mean.

- The runtime against the reference (the legacy program on the same TensorFlow):
  **identical**, every value equal bit for bit; **raced**, only summaries of
  training steps differ while every checkpoint (each variable of each one),
  evaluation, prediction and export is equal: reads that TF 1's Session ran with
  no order against the step's update (docs/prove.md, "What it cannot see"); or
  **not explained**.
- The legacy run against the reference: the same program on two TensorFlow
  versions, so whatever differs is TensorFlow's change, by construction. The
  kernels of ``kernel_changes.KERNEL_CHANGES`` that the program's graphs compute
  with are named, with their bound, and the first differing step is checked
  against it.
"""

from __future__ import annotations

import dataclasses
import math

from estimator_revival.migrator.prove.comparison import Comparison
from estimator_revival.migrator.prove.kernel_changes import (
    CONTROL_FLOW,
    CONTROL_FLOW_CHANGE,
    CONTROL_FLOW_OPS,
    KERNEL_CHANGES,
)

IDENTICAL = "identical"
RACED = "raced"
EXPLAINED = "explained"
NOT_EXPLAINED = "not explained"
SIDE_FAILED = "a side failed"
PROVE_FAILED = "prove failed"  # prove itself could not go on (the report has the error)
EXIT_STATUS = {IDENTICAL: 0, EXPLAINED: 0, NOT_EXPLAINED: 1, SIDE_FAILED: 2, PROVE_FAILED: 2}


def classify(comparison: Comparison) -> str:
    """IDENTICAL, RACED or NOT_EXPLAINED, as the module says (the caller reads
    NOT_EXPLAINED between the legacy run and the reference as TensorFlow's change)."""
    differences = comparison.differences
    if not differences:
        return IDENTICAL
    if comparison.compared.get("checkpoint") and all(d.training_summary for d in differences):
        return RACED
    return NOT_EXPLAINED


@dataclasses.dataclass(frozen=True)
class Drift:
    """What separates the legacy run from the reference: the changed kernels its
    graphs compute with ({name: KernelChange}), the first differing step of a
    training summary, and whether each value there is within their bound."""

    kernels: dict
    onset: int | None
    within_bound: bool | None

    @property
    def bound(self) -> float | None:
        return max((change.rtol for change in self.kernels.values()), default=None)


def legacy_drift(comparison: Comparison, graph_ops: set, *, onednn: bool, tf1: bool) -> Drift:
    kernels = {
        name: change
        for name, change in KERNEL_CHANGES.items()
        if name in graph_ops and change.shows_with(onednn=onednn)
    }
    if tf1 and CONTROL_FLOW_OPS & graph_ops:
        kernels[CONTROL_FLOW] = CONTROL_FLOW_CHANGE
    stepped = [d for d in comparison.differences if d.training_summary and d.step is not None]
    onset = min((d.step for d in stepped), default=None)
    within = None
    if kernels and onset is not None:
        bound = max(change.rtol for change in kernels.values())
        at_onset = [d.relative for d in stepped if d.step == onset]
        within = all(r is not None and not math.isinf(r) and r <= bound for r in at_onset)
    return Drift(kernels, onset, within)


def overall(runtime: str, legacy_differs: bool) -> str:
    if runtime == NOT_EXPLAINED:
        return NOT_EXPLAINED
    return EXPLAINED if legacy_differs or runtime == RACED else IDENTICAL
