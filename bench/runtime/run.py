"""Runtime benchmark: the same model_fns trained by tf.estimator on TF 2.15 and by
the runtime on TF 2.21, in one run, one after the other on the same machine.

    .venv/bin/python bench/runtime/run.py [--repeat N] [--only models|per-call]

Prints steps/s of each side (best of --repeat runs, default 3: single runs vary by
up to 40% on a shared 2-core machine) and the runtime/legacy ratio; then, for a
small MLP with batch norm and Adam, the per-call rows of issue 17: a 3000-step
``train()`` against a hand-written TF 2 loop of the same model (with Keras' loss
and Adam, and with model_fn's TF 1 loss and AdamOptimizer), a short
fine-tuning program end to end (train 40 steps, evaluate, predict; after both
sides' imports, and as a whole process, Python's start and the imports
included), ``train_and_evaluate`` with 10 evaluation rounds (seconds per
round), the fixed cost of a ``train()`` call (the median of 25 calls of 10
steps, steadier than the rows above on a shared machine), and model_fn alone
building its TRAIN and EVAL graphs, which every call pays once on both sides (the
Estimator's call counts): from those, the best ratios any runtime that calls
model_fn as the Estimator did could reach. Rounds of the sides are interleaved,
so a slow spell of the machine hits every side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKLOAD = Path(__file__).with_name("workload.py")
PYTHONS = {
    "legacy": os.environ.get("LEGACY_PYTHON", str(REPO / ".venv-legacy" / "bin" / "python")),
    "runtime": sys.executable,
    "handwritten": sys.executable,
    "handwritten_tf1_ops": sys.executable,
}
# tiny: logistic regression + SGD (per-step overhead dominates: where in-graph
# loops matter most); small: 2-layer MLP + Adam; summaries: small with v1
# summaries of its own; heavy: a 3-conv CNN.
STEPS = {"tiny": 20000, "small": 20000, "summaries": 20000, "heavy": 60}
EVAL_ROUNDS = 10  # workload.py's train_and_evaluate: an evaluation per tenth of its steps


# (scenario, steps, what is measured, whether more is better); "process" is the
# short program's whole process, timed from outside it.
PER_CALL = {
    "steady": (3000, "steps_per_sec", True),
    "short": (40, "seconds", False),
    "process": (40, "process_seconds", False),
    "rounds": (200, "seconds", False),
    "call": (10, "seconds", False),
    "train_graph": (0, "seconds", False),
    "eval_graph": (0, "seconds", False),
}


def measure(side: str, model: str, steps: int, scenario: str = "steady") -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    if side == "legacy":
        env.pop("TF_USE_LEGACY_KERAS", None)
    workload = "short" if scenario == "process" else scenario
    start = time.perf_counter()
    result = subprocess.run(
        [PYTHONS[side], str(WORKLOAD), side, model, str(steps), workload],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    elapsed = time.perf_counter() - start
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "process_seconds": elapsed}


def best_of(repeat: int, sides, *args, key: str, more_is_better: bool) -> dict:
    """The best value per side over ``repeat`` interleaved rounds."""
    values = {side: [] for side in sides}
    for _ in range(repeat):
        for side in sides:
            values[side].append(measure(side, *args)[key])
    return {side: (max if more_is_better else min)(v) for side, v in values.items()}


HAND_LOOPS = {
    "handwritten": "hand loop (Keras ops)",
    "handwritten_tf1_ops": "hand loop (TF1 ops)",
}


def per_call_rows(repeat: int) -> None:
    print(
        f"\n{'mlp_bn (per-call rows)':32} {'legacy':>10} {'runtime':>10} "
        f"{'hand loop':>10} {'TF1 ops':>10}"
    )
    bests = {}
    for scenario, (steps, key, more_is_better) in PER_CALL.items():
        sides = ["legacy", "runtime"] + (list(HAND_LOOPS) if scenario == "steady" else [])
        best = best_of(
            repeat, sides, "mlp_bn", steps, scenario, key=key, more_is_better=more_is_better
        )
        bests[scenario] = best
        hands = "".join(f"{best[side]:10.1f} " for side in HAND_LOOPS if side in best)
        print(
            f"{scenario + ' (' + key + ')':32} {best['legacy']:10.2f} {best['runtime']:10.2f} {hands}"
        )
        legacy_ratio = best["legacy"] / best["runtime"]
        if more_is_better:
            legacy_ratio = 1 / legacy_ratio
        print(f"{'  runtime speed vs legacy':32} {legacy_ratio:9.2f}x")
        for side, label in HAND_LOOPS.items():
            if side in best:
                print(f"{'  runtime vs ' + label:32} {best['runtime'] / best[side]:9.2f}x")
    print_ceilings(bests)


def print_ceilings(bests: dict) -> None:
    """The best ratios a runtime can reach while each call builds model_fn's graph
    once, as the Estimator's did: a steady call that costs that build plus the TF1-ops
    hand loop's steps, and a ``train_and_evaluate`` round that costs its
    evaluation's build and a share of the one training call's (its steps, metrics,
    checkpoints and the first call's tracing left out)."""
    steps = PER_CALL["steady"][0]
    hand_loop_seconds = steps / bests["steady"]["handwritten_tf1_ops"]
    call_at_best = hand_loop_seconds + bests["train_graph"]["runtime"]
    round_at_best = bests["eval_graph"]["runtime"] + bests["train_graph"]["runtime"] / EVAL_ROUNDS
    print(f"{'  ceiling: steady vs TF1 ops':32} {hand_loop_seconds / call_at_best:9.2f}x")
    print(f"{'  ceiling: round vs legacy':32} {bests['rounds']['legacy'] / round_at_best:9.2f}x")


def rows(repeat: int) -> list[dict]:
    table = []
    for model in STEPS:
        best = best_of(
            repeat,
            ["legacy", "runtime"],
            model,
            STEPS[model],
            key="steps_per_sec",
            more_is_better=True,
        )
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
    parser.add_argument(
        "--only", choices=["models", "per-call"], help="the steps/s rows, or the per-call rows"
    )
    args = parser.parse_args()
    if args.only != "per-call":
        print(f"{'benchmark':32} {'legacy steps/s':>15} {'runtime steps/s':>16} {'ratio':>7}")
        for row in rows(args.repeat):
            print(
                f"{row['benchmark']:32} {row['legacy steps/s']:15.1f} "
                f"{row['runtime steps/s']:16.1f} {row['ratio']:6.2f}x"
            )
    if args.only != "models":
        per_call_rows(args.repeat)


if __name__ == "__main__":
    main()
