"""All benchmarks, one table: the migrator against tf_upgrade_v2 and libcst
parse-only on the same synthetic tree and on single 2 MB files, the runtime (TF 2.21) against
tf.estimator (TF 2.15) on the same model_fns, and `migrate prove` against the two runs it
proves, every baseline measured in this run.

    .venv/bin/python bench/run.py [--files N] [--repeat N]

Ratios are "ours vs the baseline" in the baseline's favourable direction for us:
speed-ups (>1 is faster) for the migrator and steps/s ratios for the runtime;
"of parse-only" is the migrator's time as a multiple of just parsing the files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository root, for the `bench` package

from bench.migrator.large_file import measure as measure_large_file  # noqa: E402
from bench.migrator.run import measure as measure_migrator  # noqa: E402
from bench.migrator.run import synthetic  # noqa: E402
from bench.prove.run import measure as measure_prove  # noqa: E402
from bench.runtime.projects import PROJECTS  # noqa: E402
from bench.runtime.projects import measure as measure_project  # noqa: E402
from bench.runtime.run import rows as measure_runtime  # noqa: E402


def table(files: int, repeat: int) -> list[tuple[str, str, str, str]]:
    count, lines, seconds = measure_migrator(synthetic(files), repeat)
    upgrade, parse_only = seconds["tf_upgrade_v2"], seconds["libcst parse-only"]
    rows = [
        (
            f"migrator: {tool} ({count} files, {lines} lines)",
            f"{count / took:.0f} files/s",
            f"tf_upgrade_v2 {count / upgrade:.0f} files/s",
            f"{upgrade / took:.2f}x faster; {took / parse_only:.2f}x of parse-only",
        )
        for tool, took in seconds.items()
        if tool.startswith("migrate")
    ]
    for file, tools in measure_large_file(2_000_000, repeat).items():
        (took, peak), upgrade = tools["migrate"], tools["tf_upgrade_v2"][0]
        parse_time, parse_peak = tools["libcst parse-only"]
        rows.append(
            (
                f"migrator: one {file}",
                f"{took:.1f} s, {peak:.0f} MB",
                f"tf_upgrade_v2 {upgrade:.1f} s; parse-only {parse_time:.1f} s, {parse_peak:.0f} MB",
                f"{upgrade / took:.2f}x faster; {took / parse_time:.2f}x of parse-only",
            )
        )
    for row in measure_runtime(repeat):
        rows.append(
            (
                row["benchmark"],
                f"{row['runtime steps/s']:.1f} steps/s",
                f"tf.estimator {row['legacy steps/s']:.1f} steps/s",
                f"{row['ratio']:.2f}x",
            )
        )
    for name in PROJECTS:
        with tempfile.TemporaryDirectory() as workdir:
            best = measure_project(name, repeat, Path(workdir))
        (legacy_wall, _), (runtime_wall, _) = best["legacy"], best["runtime"]
        rows.append(
            (
                f"runtime: project {name}, whole process",
                f"{runtime_wall:.2f} s",
                f"tf.estimator {legacy_wall:.2f} s",
                f"{legacy_wall / runtime_wall:.2f}x faster",
            )
        )
    alone, proof = measure_prove(steps=40, repeat=1)
    rows.append(
        (
            "prove: bert_classifier, 40 steps, whole command",
            f"{proof:.1f} s",
            f"legacy + runtime runs alone {alone:.1f} s",
            f"{proof / alone:.2f}x of the two runs",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [("benchmark", "ours", "baseline (same run)", "ratio"), *table(args.files, args.repeat)]
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


if __name__ == "__main__":
    main()
