"""Runtime benchmark: the same model_fns trained by tf.estimator on TF 2.15 and by
the runtime on TF 2.21, in one run, one after the other on the same machine.

    .venv/bin/python bench/runtime/run.py [--repeat N]

Prints steps/s of each side (best of --repeat runs, default 3: single runs vary by
up to 40% on a shared 2-core machine) and the runtime/legacy ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKLOAD = Path(__file__).with_name("workload.py")
PYTHONS = {
    "legacy": os.environ.get("LEGACY_PYTHON", str(REPO / ".venv-legacy" / "bin" / "python")),
    "runtime": sys.executable,
}
# tiny: logistic regression + SGD (per-step overhead dominates: where in-graph
# loops matter most); small: 2-layer MLP + Adam; heavy: a 3-conv CNN.
STEPS = {"tiny": 20000, "small": 20000, "heavy": 60}


def measure(side: str, model: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    if side == "legacy":
        env.pop("TF_USE_LEGACY_KERAS", None)
    result = subprocess.run(
        [PYTHONS[side], str(WORKLOAD), side, model, str(STEPS[model])],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])["steps_per_sec"]


def rows(repeat: int) -> list[dict]:
    table = []
    for model in STEPS:
        best = {side: max(measure(side, model) for _ in range(repeat)) for side in PYTHONS}
        table.append(
            {
                "benchmark": f"runtime/{model} ({STEPS[model]} steps)",
                "legacy steps/s": best["legacy"],
                "runtime steps/s": best["runtime"],
                "ratio": best["runtime"] / best["legacy"],
            }
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'benchmark':32} {'legacy steps/s':>15} {'runtime steps/s':>16} {'ratio':>7}")
    for row in rows(args.repeat):
        print(
            f"{row['benchmark']:32} {row['legacy steps/s']:15.1f} "
            f"{row['runtime steps/s']:16.1f} {row['ratio']:6.2f}x"
        )


if __name__ == "__main__":
    main()
