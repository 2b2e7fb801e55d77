"""Which equivalence fixtures run model_fn's own graph (runtime/tf1/graph_slice.py)
instead of calling model_fn a second time to trace it: per fixture program, whether
discovery found a slice of its training step, its predictions and its metrics, and
whether a training step ran the slice.

    .venv/bin/python bench/runtime/graph_paths.py            # every fixture, with totals
    .venv/bin/python bench/runtime/graph_paths.py --probe FIXTURE_PROGRAM ARGS...

Each fixture's ``migrated.py`` runs in its own process (``--probe``), which records
what discovery returned and prints it as JSON on its last line of stderr.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "equivalence"
MARK = "GRAPH_PATHS "


def probe(program: str, args: list[str]) -> None:
    """Runs ``program`` as its __main__ with discovery and the sliced step observed."""
    from estimator_revival.engine import steps
    from estimator_revival.tf1 import discovery

    found = collections.Counter()
    # every step that runs a slice, hooked (with fetches) or not
    discover, sliced_step = discovery.discover, steps.TrainPrograms._sliced_train_step

    def observed_discover(input_graph, *, call_model_fn):
        blueprint = discover(input_graph, call_model_fn=call_model_fn)
        found[f"{blueprint.mode}/calls"] += 1
        found[f"{blueprint.mode}/train_step_slice"] += blueprint.train_step is not None
        found[f"{blueprint.mode}/predictions_slice"] += blueprint.predictions is not None
        found[f"{blueprint.mode}/metric_slices"] += (
            blueprint.metric_values is not None and blueprint.metric_updates is not None
        )
        return blueprint

    def observed_sliced_step(self, *args):
        found["train/sliced_step_traced"] += 1
        return sliced_step(self, *args)

    discovery.discover = observed_discover
    steps.TrainPrograms._sliced_train_step = observed_sliced_step
    sys.argv = [program, *args]
    try:
        runpy.run_path(program, run_name="__main__")
    finally:
        print(MARK + json.dumps(found), file=sys.stderr)


def survey() -> None:
    totals = collections.Counter()
    fixtures = sorted(p.parent.name for p in FIXTURES.glob("*/migrated.py"))
    for name in fixtures:
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run(
                [sys.executable, __file__, "--probe", str(FIXTURES / name / "migrated.py")]
                + ["--out", out],
                capture_output=True,
                text=True,
                cwd=REPO,
                env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"),
            )
        lines = [line for line in result.stderr.splitlines() if line.startswith(MARK)]
        found = json.loads(lines[-1][len(MARK) :]) if lines else {}
        row = {
            "training step sliced": bool(found.get("train/sliced_step_traced")),
            "predictions sliced": bool(found.get("infer/predictions_slice")),
            "metrics sliced": found.get("eval/metric_slices", 0) == found.get("eval/calls", -1),
        }
        totals.update(key for key, value in row.items() if value)
        flags = ", ".join(key for key, value in row.items() if value) or "-"
        print(f"{name}: {flags}" + ("" if result.returncode == 0 else " (program failed)"))
    print(f"of {len(fixtures)} fixtures: " + ", ".join(f"{k} {v}" for k, v in totals.items()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    if options.probe:
        probe(options.probe[0], options.probe[1:])
    else:
        survey()


if __name__ == "__main__":
    main()
