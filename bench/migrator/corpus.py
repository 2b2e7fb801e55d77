"""The real-world corpus: pinned PyPI releases written against TF 1.x, Estimator and
tf.contrib (``corpus.txt``, by hash), downloaded and unpacked to their Python
sources (tests left out).

    .venv/bin/python bench/migrator/corpus.py [--files N]   # migrate it, with figures
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REQUIREMENTS = Path(__file__).with_name("corpus.txt")
BIN = Path(sys.executable).parent


def fetch(destination: Path) -> Path:
    """Downloads the pinned wheels (hashes checked) and unpacks their sources into
    ``destination/<package>``; returns ``destination``."""
    wheels = destination / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--require-hashes",
            "-r",
            str(REQUIREMENTS),
            "-d",
            str(wheels),
        ],
        check=True,
    )
    for wheel in sorted(wheels.glob("*.whl")):
        package = destination / "src" / wheel.name.split("-")[0]
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.endswith(".py") and not _is_test(member):
                    archive.extract(member, package)
    return destination / "src"


def _is_test(member: str) -> bool:
    name = member.rsplit("/", 1)[-1]
    return name.endswith("_test.py") or "/tests/" in member or "test_util" in name


def migrate(tree: Path, out: Path, *extra: str) -> tuple[float, dict]:
    """``migrate TREE --out OUT --verify`` as a user runs it: (seconds, JSON report)."""
    report = out.with_suffix(".json")
    start = time.perf_counter()
    done = subprocess.run(
        [
            str(BIN / "migrate"),
            str(tree),
            "--out",
            str(out),
            "--verify",
            "--no-cache",  # a first run: every file migrated
            "--report",
            str(report),
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1, 2) or not report.exists():
        raise SystemExit(f"migrate failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, json.loads(report.read_text())


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        tree = fetch(Path(workdir))
        files = sorted(tree.rglob("*.py"))
        lines = sum(path.read_text(errors="replace").count("\n") for path in files)
        seconds, report = migrate(tree, Path(workdir) / "out")
        counts: dict[str, int] = {}
        for entry in report["files"]:
            for diagnostic in entry["diagnostics"]:
                counts[diagnostic["code"]] = counts.get(diagnostic["code"], 0) + 1
        print(f"corpus: {len(files)} files, {lines} lines, {len(list(tree.iterdir()))} packages")
        print(f"migrate --verify: {seconds:.1f} s, {report['files_changed']} files converted")
        print("diagnostics: " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))
        print("files that end with no error diagnostic, per source:")
        for source, (clean, total) in sorted(clean_share(tree, report).items()):
            print(f"  {source}: {clean} of {total} ({clean / total:.0%})")


def clean_share(tree: Path, report: dict) -> dict[str, tuple[int, int]]:
    """``{package: (files that end with no error-level diagnostic, files)}``."""
    totals: dict[str, int] = {}
    for path in tree.rglob("*.py"):
        source = path.relative_to(tree).parts[0]
        totals[source] = totals.get(source, 0) + 1
    failing: dict[str, int] = {}
    for entry in report["files"]:
        if entry["errors"] or entry["error"]:
            source = Path(entry["path"]).resolve().relative_to(tree.resolve()).parts[0]
            failing[source] = failing.get(source, 0) + 1
    return {source: (total - failing.get(source, 0), total) for source, total in totals.items()}


if __name__ == "__main__":
    main()
