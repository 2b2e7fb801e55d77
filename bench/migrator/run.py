"""Migrator benchmark: one tree (synthetic, or the real-world corpus), three tools, one run.

    .venv/bin/python bench/migrator/run.py [--files N] [--repeat N] [--tree corpus]

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

from corpus import fetch  # noqa: E402
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


def synthetic(num_files: int):
    """A tree maker: ``num_files`` generated files, ~15% of them Estimator code."""
    return lambda root: write_tree(root, num_files)


def real_corpus(root: Path) -> tuple[int, int]:
    """The real-world corpus (corpus.py: pinned TF 1 / Estimator releases,
    downloaded), every file full of TensorFlow; returns (files, lines)."""
    fetch(root)
    for package in (root / "src").iterdir():  # the packages become the tree
        package.rename(root / package.name)
    (root / "src").rmdir()
    shutil.rmtree(root / "wheels")
    files = sorted(root.rglob("*.py"))
    return len(files), sum(path.read_text(errors="replace").count("\n") for path in files)


def measure(make_tree, repeat: int = 3, *, migrate_exits=(1,)) -> tuple[int, int, dict[str, float]]:
    """``(files, lines, {tool: best seconds})`` on a fresh tree ``make_tree(root)``
    writes (returning its files and lines); ``migrate_exits``: the exit codes a
    run of migrate on it may have (1: files changed; 2: diagnostics remain).

    Every round runs every tool once, and each tool keeps its best round: a slow
    spell of the machine then costs all tools a round rather than one tool its
    ratio.
    """
    with tempfile.TemporaryDirectory() as workdir:
        tree = Path(workdir) / "tree"
        tree.mkdir()
        files, lines = make_tree(tree)
        out = Path(workdir) / "out"
        upgraded = Path(workdir) / "upgraded"
        cache = Path(workdir) / "cache"
        cores = os.cpu_count() or 1
        commands = {
            "libcst parse-only": ([sys.executable, str(HERE / "parse_only.py"), str(tree)], {}),
            "migrate --jobs 1": (
                [str(BIN / "migrate"), "--no-cache", "--jobs", "1", "--out", str(out), str(tree)],
                {"cleanup": out, "ok": migrate_exits},
            ),
            f"migrate --jobs {cores} (default)": (
                [str(BIN / "migrate"), "--no-cache", "--out", str(out), str(tree)],
                {"cleanup": out, "ok": migrate_exits},
            ),
            # What a pre-commit user re-running on unchanged files gets: the cache
            # was filled by a first run before the rounds.
            "migrate, re-run (warm cache)": (
                [str(BIN / "migrate"), "--out", str(out), str(tree)],
                {"cleanup": out, "ok": migrate_exits, "cache": cache},
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
    parser.add_argument(
        "--tree",
        choices=["synthetic", "corpus"],
        default="synthetic",
        help="the generated tree (--files files), or the real-world corpus (corpus.py)",
    )
    args = parser.parse_args()
    make_tree = real_corpus if args.tree == "corpus" else synthetic(args.files)
    # the real code keeps diagnostics migrate cannot resolve (exit 2)
    exits = (1, 2) if args.tree == "corpus" else (1,)
    files, lines, rows = measure(make_tree, args.repeat, migrate_exits=exits)
    described = "real-world corpus" if args.tree == "corpus" else "synthetic tree (~15% Estimator)"
    print(f"{described}: {files} files, {lines} lines")
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
    print(f"default jobs: {rows['migrate --jobs 1'] / cold:.2f}x faster than --jobs 1")
    warm = rows["migrate, re-run (warm cache)"]
    print(f"re-run with a warm cache: {cold / warm:.1f}x faster than a cold run")


if __name__ == "__main__":
    main()
