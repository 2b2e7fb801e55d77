"""End-to-end runs of the legacy projects in ``fixtures/projects/``: the project as
written on TF 2.15 + tensorflow-estimator (with the stand-ins of
``tests/standins/``), its ``migrate`` output on TF 2.21 + the runtime, and the
comparison of everything the two runs left on disk."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import tensorflow as tf
from harness import LEGACY_PYTHON, MAIN_PYTHON, REPO, assert_relatively_close, program_env
from saved_model_compare import call_every_signature, signature_layout

from fixtures.equivalence.recording import scalar_summaries

PROJECTS = REPO / "fixtures" / "projects"
RUN_LEGACY = REPO / "tests" / "standins" / "run_legacy.py"


@dataclasses.dataclass(frozen=True)
class Project:
    """How to run a project and what its runs leave to compare.

    ``commands`` are argument lists after ``python`` (``-m pkg.mod`` or a script),
    run in the project's directory; ``{out}`` stands for the run's output folder.
    Paths in ``results``, ``model_dirs`` and ``exports`` are relative to it.
    """

    name: str
    commands: tuple[tuple[str, ...], ...]
    results: tuple[str, ...]
    model_dirs: tuple[str, ...]
    exports: tuple[str, ...] = ()
    # {input name: high} for integer serving inputs: requests use ids below `high`
    id_inputs: dict = dataclasses.field(default_factory=dict)
    # {input name: TFRecord file under the output folder} for string serving inputs
    # (serialized tf.Example): requests are the file's first records
    record_inputs: dict = dataclasses.field(default_factory=dict)
    # Ops whose TF 2.21 kernels give other bits than TF 2.15's (then rtol applies)
    kernel_drift: tuple[str, ...] = ()
    rtol: float = 0.0


def run_project(project: Project, source: Path, out: Path, *, legacy: bool) -> None:
    """Runs the project's commands in ``source`` (a copy of it)."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(program_env(legacy=legacy), PYTHONHASHSEED="0")
    prefix = [str(LEGACY_PYTHON), str(RUN_LEGACY)] if legacy else [str(MAIN_PYTHON)]
    for command in project.commands:
        argv = prefix + [part.replace("{out}", str(out)) for part in command]
        result = subprocess.run(
            argv, cwd=source, env=env, capture_output=True, text=True, timeout=900
        )
        if result.returncode != 0:
            side = "legacy" if legacy else "migrated"
            raise AssertionError(
                f"{side} {project.name}: {' '.join(command)} failed ({result.returncode}):\n"
                f"{result.stderr[-6000:]}"
            )


def run_both(project: Project, legacy_source: Path, migrated_source: Path, tmp: Path):
    """Both sides at once; returns their output folders (legacy, migrated)."""
    outs = tmp / "legacy_out", tmp / "migrated_out"
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(run_project, project, legacy_source, outs[0], legacy=True),
            pool.submit(run_project, project, migrated_source, outs[1], legacy=False),
        ]
        for future in futures:
            future.result()
    return outs


