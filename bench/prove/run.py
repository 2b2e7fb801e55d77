"""The whole ``migrate prove`` of a project against the two runs it proves, alone:
what a user pays for the proof over running the legacy program and the migrated
one once each.

    .venv/bin/python bench/prove/run.py [--steps 40] [--repeat 1]

Both measured in this run, on ``fixtures/projects/bert_classifier``, with the same
step cap: the baseline is the legacy side's commands (TF 2.15 + the Estimator)
then the runtime side's (the migrated copy on TF 2.21), one after the other, each
started as prove starts it; the proof is the ``migrate prove`` process, from its
start to its report (migration, the three sides, the comparison, the report).
Prints the seconds of each and the ratio (the target: at most 2x).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECT = REPO / "fixtures" / "projects" / "bert_classifier"
LEGACY_PYTHON = Path(os.environ.get("LEGACY_PYTHON", REPO / ".venv-legacy" / "bin" / "python"))
ESTIMATOR_2_15 = Path(sys.executable).parent.parent / "estimator-2.15"
MIGRATE = Path(sys.executable).parent / "migrate"
COMMANDS = (
    "python create_data.py --output_dir {out}/data",
    "python run_classifier.py --data_dir={out}/data --output_dir={out}/output "
    "--init_checkpoint={out}/data/bert_model.ckpt --do_train --do_eval --do_predict --do_export",
)


def two_runs_alone(work: Path, steps: int) -> float:
    """Seconds of the legacy side's commands, then the runtime side's."""
    from estimator_revival.migrator.names.program import read_program
    from estimator_revival.migrator.prove.environments import prepare
    from estimator_revival.migrator.prove.sides import SideRun, make_sides, run_all

    environments = prepare(LEGACY_PYTHON, ESTIMATOR_2_15, log=print)
    migrated = work / "migrated"
    subprocess.run([str(MIGRATE), str(PROJECT), "--out", str(migrated)], capture_output=True)
    tf1 = read_program(PROJECT).written_for_tf1
    legacy = shutil.copytree(PROJECT, work / "legacy" / PROJECT.name)
    sources = {"legacy": legacy, "runtime": migrated / PROJECT.name}
    started = time.perf_counter()
    for side in make_sides(environments, tf1=tf1):
        if side.name not in sources:
            continue
        run = SideRun(
            side=side,
            source=sources[side.name],
            out=work / f"{side.name}_out",
            record=work / f"{side.name}_record",
            log=work / f"{side.name}.log",
        )
        run_all([run], list(COMMANDS), tf1=tf1, settings=["--steps", str(steps)], timeout=3600)
        assert not run.failed, run.log_tail()
    return time.perf_counter() - started


def whole_proof(work: Path, steps: int) -> float:
    runs = [part for command in COMMANDS for part in ("--run", command)]
    started = time.perf_counter()
    finished = subprocess.run(
        [
            str(MIGRATE),
            "prove",
            str(PROJECT),
            *runs,
            "--steps",
            str(steps),
            "--work",
            str(work / "prove"),
            "--legacy-python",
            str(LEGACY_PYTHON),
            "--reference-estimator",
            str(ESTIMATOR_2_15),
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return seconds


def measure(steps: int, repeat: int) -> tuple[float, float]:
    """Best seconds of (the two runs alone, the whole proof)."""
    alone, proof = [], []
    for round_ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            alone.append(two_runs_alone(Path(scratch) / f"alone{round_}", steps))
            proof.append(whole_proof(Path(scratch) / f"proof{round_}", steps))
    return min(alone), min(proof)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    alone, proof = measure(args.steps, args.repeat)
    print(f"bert_classifier, {args.steps} steps, best of {args.repeat}:")
    print(f"  legacy run + runtime run, alone: {alone:7.1f} s")
    print(f"  migrate prove (3 sides, compared, report): {proof:7.1f} s")
    print(f"  ratio: {proof / alone:.2f}x the two runs (target: at most 2x)")


if __name__ == "__main__":
    main()
