"""End-to-end runs of the legacy projects in ``fixtures/projects/``: the project as
written, run by the legacy sides (TF 2.15 and TF 2.21, tensorflow-estimator 2.15,
with the stand-ins of ``migrator/prove/side_process/standins/``), its ``migrate`` output on TF 2.21 + the
runtime, and the comparison of everything the runs left on disk."""

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

from estimator_revival.migrator.names.program import read_program
from fixtures.equivalence.recording import scalar_summaries
from helpers.harness import assert_racy_reads, assert_racy_step_labels
from helpers.kernel_drift import assert_equal_until_the_drift, showing_here
from helpers.saved_model_compare import call_every_signature, signature_layout
from helpers.sides import REPO, RUN_LEGACY, Side

PROJECTS = REPO / "fixtures" / "projects"


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
    # (serialized tf.Example): requests are the file's first records; a key
    # "<export folder>:<input name>" gives one export's input its own file
    record_inputs: dict = dataclasses.field(default_factory=dict)
    # The kernels that changed between TF 2.15 and 2.21 on its training graph
    # (tests/helpers/kernel_drift.py)
    kernel_drift: frozenset[str] = frozenset()
    # Summary tags of reads TF 1's Session raced with the update (harness.RACY_SUMMARIES)
    racy_summaries: tuple[str, ...] = ()
    # Summary tags labelled with a read of a TF 1 reference variable global step that
    # TF 1's Session raced with the step's increment (harness.assert_racy_step_labels)
    racy_step_labels: tuple[str, ...] = ()
    # Summary tags of TRAIN-mode streaming metrics whose predictions TF 1's Session
    # computed beside the step's in-place update of the variables they read: a
    # prediction can see the updated variable, and the metric's count keeps the
    # difference, so two runs of the legacy program differ from that step on; only
    # their steps are compared
    raced_metrics: tuple[str, ...] = ()
    # A program written for TF 1 whose graph holds TF 1 loops: its bit-for-bit
    # reference is the legacy project with TF 2's (kernel_drift.CONTROL_FLOW)
    control_flow_v1: bool = False

    @property
    def train_dir(self) -> str:
        """The model directory training wrote its checkpoints and summaries to."""
        return self.model_dirs[0]


def run_project(project: Project, source: Path, out: Path, *, side: Side) -> None:
    """Runs the project's commands in ``source`` (a copy of it) as ``side`` runs them:
    the legacy project through the stand-ins, with TF 1's API when written for TF 1.x
    (migrator/prove/side_process/standins/tf1_api.py)."""
    prefix: tuple[str, ...] = ()
    if side.runs_legacy_program:
        prefix = (*map(str, RUN_LEGACY), *(("--tf1-api",) if _written_for_tf1(source) else ()))
    out.mkdir(parents=True, exist_ok=True)
    env = side.env(PYTHONHASHSEED="0")
    for command in project.commands:
        argv = [*side.interpreter, *prefix, *(part.replace("{out}", str(out)) for part in command)]
        result = subprocess.run(
            argv, cwd=source, env=env, capture_output=True, text=True, timeout=900
        )
        if result.returncode != 0:
            raise AssertionError(
                f"{side.name} {project.name}: {' '.join(command)} failed ({result.returncode}):\n"
                f"{result.stderr[-6000:]}"
            )


def _written_for_tf1(source: Path) -> bool:
    """As ``migrate`` decides it for the whole program (migrator/names/program.py)."""
    return read_program(source.absolute()).written_for_tf1


def run_sides(project: Project, runs: dict[Side, Path], tmp: Path) -> dict[str, Path]:
    """``{side: source}`` run at once; returns ``{side name: output folder}``."""
    outs = {side.name: tmp / f"{side.name}_out" for side in runs}
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        futures = [
            pool.submit(run_project, project, source, outs[side.name], side=side)
            for side, source in runs.items()
        ]
        for future in futures:
            future.result()
    return outs


