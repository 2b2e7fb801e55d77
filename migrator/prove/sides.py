"""The three runs of a proof, each in its own process, copy of the repository and
output folder:

==========  ================================================================
legacy      the program as written, on TensorFlow 2.15 + tensorflow-estimator
            2.15: the numbers its users had
reference   the same program on this interpreter's TensorFlow, with
            tensorflow-estimator 2.15 put back: the numbers the Estimator gives
            on the kernels the runtime computes with
runtime     the program ``migrate`` wrote, on this TensorFlow + the runtime
==========  ================================================================

A program written for TF 1.x runs on both legacy sides with TF 1's API and the
``tf.contrib``/``npu_bridge`` stand-ins; on the reference side with TF 2's control
flow (``If``, ``While``), which the runtime's traced steps build whatever the
program says (docs/prove.md, "The sides").
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from estimator_revival.migrator.prove.environments import Environments

SIDE_PROCESS = Path(__file__).resolve().parent / "side_process"
RUN_SIDE = SIDE_PROCESS / "run_side.py"
LEGACY_ON_TF_2_21 = SIDE_PROCESS / "legacy_on_tf_2_21"
PYTHON_NAMES = ("python", "python3") + tuple(f"python3.{minor}" for minor in range(8, 20))


class BadCommand(ValueError):
    """A ``--run`` command ``prove`` cannot start as a side."""


@dataclasses.dataclass(frozen=True)
class Side:
    name: str
    python: Path
    legacy_program: bool
    env: dict

    def argv(self, program: list[str], *, tf1: bool, settings: list[str]) -> list[str]:
        """How this side starts ``program`` (after ``python``)."""
        standins = ["--standins", *(["--tf1-api"] if tf1 else [])] if self.legacy_program else []
        return [str(self.python), str(RUN_SIDE), *standins, *settings, *program]


def make_sides(environments: Environments, *, tf1: bool) -> list[Side]:
    """The legacy, reference and runtime sides, with the environment variables each
    side's processes get (CPU only, every hash seeded, oneDNN as for the others)."""
    base = dict(
        os.environ,
        CUDA_VISIBLE_DEVICES="",
        PYTHONHASHSEED="0",
        TF_CPP_MIN_LOG_LEVEL="2",
        TF_ENABLE_ONEDNN_OPTS=os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1"),
        LEGACY_ESTIMATOR_1_15=str(environments.estimator_1_15),
    )
    base.pop("TF_CONFIG", None)
    legacy = dict(base)
    legacy.pop("TF_USE_LEGACY_KERAS", None)
    reference = dict(
        base,
        TF_USE_LEGACY_KERAS="1",
        LEGACY_TENSORFLOW=str(environments.legacy_tensorflow),
        PYTHONPATH=_path(LEGACY_ON_TF_2_21, environments.reference_estimator),
    )
    if tf1:
        reference["LEGACY_CONTROL_FLOW_V2"] = "1"
    runtime = dict(base, TF_USE_LEGACY_KERAS="1")
    return [
        Side("legacy", environments.legacy_python, True, legacy),
        Side("reference", Path(sys.executable), True, reference),
        Side("runtime", Path(sys.executable), False, runtime),
    ]


def _path(*folders: Path) -> str:
    """The inherited PYTHONPATH first (a program's own packages), then ``folders``."""
    inherited = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    return os.pathsep.join([*inherited, *(str(folder) for folder in folders)])


def program_of(command: str) -> list[str]:
    """``python [-m MODULE | SCRIPT] ARGS...`` → the part after ``python``."""
    words = shlex.split(command)
    if not words or Path(words[0]).name not in PYTHON_NAMES:
        raise BadCommand(
            f"--run {command!r}: start it with python (python SCRIPT ARGS... or "
            "python -m MODULE ARGS...); prove runs it with each side's interpreter"
        )
    program = words[1:]
    named = program and (program[0] != "-m" or len(program) > 1)
    if not named or (program[0].startswith("-") and program[0] != "-m"):
        raise BadCommand(f"--run {command!r}: name a script or -m MODULE after python")
    return words[1:]


@dataclasses.dataclass
class SideRun:
    """One side's processes: where they ran, what they wrote, how they ended."""

    side: Side
    source: Path  # its copy of the repository (the working directory)
    out: Path  # what {out} stands for
    record: Path  # what the proof's settings recorded
    log: Path
    returncode: int = 0
    failed_command: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.returncode != 0

    def log_tail(self, characters: int = 6000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-characters:]


def run_all(
    runs: list[SideRun], commands: list[str], *, tf1: bool, settings: list[str], timeout: float
) -> None:
    """Every side's commands, the sides at once."""
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        for future in [pool.submit(_run, run, commands, tf1, settings, timeout) for run in runs]:
            future.result()


def _run(run: SideRun, commands: list[str], tf1: bool, settings: list[str], timeout: float):
    """One side's commands in order, until one fails; their output goes to its log."""
    run.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    side_settings = ["--prove", str(run.record), *settings]
    with run.log.open("w") as log:
        for command in commands:
            text = _placed(command, run.out)
            log.write(f"$ {text}\n")
            log.flush()
            argv = run.side.argv(program_of(text), tf1=tf1, settings=side_settings)
            try:
                finished = subprocess.run(
                    argv,
                    cwd=run.source,
                    env=run.side.env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                )
                returncode = finished.returncode
            except subprocess.TimeoutExpired:
                log.write(f"\nprove: stopped after {timeout:.0f} s (--timeout)\n")
                returncode = -1
            except OSError as error:  # the side's interpreter cannot start
                log.write(f"\nprove: cannot start {argv[0]}: {error}\n")
                returncode = -1
            if returncode != 0:
                run.returncode, run.failed_command = returncode, text
                break
    run.seconds = time.perf_counter() - started


def _placed(command: str, out: Path) -> str:
    """``{out}`` and ``{model_dir}`` of a command, for a side whose output folder is ``out``."""
    return command.replace("{out}", str(out)).replace("{model_dir}", str(out / "model_dir"))
