"""The ``migrate`` command.

Exit codes: 0 nothing to change; 1 files changed (or would change, with
--check/--diff); 2 errors (a file that does not parse or cannot be read, a bad
option). Diagnostics are printed as ``path:line:col: CODE message``.
"""

from __future__ import annotations

import os
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import click

from migrator import __version__, config, report
from migrator.files import FileResult, discover, migrate_file, read_candidate
from migrator.source import write_atomically

# Below this many files, worker processes cost more than they save.
PARALLEL_THRESHOLD = 32


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write a migrated copy of the tree to DIR instead of editing in place.",
)
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if anything would change.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a report: .json, .md or .html (by extension).",
)
@click.option("--select", default="", help="Comma-separated rule codes (or prefixes) to enable.")
@click.option("--ignore", default="", help="Comma-separated rule codes (or prefixes) to disable.")
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores)."
)
@click.version_option(__version__, prog_name="migrate")
def main(paths, out, show_diff, check, report_path, select, ignore, jobs) -> None:
    """Migrate TensorFlow 1 Estimator code in PATHS to TensorFlow 2.16+."""
    if out is not None and (show_diff or check):
        raise click.UsageError("--out cannot be combined with --diff or --check")
    if report_path is not None and report_path.suffix not in report.FORMATS:
        raise click.BadParameter(
            f"unknown format {report_path.suffix!r}; use .json, .md or .html", param_hint="--report"
        )
    settings = config.load(paths[0])
    chosen_select = _codes(select) or settings.select
    chosen_ignore = _codes(ignore) or settings.ignore
    config.validate_codes(chosen_select, where="--select")
    config.validate_codes(chosen_ignore, where="--ignore")
    enabled = config.Settings(select=chosen_select, ignore=chosen_ignore).enabled_codes()

    files = discover(paths, exclude=settings.exclude)
    results = _run(files, enabled, jobs or settings.jobs or os.cpu_count() or 1)

    for result in results:
        for diagnostic in result.diagnostics:
            click.echo(diagnostic.format())
        if result.error and not result.diagnostics:
            click.echo(f"{result.path}:1:1: MIG001 {result.error}; left untouched")
    if show_diff:
        for result in results:
            if result.changed:
                click.echo(report.unified_diff(result), nl=False)
    elif out is not None:
        _write_copy(paths, results, out)
    elif not check:
        for result in results:
            if result.changed:
                write_atomically(result.path, result.migrated)
    if report_path is not None:
        report.write(report_path, results)

    if not show_diff:
        for result in results:
            if result.changed:
                click.echo(f"{'would migrate' if check else 'migrated'} {result.path}")
    changed = sum(r.changed for r in results)
    errors = sum(r.error is not None for r in results)
    verb = "would change" if (check or show_diff) else "changed"
    click.echo(f"{len(results)} files scanned, {changed} {verb}, {errors} errors", err=True)
    sys.exit(2 if errors else 1 if changed else 0)


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in text.split(",") if code.strip())


def _run(files: list[Path], enabled: frozenset[str], jobs: int) -> list[FileResult]:
    """Migrates every file, in order; only files that mention a trigger word are
    parsed, and those go to worker processes when there are enough of them."""
    results: list[FileResult | None] = []
    candidates = []
    for path in files:
        result, data = read_candidate(path)
        results.append(result)
        if result is None:
            candidates.append((len(results) - 1, path, data))
    if jobs == 1 or len(candidates) < PARALLEL_THRESHOLD:
        migrated = (migrate_file(path, enabled, data) for _, path, data in candidates)
        done = list(_progress(migrated, candidates))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            mapped = pool.map(
                _migrate_in_worker,
                [path for _, path, _ in candidates],
                [enabled] * len(candidates),
                [data for _, _, data in candidates],
                chunksize=max(1, len(candidates) // (jobs * 4)),
            )
            done = list(_progress(mapped, candidates))
        for (_, _, data), result in zip(candidates, done, strict=True):
            result.original = data  # not sent back from the worker
    for (index, _, _), result in zip(candidates, done, strict=True):
        results[index] = result
    return results


def _migrate_in_worker(path: Path, enabled: frozenset[str], data: bytes) -> FileResult:
    """migrate_file, returning only what the parent does not already have."""
    result = migrate_file(path, enabled, data)
    result.original = b""
    return result


def _progress(iterable, files):
    """A progress bar on an interactive terminal for long runs; silent otherwise."""
    if len(files) < 200 or not sys.stderr.isatty():
        yield from iterable
        return
    with click.progressbar(iterable, length=len(files), label="migrating", file=sys.stderr) as bar:
        yield from bar


def _write_copy(paths: list[Path], results: list[FileResult], out: Path) -> None:
    """Mirrors each PATH under ``out`` (all files, modes kept), migrated files replaced."""
    changed = [r for r in results if r.changed]
    for root in paths:
        if root.is_file():
            out.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root, out / root.name)
            target_of = {root.resolve(): out / root.name}
        else:
            target_root = out / root.resolve().name
            shutil.copytree(root, target_root, dirs_exist_ok=True)
            base = root.resolve()
            target_of = {
                r.path.resolve(): target_root / r.path.resolve().relative_to(base)
                for r in changed
                if r.path.resolve().is_relative_to(base)
            }
        for result in changed:
            target = target_of.get(result.path.resolve())
            if target is not None:
                write_atomically(target, result.migrated)