def copy_project(name: str, destination: Path) -> Path:
    shutil.copytree(PROJECTS / name, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


class Comparison:
    """Compares two output folders: bit for bit; or, for the legacy project's runs on
    the two TensorFlow versions with ``kernels`` named (tests/helpers/kernel_drift.py), the
    same files, tags, steps, checkpoints, variables and signatures, every summary
    equal at the steps before the drift's onset and within the kernels' bound at it.
    Later values compound the change (training amplifies it) and are compared
    between the runtime and the legacy project on TF 2.21 instead."""

    def __init__(
        self,
        project: Project,
        expected: Path,
        actual: Path,
        *,
        kernels=frozenset(),
        actual_is_legacy: bool = False,
    ) -> None:
        self.project = project
        self.legacy = expected
        self.migrated = actual
        self.kernels = showing_here(kernels)
        self.kernel_drift = bool(self.kernels)
        self.actual_is_legacy = actual_is_legacy  # both runs had the legacy races

    def results(self) -> None:
        """Text files the project wrote: equal bytes (with kernel drift: equal apart
        from the numbers in them)."""
        for path in self.project.results:
            expected = (self.legacy / path).read_text()
            actual = (self.migrated / path).read_text()
            if self.kernel_drift:
                assert _NUMBER.sub("#", actual) == _NUMBER.sub("#", expected), path
            else:
                assert actual == expected, path

    def summaries(self) -> int:
        """Every scalar summary in every event folder; returns how many were compared.
        With named kernels, an evaluation after a training that drifted (a step's
        summary, or the variables it left, differ) compounds the change and is left
        to the comparison of the runtime with the reference, as later steps are."""
        pairs = []  # (what, step, actual, expected)
        evaluation = []
        for model_dir in self.project.model_dirs:
            for folder in _event_folders(self.legacy / model_dir):
                relative = folder.relative_to(self.legacy)
                expected = scalar_summaries(folder)
                actual = scalar_summaries(self.migrated / relative)
                assert actual.keys() == expected.keys(), relative
                for tag, series in expected.items():
                    if tag in self.project.racy_step_labels:
                        assert_racy_step_labels(
                            actual[tag],
                            series,
                            what=f"{relative}:{tag}",
                            actual_races=self.actual_is_legacy,
                        )
                        continue
                    if tag in self.project.racy_summaries:
                        if not self.kernel_drift:
                            assert_racy_reads(actual[tag], series, what=f"{relative}:{tag}")
                        continue
                    steps = [step for step, _ in series]
                    assert [step for step, _ in actual[tag]] == steps, f"{relative}:{tag}"
                    if tag in self.project.raced_metrics:
                        continue
                    found = evaluation if relative.name.startswith("eval") else pairs
                    found += [
                        (f"{relative}:{tag}", step, a, e)
                        for (step, e), (_, a) in zip(series, actual[tag], strict=True)
                    ]
        onset = assert_equal_until_the_drift(pairs, self.kernels, what=self.project.name)
        drifted = onset is not None or not self._same_trained_variables()
        if not (self.kernels and drifted):
            assert_equal_until_the_drift(evaluation, self.kernels, what=self.project.name)
        return len(pairs) + len(evaluation)

    def _same_trained_variables(self) -> bool:
        """Whether the latest checkpoints of both runs hold the same values."""
        for model_dir in self.project.model_dirs:
            expected, actual = self._latest_checkpoints(model_dir)
            for name in expected.get_variable_to_shape_map():
                if not np.array_equal(actual.get_tensor(name), expected.get_tensor(name)):
                    return False
        return True

    def _latest_checkpoints(self, model_dir: str) -> tuple:
        """Readers of the latest checkpoint in ``model_dir`` of the expected and the
        actual run."""
        return tuple(
            tf.train.load_checkpoint(tf.train.latest_checkpoint(str(root / model_dir)))
            for root in (self.legacy, self.migrated)
        )

    def checkpoints(self) -> None:
        """The same checkpoint files, and the latest one's variables (with kernel
        drift: their names and shapes)."""
        for model_dir in self.project.model_dirs:
            expected_dir, actual_dir = self.legacy / model_dir, self.migrated / model_dir
            assert _checkpoint_names(actual_dir) == _checkpoint_names(expected_dir), model_dir
            expected, actual = self._latest_checkpoints(model_dir)
            shapes = expected.get_variable_to_shape_map()
            assert actual.get_variable_to_shape_map() == shapes, model_dir
            if not self.kernel_drift:
                for name in sorted(shapes):
                    np.testing.assert_array_equal(
                        actual.get_tensor(name), expected.get_tensor(name), name
                    )

    def exports(self) -> None:
        """As many exports kept under each export folder, and the newest one with the
        same signatures and (without kernel drift) the same outputs."""
        for base in self.project.exports:
            expected_versions = _export_versions(self.legacy / base)
            actual_versions = _export_versions(self.migrated / base)
            assert len(actual_versions) == len(expected_versions), base
            expected_dir, actual_dir = expected_versions[-1], actual_versions[-1]
            layout = signature_layout(expected_dir)
            assert signature_layout(actual_dir) == layout, base
            requests = _requests(layout, self.project, self.legacy, base)
            expected = call_every_signature(expected_dir, requests)
            actual = call_every_signature(actual_dir, requests)
            assert actual.keys() == expected.keys(), base
            for key, outputs in expected.items():
                assert actual[key].keys() == outputs.keys(), f"{base}:{key}"
                if self.kernel_drift:
                    continue
                for output, value in outputs.items():
                    np.testing.assert_array_equal(actual[key][output], value, f"{base}:{output}")


_NUMBER = re.compile(r"-?\d+\.\d*(?:[eE][-+]?\d+)?")


def _event_folders(model_dir: Path) -> list[Path]:
    return sorted({path.parent for path in model_dir.rglob("events.out.tfevents.*")})


def _checkpoint_names(model_dir: Path) -> list[str]:
    return sorted(path.name for path in model_dir.glob("model.ckpt-*.index"))


def _export_versions(base: Path) -> list[Path]:
    """The timestamped exports under ``base``, oldest first."""
    versions = [path for path in base.iterdir() if path.name.isdigit()]
    assert versions, f"no export under {base}"
    return sorted(versions, key=lambda path: int(path.name))


def _requests(layout, project: Project, out: Path, base: str) -> dict:
    """Four deterministic rows for every input of every signature of the export
    under ``base``."""
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
                    path = (
                        project.record_inputs.get(f"{base}:{name}") or project.record_inputs[name]
                    )
                    records = tf.data.TFRecordDataset(str(out / path))
                    rows = [record.numpy() for record in records.take(dims[0])]
                    requests[name] = tf.constant(rows, shape=dims)
                else:
                    raise AssertionError(f"no request data for input {name} ({dtype})")
    return requests


def migrate_command() -> list[str]:
    return [str(Path(sys.executable).parent / "migrate")]
