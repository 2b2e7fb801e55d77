"""The ``migrate`` command.

Exit codes: 0 nothing to change; 1 files changed (or would change, with
--check/--diff) and no error remains; 2 an error-level diagnostic remains (code the
runtime cannot run, a name TensorFlow does not have, a file that could not be read,
parsed, migrated or written) or a bad option. Diagnostics are printed as
``path:line:col: CODE message``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from estimator_revival.migrator import __version__
from estimator_revival.migrator.command import config, report, writing
from estimator_revival.migrator.command.files import Exclusion, FileResult, discover, read_candidate
from estimator_revival.migrator.command.progress import Progress
from estimator_revival.migrator.command.result_cache import ResultCache, default_directory
from estimator_revival.migrator.command.verify import LookupFailed, tensorflow_installed
from estimator_revival.migrator.command.verify import verify as check_names
from estimator_revival.migrator.command.workers import migrate_all
from estimator_revival.migrator.names import file_facts
from estimator_revival.migrator.names.program import forget_programs


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write a migrated copy of the tree to DIR instead of editing in place.",
)
@click.option("--force", is_flag=True, help="With --out: write into a directory that is not empty.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if anything would change, 2 on errors."
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path),
    help="Write a report: .json, .md or .html (by extension).",
)
@click.option("--select", default="", help="Comma-separated rule codes (or prefixes) to enable.")
@click.option("--ignore", default="", help="Comma-separated rule codes (or prefixes) to disable.")
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores)."
)
@click.option(
    "--verify/--no-verify",
    default=None,
    help="Look every name the migrated files reach in TensorFlow, the runtime, tf_keras, "
    "npu_bridge and tensorflow_estimator up in what is installed; report the missing ones "
    "(MIG105). Default: on with --check when TensorFlow is installed.",
)
@click.option(
    "--force-exclude/--no-force-exclude",
    default=True,
    show_default=True,
    help="Apply [tool.migrate] exclude to paths given on the command line too (as pre-commit "
    "passes them).",
)
@click.option(
    "--cache/--no-cache",
    default=True,
    show_default=True,
    help="Reuse the results of earlier runs for files whose bytes, path and options are "
    "unchanged (kept in $MIGRATE_CACHE_DIR, default ~/.cache/migrate).",
)
@click.version_option(__version__, prog_name="migrate")
def main(
    paths,
    out,
    force,
    show_diff,
    check,
    report_path,
    select,
    ignore,
    jobs,
    verify,
    force_exclude,
    cache,
) -> None:
    """Migrate TensorFlow 1 Estimator code in PATHS to TensorFlow 2.16+.

    `migrate prove REPOSITORY --run "python train.py ..."` proves that the migrated
    program trains with the Estimator's numbers (migrate prove --help)."""
    if out is not None and (show_diff or check):
        raise click.UsageError("--out cannot be combined with --diff or --check")
    if force and out is None:
        raise click.UsageError("--force only applies to --out")
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
    # Every place migrate writes is checked before anything is written.
    if out is not None:
        writing.check_out_directory(out, paths, force=force)
    if report_path is not None:
        writing.check_report_path(report_path, out=out)

    if verify and not tensorflow_installed():
        raise click.UsageError(f"--verify: TensorFlow is not installed for {sys.executable}")
    if verify is None:
        verify = check and tensorflow_installed()
        if check and not verify:
            click.echo("note: TensorFlow is not installed here; names were not verified", err=True)

    found = discover(
        paths,
        exclusion=Exclusion(settings.exclude, settings.root),
        force_exclude=force_exclude,
    )
    workers = jobs or settings.jobs or os.cpu_count() or 1
    result_cache = (
        ResultCache(default_directory(), enabled=enabled, verify=verify) if cache else None
    )
    results = _migrate(found.files, enabled, workers, verify=verify, cache=result_cache)
    if verify:
        try:
            check_names(results)
        except LookupFailed as failure:
            click.echo(f"note: names were not verified ({failure})", err=True)

    if show_diff:
        for result in results:
            if result.changed:
                click.echo(report.unified_diff(result), nl=False)
    elif out is not None:
        for path in writing.write_copy(paths, results, out):
            found.problems.append(FileResult(path).fail("MIG002", "cannot copy into --out"))
    elif not check:
        writing.write_in_place(results)
    results = sorted(found.problems + results, key=lambda r: str(r.path))
    for result in results:
        for diagnostic in result.diagnostics:
            click.echo(diagnostic.format())
    if report_path is not None:
        report.write(report_path, results, files_scanned=len(found.files))
    if not show_diff:
        for result in results:
            if result.changed:
                click.echo(f"{'would migrate' if check else 'migrated'} {result.path}")
    totals = report.Totals.of(results, files_scanned=len(found.files))
    verb = "would change" if (check or show_diff) else "changed"
    click.echo(
        f"{totals.files_scanned} files scanned, {totals.files_changed} {verb}, "
        f"{totals.errors} errors, {totals.warnings} warnings",
        err=True,
    )
    sys.exit(2 if totals.errors else 1 if totals.files_changed else 0)


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in text.split(",") if code.strip())


def _migrate(
    files: list[tuple[Path, Path]],
    enabled: frozenset[str],
    jobs: int,
    *,
    verify: bool,
    cache: ResultCache | None,
) -> list[FileResult]:
    """Migrates every file; only those that mention a trigger word are parsed, and
    only those the cache has no result for."""
    forget_programs()
    file_facts.keep_in(None if cache is None else cache.facts_directory)
    results: list[FileResult] = []
    candidates = []
    for _, path in files:
        result, data = read_candidate(path)
        if result is None and cache is not None:
            result = cache.get(path, data)
        if result is None:
            candidates.append((path, data))
        else:
            results.append(result)
    progress = Progress(len(candidates))
    try:
        migrated = migrate_all(candidates, enabled, jobs=jobs, progress=progress, verify=verify)
    finally:
        progress.close()
    if cache is not None:
        cache.put_all(candidates, migrated)
    return results + migrated


def entry() -> None:
    """The ``migrate`` command line: ``migrate prove ...`` runs the proof
    (docs/prove.md; a folder named ``prove`` is ``./prove``); anything else migrates."""
    if sys.argv[1:2] == ["prove"]:
        from estimator_revival.migrator.prove.command import prove

        prove.main(sys.argv[2:], prog_name="migrate prove")
    else:
        main()


if __name__ == "__main__":
    entry()
