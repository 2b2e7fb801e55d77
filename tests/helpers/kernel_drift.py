"""What separates a legacy program's run on TensorFlow 2.15 from the same program on
TensorFlow 2.21 (sides.LEGACY and sides.REFERENCE): kernels whose outputs changed,
named per fixture.

The runtime is compared with the legacy program on its own TensorFlow, bit for bit;
the comparison across versions is this module's. What a kernel change does to a
run depends on the machine, in two ways:

- Some kernels changed only in oneDNN (``Conv2D`` of one channel) or only in
  Eigen (``Softmax``), others on every CPU but for other inputs on each
  (``Reciprocal``: 13% of random inputs on both, not the same ones).
  KERNEL_CHANGES says which, and tests/equivalence/test_kernel_changes.py checks it
  in the configuration the tests run with.
- With oneDNN on, Grappler fuses MatMul + BiasAdd + Tanh into oneDNN's
  ``_MklNativeFusedMatMul``, which did not change; with oneDNN off (TensorFlow's
  default on CPUs without AVX-512 VNNI; ``TF_ENABLE_ONEDNN_OPTS=0``) it stays
  ``_FusedMatMul`` and Eigen's ``Tanh``, which did. So a model with tanh layers
  trains bit for bit on both versions in one configuration and not in the other
  (issue 34's machine: the canned regressor, from its first step; docs/proof.md).

So a fixture names every changed kernel its graphs compute with, which may or may
not change its numbers on a given machine, and on the machine that runs the test:

- ``changed_kernels`` runs the fixture's graph, restored from a trained state, on
  both versions (tests/programs/kernel_probe.py: every op on its own, nothing
  fused; the training step's writes, optimizer apply ops included, fed the same
  numbers) and finds the op types whose outputs changed on equal inputs;
  ``assert_named``: the fixture names exactly the kernels of KERNEL_CHANGES its
  graphs have, and every kernel found changed is one of them, within its bound.
- ``assert_equal_until_the_drift``: the two runs' steps equal, all of them for a
  fixture that names no kernel; with named kernels, equal before the first step
  that differs and each value at it within their bound of its own magnitude, or,
  for a canned estimator's first step, shown exactly by a replay fed the other
  version's outputs of the named kernels. Later steps compound the change
  (training amplifies it) and are compared between the runtime and the legacy
  program on TF 2.21 instead.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

from estimator_revival.migrator.prove.kernel_changes import (  # the table, shipped for prove
    CONTROL_FLOW,
    CONTROL_FLOW_CHANGE,
    CONTROL_FLOW_OPS,
    KERNEL_CHANGES,
)
from helpers.sides import LEGACY, REFERENCE, REPO, onednn_on

__all__ = ["CONTROL_FLOW_OPS"]  # re-exported for the tests

KERNEL_PROBE = REPO / "tests" / "programs" / "kernel_probe.py"


def showing_here(kernels: set[str]) -> set[str]:
    """Of the named ``kernels`` (and TF 1's control flow), those whose change shows
    in the configuration the sides run with: a fixture naming only others must
    give the same bits on both versions here."""
    return {
        k for k in kernels if k == CONTROL_FLOW or KERNEL_CHANGES[k].shows_with(onednn=onednn_on())
    }


def changed_kernels(meta: Path, checkpoint: str, directory: Path) -> dict:
    """``{"changed": {op type: largest relative change}, "ops": [op types]}``: the
    kernels whose outputs changed on the graph of ``meta`` restored from
    ``checkpoint``, and the graph's op types; ``directory`` keeps each version's
    outputs."""
    return changed_kernels_of({"graph": (meta, checkpoint)}, directory)["graph"]


def changed_kernels_of(graphs: dict, directory: Path) -> dict[str, dict]:
    """:func:`changed_kernels` of each ``{name: (meta, checkpoint)}``, with one
    process per TensorFlow version."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, (meta, checkpoint) in graphs.items():
        stem = directory / name.replace("/", "-")
        entries.append(
            {"meta": str(meta), "checkpoint": str(checkpoint), "out": f"{stem}-2.15.npz"}
        )
    _probe(LEGACY, entries, directory / "2.15.json")
    for entry in entries:
        stem = entry["out"].removesuffix("-2.15.npz")
        entry.update(against=entry["out"], out=f"{stem}-2.21.npz", report=f"{stem}-changed.json")
    _probe(REFERENCE, entries, directory / "2.21.json")
    reports = (json.loads(Path(entry["report"]).read_text()) for entry in entries)
    return dict(zip(graphs, reports, strict=True))


def _probe(side, entries: list, manifest: Path) -> None:
    manifest.write_text(json.dumps(entries))
    result = subprocess.run(
        [*side.interpreter, str(KERNEL_PROBE), str(manifest)],
        env=side.env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"kernel probe on {side.tensorflow}:\n{result.stderr[-4000:]}"


def graph_ops_in_events(model_dir: Path) -> set[str]:
    """The op types of every graph the Estimator wrote into the event files under
    ``model_dir`` (training's, and evaluation's under ``eval*/``: a model_fn's
    EVAL graph, which a probe of the training checkpoint does not run), functions
    included."""
    import tensorflow as tf

    ops = set()
    for path in model_dir.rglob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            if event.graph_def:
                graph = tf.compat.v1.GraphDef.FromString(event.graph_def)
                ops |= {node.op for node in graph.node}
                ops |= {n.op for f in graph.library.function for n in f.node_def}
    return ops


def assert_named(
    probes: list[dict], named: set[str], *, what: str, other_ops: set[str] = frozenset()
) -> None:
    """A fixture names exactly the changed kernels its graphs compute with (the
    probed ones', and ``other_ops``: those of graphs only read, as an EVAL graph
    from the event files); every kernel the probes found changed on this machine
    is one of them (none that KERNEL_CHANGES lacks), within its bound."""
    ops = {op for probe in probes for op in probe["ops"]} | set(other_ops)
    assert named == ops & KERNEL_CHANGES.keys(), (
        f"{what}: names {sorted(named)}; of the kernels that changed, its graphs compute "
        f"with {sorted(ops & KERNEL_CHANGES.keys())}"
    )
    for probe in probes:
        for kernel, change in probe["changed"].items():
            assert kernel in KERNEL_CHANGES, (
                f"{what}: {kernel} changed between TF 2.15 and 2.21 on its graph (by {change:.3g} "
                "of a value), and KERNEL_CHANGES lacks it"
            )
            bound = KERNEL_CHANGES[kernel].rtol
            assert change <= bound, (
                f"{what}: {kernel} changed by {change:g} of a value, over {bound:g}"
            )


def drift_bound(kernels: set[str]) -> float:
    """How far one value may move at the first step that differs: the largest
    bound of the kernels (or of TF 1's control flow) named."""
    changes = {**KERNEL_CHANGES, CONTROL_FLOW: CONTROL_FLOW_CHANGE}
    return max(changes[kernel].rtol for kernel in kernels)


def assert_equal_until_the_drift(
    pairs: list, kernels: set[str], *, what: str, replay_first_step=None
) -> int | None:
    """``pairs``: ``(label, step, actual, expected)`` of every value two runs on the
    two TensorFlow versions recorded step by step. Without named kernels, all
    equal. Otherwise equal before the first step where any differs (the drift's
    onset), and each value within ``drift_bound(kernels)`` of its own magnitude at
    it. A value downstream of a changed kernel may move further (a loss summed over
    a batch where its terms nearly cancel): where the onset is the first step,
    ``replay_first_step(kernels)`` may show the step's values exactly instead (it
    asserts, and returns the labels it showed; canned estimators' first step,
    test_canned_estimators.py). Returns the onset (None: no value differs)."""
    onset = min((step for _, step, a, e in pairs if not _same(a, e)), default=None)
    replayed = frozenset()
    for label, step, actual, expected in pairs:
        if not kernels or onset is None or step < onset:
            assert _same(actual, expected), f"{what} {label}@{step}: {actual!r} vs {expected!r}"
        elif step == onset and label not in replayed:
            bound = drift_bound(kernels)
            if abs(actual - expected) <= bound * abs(expected):
                continue
            if step == 1 and replay_first_step is not None and not replayed:
                replayed = replay_first_step(kernels)
                if label in replayed:
                    continue
            raise AssertionError(
                f"{what} {label}@{step}: {actual!r} vs {expected!r} at the drift's onset, more "
                f"than {bound:g} of the value (the bound of {', '.join(sorted(kernels))})"
            )
    return onset


def _same(actual: float, expected: float) -> bool:
    """Equal, a NaN equal to a NaN (a metric's 0 / 0, SDCA's first duality gap)."""
    return actual == expected or (math.isnan(actual) and math.isnan(expected))
