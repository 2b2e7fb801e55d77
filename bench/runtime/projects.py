"""Whole projects end to end: a legacy project of ``fixtures/projects/`` run as
written (TF 2.15 + tensorflow-estimator 2.15, with the stand-ins the tests use
for tf.contrib) against its ``migrate`` output on the runtime (TF 2.21), each
command a process as a user runs it: Python's start, the imports, graph building
and tracing, training, evaluation and prediction all inside the time.

    .venv/bin/python bench/runtime/projects.py [--repeat N]

Prints, per project, the wall and CPU seconds (user + system, of the process
and its threads) of its training program, the best of N interleaved rounds
(default 3), and the runtime/legacy ratios (below 1: the runtime is faster).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LEGACY_PYTHON = os.environ.get("LEGACY_PYTHON", str(REPO / ".venv-legacy" / "bin" / "python"))
RUN_SIDE = REPO / "migrator" / "prove" / "side_process" / "run_side.py"
MIGRATE = Path(sys.executable).parent / "migrate"

# project: (commands that prepare its data, the training program's command)
PROJECTS = {
    "bilstm_crf_tagger": (
        (("build_data.py", "--data_dir", "{out}/data"),),
        ("main.py", "--data_dir={out}/data", "--model_dir={out}/model"),
    ),
    # conv-heavy: a UNet of conv/deconv blocks with batch norm on 128x128 images,
    # RMSProp, v1 IoU metrics, a profiler hook; train_and_evaluate, then predict
    "unet_industrial": (
        (
            (
                "download_and_preprocess_dagm2007.py",
                "--data_dir",
                "{out}/data",
                "--image_size",
                "128",
            ),
        ),
        (
            "main.py",
            "--data_dir={out}/data",
            "--results_dir={out}/results",
            "--unet_variant=UNet",
            "--image_size=128",
            "--num_iter=60",
        ),
    ),
}


def _run(side: str, source: Path, command, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one command of ``source`` as ``side`` runs it."""
    argv = [part.replace("{out}", str(out)) for part in command]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0")
    if side == "legacy":
        env.pop("TF_USE_LEGACY_KERAS", None)
        env["PYTHONPATH"] = str(REPO)
        argv = [LEGACY_PYTHON, str(RUN_SIDE), "--standins", "--tf1-api", *argv]
    else:
        env["PYTHONPATH"] = str(REPO)
        argv = [sys.executable, *argv]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=source, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(name: str, repeat: int, workdir: Path) -> dict[str, tuple[float, float]]:
    """``{side: (best wall, best CPU seconds)}`` of the project's training program."""
    prepare, train = PROJECTS[name]
    sources = {"legacy": workdir / "legacy" / name, "runtime": workdir / "migrated" / name}
    shutil.copytree(REPO / "fixtures" / "projects" / name, sources["legacy"])
    subprocess.run(
        [str(MIGRATE), str(sources["legacy"]), "--out", str(workdir / "migrated"), "--no-cache"],
        check=False,  # exit 1: files changed
        capture_output=True,
    )
    for side, source in sources.items():
        for command in prepare:
            _run(side, source, command, workdir / side)
    best = {side: (float("inf"), float("inf")) for side in sources}
    for round_ in range(repeat):
        for side, source in sources.items():
            out = workdir / side / f"round{round_}"
            shutil.copytree(workdir / side / "data", out / "data")
            wall, cpu = _run(side, source, train, out)
            best[side] = (min(best[side][0], wall), min(best[side][1], cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name in PROJECTS:
        with tempfile.TemporaryDirectory() as workdir:
            best = measure(name, args.repeat, Path(workdir))
        (legacy_wall, legacy_cpu), (runtime_wall, runtime_cpu) = best["legacy"], best["runtime"]
        print(
            f"{name}: legacy {legacy_wall:.2f} s wall, {legacy_cpu:.2f} s CPU; "
            f"runtime {runtime_wall:.2f} s wall, {runtime_cpu:.2f} s CPU; "
            f"runtime/legacy {runtime_wall / legacy_wall:.2f}x wall, "
            f"{runtime_cpu / legacy_cpu:.2f}x CPU"
        )


if __name__ == "__main__":
    main()
