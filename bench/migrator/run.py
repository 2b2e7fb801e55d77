"""Migrator benchmark: one synthetic tree, three tools, one run.

    .venv/bin/python bench/migrator/run.py [--files N] [--repeat N]

Times (wall clock, whole command, best of N interleaved rounds) ``migrate --out``
on one process and on all cores (both without the result cache), a re-run with
the cache filled by an earlier run, TensorFlow's own ``tf_upgrade_v2
--intree/--outtree`` (it ships with the tensorflow package), and libcst
parse-only of the same files; prints files/s, lines/s and the ratios.
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


def run_once(
    command: list[str], *, cleanup: Path | None = None, ok=(0,), cache: Path | None = None
) -> float:
    """Wall-clock seconds of ``command``; fails loudly if it does not succeed.
    ``cache``: the result cache ``migrate`` keeps (none given: ``--no-cache``)."""
    if cleanup is not None:
        shutil.rmtree(cleanup, ignore_errors=True)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if cache is not None:
        env["MIGRATE_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def measure(num_files: int, repeat: int = 3) -> tuple[int, int, dict[str, float]]:
    """``(files, lines, {tool: best seconds})`` on a fresh synthetic tree.

    Every round runs every tool once, and each tool keeps its best round: a slow
    spell of the machine then costs all tools a round rather than one tool its
    ratio.
    """
    with tempfile.TemporaryDirectory() as workdir:
        tree = Path(workdir) / "tree"
        files, lines = write_tree(tree, num_files)
        out = Path(workdir) / "out"
        upgraded = Path(workdir) / "upgraded"
        cache = Path(workdir) / "cache"
        cores = os.cpu_count() or 1
        commands = {
            "libcst parse-only": ([sys.executable, str(HERE / "parse_only.py"), str(tree)], {}),
            "migrate --jobs 1": (
                [str(BIN / "migrate"), "--no-cache", "--jobs", "1", "--out", str(out), str(tree)],
                {"cleanup": out, "ok": (1,)},  # 1: files changed
            ),
            f"migrate --jobs {cores} (default)": (
                [str(BIN / "migrate"), "--no-cache", "--out", str(out), str(tree)],
                {"cleanup": out, "ok": (1,)},
            ),
            # What a pre-commit user re-running on unchanged files gets: the cache
            # was filled by a first run before the rounds.
            "migrate, re-run (warm cache)": (
                [str(BIN / "migrate"), "--out", str(out), str(tree)],
                {"cleanup": out, "ok": (1,), "cache": cache},
            ),
            "tf_upgrade_v2": (
                [
                    str(BIN / "tf_upgrade_v2"),
                    "--intree",
                    str(tree),
                    "--outtree",
                    str(upgraded),
                    "--reportfile",
                    str(Path(workdir) / "report.txt"),
                ],
                {"cleanup": upgraded},
            ),
        }
        command, options = commands["migrate, re-run (warm cache)"]
        run_once(command, **options)  # fills the cache
        best = dict.fromkeys(commands, float("inf"))
        for _ in range(repeat):
            for tool, (command, options) in commands.items():
                best[tool] = min(best[tool], run_once(command, **options))
    return files, lines, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each tool keeps its best")
    args = parser.parse_args()
    files, lines, rows = measure(args.files, args.repeat)
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
    cold = rows[next(tool for tool in rows if tool.endswith("(default)"))]
    warm = rows["migrate, re-run (warm cache)"]
    print(f"re-run with a warm cache: {cold / warm:.1f}x faster than a cold run")


if __name__ == "__main__":
    main()