def copy_project(name: str, destination: Path) -> Path:
    shutil.copytree(PROJECTS / name, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


class Comparison:
    """Compares two output folders: bit for bit, or within ``rtol`` of each value's
    magnitude when the project names kernels that drifted between the versions."""

    def __init__(self, project: Project, legacy: Path, migrated: Path):
        self.project = project
        self.legacy = legacy
        self.migrated = migrated

    def values(self, actual, expected, what: str) -> None:
        if self.project.rtol:
            assert_relatively_close(actual, expected, rtol=self.project.rtol, what=what)
        else:
            np.testing.assert_array_equal(actual, expected, what)

    def results(self) -> None:
        """Text files the project wrote: equal bytes, or equal apart from numbers
        that are within rtol."""
        for path in self.project.results:
            expected = (self.legacy / path).read_text()
            actual = (self.migrated / path).read_text()
            if not self.project.rtol:
                assert actual == expected, path
                continue
            assert _NUMBER.sub("#", actual) == _NUMBER.sub("#", expected), path
            self.values(_numbers(actual), _numbers(expected), path)

    def summaries(self) -> int:
        """Every scalar summary in every event folder; returns how many were compared."""
        compared = 0
        for model_dir in self.project.model_dirs:
            for folder in _event_folders(self.legacy / model_dir):
                relative = folder.relative_to(self.legacy)
                expected = scalar_summaries(folder)
                actual = scalar_summaries(self.migrated / relative)
                assert actual.keys() == expected.keys(), relative
                for tag, series in expected.items():
                    steps = [step for step, _ in series]
                    assert [step for step, _ in actual[tag]] == steps, f"{relative}:{tag}"
                    self.values(
                        [v for _, v in actual[tag]], [v for _, v in series], f"{relative}:{tag}"
                    )
                    compared += len(series)
        return compared

    def checkpoints(self) -> None:
        """The same checkpoint files, and the latest one's variables."""
        for model_dir in self.project.model_dirs:
            expected_dir, actual_dir = self.legacy / model_dir, self.migrated / model_dir
            assert _checkpoint_names(actual_dir) == _checkpoint_names(expected_dir), model_dir
            expected = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(expected_dir)))
            actual = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(actual_dir)))
            names = sorted(expected.get_variable_to_shape_map())
            assert sorted(actual.get_variable_to_shape_map()) == names, model_dir
            if not self.project.rtol:
                for name in names:
                    self.values(actual.get_tensor(name), expected.get_tensor(name), name)
                continue
            # Within rtol: all float variables as one parameter vector, as optimizer
            # slots of near-cancelling sums are meaningless relative to themselves.
            floats = [name for name in names if expected.get_tensor(name).dtype.kind == "f"]
            self.values(
                np.concatenate([actual.get_tensor(name).ravel() for name in floats]),
                np.concatenate([expected.get_tensor(name).ravel() for name in floats]),
                f"{model_dir}: all float variables",
            )

    def exports(self) -> None:
        """As many exports kept under each export folder, and the newest one with the
        same signatures and outputs."""
        for base in self.project.exports:
            expected_versions = _export_versions(self.legacy / base)
            actual_versions = _export_versions(self.migrated / base)
            assert len(actual_versions) == len(expected_versions), base
            expected_dir, actual_dir = expected_versions[-1], actual_versions[-1]
            layout = signature_layout(expected_dir)
            assert signature_layout(actual_dir) == layout, base
            requests = _requests(layout, self.project, self.legacy)
            expected = call_every_signature(expected_dir, requests)
            actual = call_every_signature(actual_dir, requests)
            assert actual.keys() == expected.keys(), base
            for key, outputs in expected.items():
                for output, value in outputs.items():
                    self.values(actual[key][output], value, f"{base}:{key}/{output}")


_NUMBER = re.compile(r"-?\d+\.\d*(?:[eE][-+]?\d+)?")


def _numbers(text: str) -> list[float]:
    return [float(number) for number in _NUMBER.findall(text)]


def _event_folders(model_dir: Path) -> list[Path]:
    return sorted({path.parent for path in model_dir.rglob("events.out.tfevents.*")})


def _checkpoint_names(model_dir: Path) -> list[str]:
    return sorted(path.name for path in model_dir.glob("model.ckpt-*.index"))


def _export_versions(base: Path) -> list[Path]:
    """The timestamped exports under ``base``, oldest first."""
    versions = [path for path in base.iterdir() if path.name.isdigit()]
    assert versions, f"no export under {base}"
    return sorted(versions, key=lambda path: int(path.name))


def _requests(layout, project: Project, out: Path) -> dict:
    """Four deterministic rows for every input of every signature."""
    rng = np.random.RandomState(0)
    requests = {}
    for _, signatures in layout:
        for _, inputs, _ in signatures.values():
            for name, (dtype, shape) in inputs.items():
                if name in requests:
                    continue
                dims = [4 if size == -1 else size for size in shape]
                dtype = tf.dtypes.as_dtype(dtype)
                if dtype.is_floating:
                    requests[name] = tf.constant(rng.normal(size=dims), dtype)
                elif dtype.is_integer:
                    high = project.id_inputs[name]
                    requests[name] = tf.constant(rng.randint(0, high, size=dims), dtype)
                elif dtype == tf.string:
                    records = tf.data.TFRecordDataset(str(out / project.record_inputs[name]))
                    rows = [record.numpy() for record in records.take(dims[0])]
                    requests[name] = tf.constant(rows, shape=dims)
                else:
                    raise AssertionError(f"no request data for input {name} ({dtype})")
    return requests


def migrate_command() -> list[str]:
    return [str(Path(sys.executable).parent / "migrate")]
