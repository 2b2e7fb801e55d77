"""Migrator benchmark: one synthetic tree, three tools, one run.

    .venv/bin/python bench/migrator/run.py [--files N]

Times (wall clock, whole command, best of 3) ``migrate --out`` on one process and on
all cores, TensorFlow's own ``tf_upgrade_v2 --intree/--outtree`` (it ships with
the tensorflow package), and libcst parse-only of the same files; prints files/s,
lines/s and the ratios.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic_tree import write_tree  # noqa: E402

BIN = Path(sys.executable).parent


def timed(command: list[str], *, cleanup: Path | None = None, repeat: int = 3, ok=(0,)) -> float:
    """Best wall-clock time of ``command``; fails loudly if it does not succeed."""
    best = float("inf")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    for _ in range(repeat):
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
        start = time.perf_counter()
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=env)
        best = min(best, time.perf_counter() - start)
        if done.returncode not in ok:
            raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return best


def measure(num_files: int) -> tuple[int, int, dict[str, float]]:
    """``(files, lines, {tool: best seconds})`` on a fresh synthetic tree."""
    with tempfile.TemporaryDirectory() as workdir:
        tree = Path(workdir) / "tree"
        files, lines = write_tree(tree, num_files)
        out = Path(workdir) / "out"
        upgraded = Path(workdir) / "upgraded"
        cores = os.cpu_count() or 1
        rows = {
            "libcst parse-only": timed([sys.executable, str(HERE / "parse_only.py"), str(tree)]),
            "migrate --jobs 1": timed(
                [str(BIN / "migrate"), "--jobs", "1", "--out", str(out), str(tree)],
                cleanup=out,
                ok=(1,),  # 1: files changed
            ),
            f"migrate --jobs {cores} (default)": timed(
                [str(BIN / "migrate"), "--out", str(out), str(tree)], cleanup=out, ok=(1,)
            ),
            "tf_upgrade_v2": timed(
                [
                    str(BIN / "tf_upgrade_v2"),
                    "--intree",
                    str(tree),
                    "--outtree",
                    str(upgraded),
                    "--reportfile",
                    str(Path(workdir) / "report.txt"),
                ],
                cleanup=upgraded,
            ),
        }
    return files, lines, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    args = parser.parse_args()
    files, lines, rows = measure(args.files)
    print(f"synthetic tree: {files} files, {lines} lines (~15% Estimator code)")
    print(f"{'tool':30} {'seconds':>8} {'files/s':>9} {'lines/s':>10}")
    for tool, seconds in rows.items():
        print(f"{tool:30} {seconds:8.2f} {files / seconds:9.0f} {lines / seconds:10.0f}")
    upgrade, floor = rows["tf_upgrade_v2"], rows["libcst parse-only"]
    for label in (tool for tool in rows if tool.startswith("migrate")):
        print(
            f"{label}: {upgrade / rows[label]:.2f}x faster than tf_upgrade_v2, "
            f"{rows[label] / floor:.2f}x the libcst parse-only time"
        )


if __name__ == "__main__":
    main()
