"""A proof from start to verdict: the copies of the repository, the three sides
run at once, what they left compared, the report's content. ``Proof`` owns the
run; the modules beside it do one part each."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from estimator_revival.migrator import __version__
from estimator_revival.migrator.names.program import read_program
from estimator_revival.migrator.prove import comparison, outputs, report, verdict
from estimator_revival.migrator.prove.environments import Environments, SideUnavailable, prepare
from estimator_revival.migrator.prove.sides import SideRun, make_sides, program_of, run_all

_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_NO_STAND_IN = re.compile(r"^.*has no stand-in.*$", re.MULTILINE)


class _Stopped(Exception):  # noqa: N818 - an early verdict, not an error
    """The proof ends before the comparison, with this verdict."""

    def __init__(self, overall: str, headline: str, problems: list[str]):
        super().__init__(headline)
        self.overall, self.headline, self.problems = overall, headline, problems


class Proof:
    """``run()`` proves ``repository``'s program (``commands``, each starting with
    python) and returns the report's content; the constructor checks every
    argument first (ValueError naming it), so that nothing runs on a bad one."""

    def __init__(
        self,
        *,
        repository: Path,
        commands: list[str],
        steps: int | None = None,
        seed: int = 1,
        work: Path | None = None,
        migrated: Path | None = None,
        legacy_python: Path | None = None,
        reference_estimator: Path | None = None,
        timeout: float = 3600,
        log: Callable[[str], None] = print,
    ):
        if not commands:
            raise ValueError("--run: give the command that runs the program")
        for command in commands:
            program_of(command)  # BadCommand, a ValueError, names --run
        if steps is not None and steps < 1:
            raise ValueError(f"--steps: {steps} is not a number of steps")
        self.repository = repository
        self.commands = list(commands)
        self.steps, self.seed = steps, seed
        self.work = _scratch(work, repository)
        self.migrated = migrated
        # absolute, its symbolic links kept: a venv's python is one, and its folder
        # is the environment's
        if legacy_python is not None:
            legacy_python = Path(os.path.abspath(legacy_python))
        self.legacy_python, self.reference_estimator = legacy_python, reference_estimator
        self.timeout = timeout
        self.log = log

    def run(self) -> dict:
        found = {
            "version": __version__,
            "repository": str(self.repository),
            "commands": self.commands,
            "injected": self._injected(),
            "sides": {},
            "problems": [],
        }
        try:
            found.update(self._proved(found))
        except _Stopped as stopped:
            found.update(verdict=stopped.overall, headline=stopped.headline)
            found["problems"] += stopped.problems
        except Exception as error:  # noqa: BLE001 - reported, never taken for a verdict
            found.update(verdict=verdict.PROVE_FAILED, headline=f"prove failed: {error!r}")
            found["problems"].append(traceback.format_exc())
        found["exit_status"] = verdict.EXIT_STATUS[found["verdict"]]
        return found

    def _proved(self, found: dict) -> dict:
        try:
            environments = prepare(self.legacy_python, self.reference_estimator, self.log)
        except SideUnavailable as error:
            raise _Stopped(
                verdict.SIDE_FAILED, f"a side cannot start: {error}", [str(error)]
            ) from None
        tf1 = read_program(self.repository).written_for_tf1
        runs = self._runs(environments, tf1=tf1, found=found)
        self.log(f"prove: running the {', '.join(run.side.name for run in runs)} sides")
        settings = ["--seed", str(self.seed), *(["--steps", str(self.steps)] if self.steps else [])]
        run_all(runs, self.commands, tf1=tf1, settings=settings, timeout=self.timeout)
        installed = metadata.version("tensorflow")
        versions = {
            "legacy": environments.legacy_version,
            "reference": installed,
            "runtime": installed,
        }
        found["sides"] = {run.side.name: _side(run, versions[run.side.name]) for run in runs}
        failed = [run for run in runs if run.failed]
        if failed:
            problems = [problem for run in failed for problem in _problems(run)]
            raise _Stopped(verdict.SIDE_FAILED, _failed_headline(failed), problems)
        return _compared(runs, tf1=tf1)

    def _injected(self) -> list[str]:
        seed, steps = self.seed, self.steps
        return [
            f"tf_random_seed={seed} on every RunConfig that had none; random.seed({seed}) and "
            f"numpy.random.seed({seed}) before the program; PYTHONHASHSEED=0",
            "save_summary_steps=1 on every RunConfig, so that every step's summaries are written",
            f"each train() call stopped after {steps} steps" if steps else "no step cap",
            "CPU only (CUDA_VISIBLE_DEVICES empty), the same TF_ENABLE_ONEDNN_OPTS on every side",
        ]

    def _runs(self, environments: Environments, *, tf1: bool, found: dict) -> list[SideRun]:
        """Copies of the repository for the legacy and reference sides, the migrated
        copy for the runtime side (``migrate --out``, or a copy of ``migrated``)."""
        name = self.repository.name
        sources = {
            side: _copy(self.repository, self.work / side / name)
            for side in ("legacy", "reference")
        }
        if self.migrated is None:
            sources["runtime"], found["migration"] = _migrate(
                self.repository, self.work / "runtime"
            )
        else:
            sources["runtime"] = _copy(self.migrated, self.work / "runtime" / name)
        return [
            SideRun(
                side=side,
                source=sources[side.name],
                out=self.work / f"{side.name}_out",
                record=self.work / f"{side.name}_record",
                log=self.work / f"{side.name}.log",
            )
            for side in make_sides(environments, tf1=tf1)
        ]


def _scratch(work: Path | None, repository: Path) -> Path:
    if work is None:
        return Path(tempfile.mkdtemp(prefix="migrate-prove-"))
    if work.is_relative_to(repository) or repository.is_relative_to(work):
        raise ValueError(f"--work: {work} overlaps {repository}, which prove never writes to")
    if work.exists() and any(work.iterdir()):
        raise ValueError(f"--work: {work} is not empty")
    work.mkdir(parents=True, exist_ok=True)
    return work


def _copy(source: Path, destination: Path) -> Path:
    ignored = shutil.ignore_patterns(".git", "__pycache__")
    shutil.copytree(source, destination, symlinks=True, ignore=ignored)
    return destination


def _migrate(repository: Path, out: Path) -> tuple[Path, dict]:
    """``migrate REPOSITORY --out OUT`` in a process; the migrated copy and the
    migration's totals."""
    migration_report = out.parent / "migration.json"
    command = [
        sys.executable,
        "-m",
        "estimator_revival.migrator.command.cli",
        str(repository),
        "--out",
        str(out),
        "--report",
        str(migration_report),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if not migration_report.exists():
        raise _Stopped(verdict.SIDE_FAILED, "migrate failed", [result.stdout + result.stderr])
    totals = json.loads(migration_report.read_text())
    migration = {key: totals.get(key) for key in ("files_changed", "errors", "warnings")}
    migration["diagnostics"] = result.stdout.splitlines()[:50]
    return out / repository.name, migration


def _side(run: SideRun, tensorflow: str) -> dict:
    migrated = run.side.name == "runtime"
    return {
        "program": "the migrated program" if migrated else "the program as written",
        "tensorflow": tensorflow,
        "python": str(run.side.python),
        "seconds": run.seconds,
        "returncode": run.returncode,
        "failed_command": run.failed_command,
        "log": run.log_tail(),
    }


def _failed_headline(failed: list[SideRun]) -> str:
    names = [run.side.name for run in failed]
    listed = " and ".join(filter(None, [", ".join(names[:-1]), names[-1]]))
    return f"the {listed} side{'s' if len(names) > 1 else ''} failed: see the log below"


def _problems(run: SideRun) -> list[str]:
    """What a failed side's log says is missing, as what to do about it."""
    log = run.log.read_text(errors="replace") if run.log.exists() else ""
    problems = [line.strip() for line in dict.fromkeys(_NO_STAND_IN.findall(log))]
    for module in dict.fromkeys(_MISSING_MODULE.findall(log)):
        if not module.startswith("tensorflow.contrib"):
            problems.append(
                f"the {run.side.name} side has no module {module!r}: install the package that "
                f"provides it into {run.side.python}'s environment"
            )
    return problems or [
        f"the {run.side.name} side's {run.failed_command!r} exited with {run.returncode}: "
        "its log says why"
    ]


def _compared(runs: list[SideRun], *, tf1: bool) -> dict:
    """The comparisons of the runtime and the legacy run with the reference, and
    the verdict."""
    report.quiet_tensorflow()
    read = {
        run.side.name: outputs.read({"out": run.out, "repo": run.source}, run.record)
        for run in runs
    }
    exact = comparison.compare(read["reference"], read["runtime"], names=("reference", "runtime"))
    across = comparison.compare(read["reference"], read["legacy"], names=("reference", "legacy"))
    onednn = runs[0].side.env["TF_ENABLE_ONEDNN_OPTS"] not in ("0", "false", "False")
    drift = verdict.legacy_drift(across, read["legacy"].graph_ops, onednn=onednn, tf1=tf1)
    runtime = verdict.classify(exact)
    overall = verdict.overall(runtime, bool(across.differences))
    return {
        "runtime_vs_reference": report.runtime_part(exact, runtime),
        "legacy_vs_reference": report.legacy_part(across, verdict.classify(across), drift),
        "verdict": overall,
        "headline": report.headline(overall, exact, drift),
        "plot": report.plots(read),
    }
