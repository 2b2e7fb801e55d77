"""``migrate prove REPOSITORY --run "python train.py --model_dir={model_dir}"``:
the proof that the migrated program trains with the Estimator's numbers
(docs/prove.md; the run itself is proof.Proof).

Exit status: 0 every value identical, or every difference explained (TensorFlow's
own change between 2.15 and the installed version, or a read TF 1's Session
raced); 1 a difference not explained; 2 a side failed (or its environment could
not be made), prove itself could not go on, or a bad option.
REPOSITORY is never written to.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from estimator_revival.migrator.prove import report
from estimator_revival.migrator.prove.proof import Proof


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument(
    "repository", type=click.Path(exists=True, file_okay=False, resolve_path=True, path_type=Path)
)
@click.option(
    "--run",
    "commands",
    multiple=True,
    required=True,
    help="A command each side runs in its copy of REPOSITORY, starting with python; "
    "{out} is the side's output folder, {model_dir} its out/model_dir. Repeat for "
    "several commands (data preparation first).",
)
@click.option("--steps", type=click.IntRange(min=1), help="Stop each training call after N steps.")
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="tf_random_seed of every RunConfig that has none; Python's and numpy's seed.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, resolve_path=True, path_type=Path),
    help="The HTML report (default: prove.html in the scratch folder).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, resolve_path=True, path_type=Path),
    help="The report as JSON (default: beside the HTML report, .json).",
)
@click.option(
    "--migrated",
    type=click.Path(exists=True, file_okay=False, resolve_path=True, path_type=Path),
    help="An already migrated copy of REPOSITORY to run as the runtime side.",
)
@click.option(
    "--work",
    type=click.Path(file_okay=False, resolve_path=True, path_type=Path),
    help="The scratch folder for the copies and the runs (default: a new temporary one).",
)
@click.option(
    "--legacy-python",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="An interpreter with TensorFlow 2.15 and tensorflow-estimator 2.15 (default: one "
    "prove creates once in ~/.cache/estimator-revival).",
)
@click.option(
    "--reference-estimator",
    type=click.Path(file_okay=False, resolve_path=True, path_type=Path),
    help="A folder with tensorflow-estimator 2.15 installed alone (pip install --no-deps "
    "--target) for the reference side (default: made in the cache).",
)
@click.option("--timeout", type=float, default=3600, show_default=True, help="Seconds per command.")
def prove(
    repository: Path,
    commands: tuple[str, ...],
    report_path: Path | None,
    json_path: Path | None,
    **options,
) -> None:
    """Run REPOSITORY's program as the Estimator ran it and as migrate made it, and
    compare every loss, summary, metric, prediction, checkpoint and export."""
    try:
        proof = Proof(
            repository=repository,
            commands=list(commands),
            log=lambda line: click.echo(line, err=True),
            **options,
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    report_path = report_path or proof.work / "prove.html"
    json_path = json_path or report_path.with_suffix(".json")
    for path in (report_path, json_path):
        if path.is_relative_to(repository):
            raise click.UsageError(f"{path} is inside {repository}, which prove never writes to")
    click.echo(f"prove: scratch folder {proof.work}", err=True)
    found = proof.run()
    for path in (report_path, json_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    report.write(found, report_path, json_path)
    click.echo(f"prove: {found['verdict']}: {found['headline']}")
    for problem in found["problems"]:
        click.echo(f"prove: {problem}", err=True)
    click.echo(f"prove: report {report_path} ({json_path.name})", err=True)
    sys.exit(found["exit_status"])
