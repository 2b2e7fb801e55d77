"""Where each side's TensorFlow comes from.

- The legacy side: an interpreter with TensorFlow 2.15 and tensorflow-estimator
  2.15 (``legacy_environment.txt``), the user's (``--legacy-python``) or one
  ``prove`` creates once under its cache folder and reuses. tensorflow-estimator
  1.15.1 beside it (``<venv>/estimator-1.15``) gives the stand-in of TF 1.15's
  ``tf.contrib.estimator`` heads.
- The reference side: this interpreter, with tensorflow-estimator 2.15 installed
  apart (``pip install --no-deps --target``) and put back on TensorFlow by
  ``side_process/legacy_on_tf_2_21``, which also reads the few modules the
  Estimator imports and TensorFlow 2.16 dropped from the legacy side's TensorFlow.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "legacy_environment.txt"
ESTIMATOR_1_15 = "tensorflow-estimator==1.15.1"
# Python versions TensorFlow 2.15 has wheels for
LEGACY_PYTHONS = ((3, 9), (3, 10), (3, 11))


class SideUnavailable(Exception):  # noqa: N818 - a message for users
    """A side's environment is missing or cannot be made; the message says what
    to install."""


@dataclasses.dataclass(frozen=True)
class Environments:
    """What the three sides run with."""

    legacy_python: Path
    legacy_tensorflow: Path  # its tensorflow package folder
    legacy_version: str  # its TensorFlow's version
    estimator_1_15: Path  # tensorflow-estimator 1.15.1 beside it (may be absent)
    reference_estimator: Path  # tensorflow-estimator 2.15 for this interpreter


def pinned(name: str) -> str:
    """The requirement line of ``name`` in legacy_environment.txt."""
    for line in REQUIREMENTS.read_text().splitlines():
        if line.split("==")[0] == name:
            return line
    raise KeyError(name)


def cache_directory() -> Path:
    return Path(
        os.environ.get("ESTIMATOR_REVIVAL_CACHE", Path.home() / ".cache" / "estimator-revival")
    )


def prepare(legacy_python: Path | None, reference_estimator: Path | None, log) -> Environments:
    """The sides' environments, made where missing (``log`` says what is made)."""
    cache = cache_directory()
    if legacy_python is None:
        legacy_python = _created_legacy_environment(cache / "legacy-tf2.15", log)
    legacy_tensorflow, legacy_version = check_legacy(legacy_python)
    if reference_estimator is None:
        reference_estimator = cache / f"estimator-2.15-py{sys.version_info[0]}{sys.version_info[1]}"
        if not (reference_estimator / "tensorflow_estimator").is_dir():
            log(f"installing {pinned('tensorflow-estimator')} into {reference_estimator}")
            _pip(
                sys.executable,
                "--no-deps",
                "--target",
                str(reference_estimator),
                pinned("tensorflow-estimator"),
            )
    elif not (reference_estimator / "tensorflow_estimator").is_dir():
        raise SideUnavailable(
            f"--reference-estimator {reference_estimator}: no tensorflow_estimator package in it "
            f"(make one with: {sys.executable} -m pip install --no-deps --target "
            f"{reference_estimator} {pinned('tensorflow-estimator')})"
        )
    return Environments(
        legacy_python=legacy_python,
        legacy_tensorflow=legacy_tensorflow,
        legacy_version=legacy_version,
        estimator_1_15=legacy_python.parent.parent / "estimator-1.15",
        reference_estimator=reference_estimator,
    )


def check_legacy(python: Path) -> tuple[Path, str]:
    """The folder and version of the TensorFlow 2.15 package ``python`` has;
    raises, naming what to install, if it lacks it or tensorflow-estimator 2.15."""
    probe = (
        "import importlib.metadata as m, importlib.util as u, json\n"
        "found = {}\n"
        "for name in ('tensorflow', 'tensorflow-cpu', 'tensorflow-estimator'):\n"
        "    try: found[name] = m.version(name)\n"
        "    except m.PackageNotFoundError: pass\n"
        "spec = u.find_spec('tensorflow')\n"
        "found['path'] = spec.submodule_search_locations[0] if spec else None\n"
        "print(json.dumps(found))\n"
    )
    install = f"{python} -m pip install {' '.join(_requirements())}"
    try:
        result = subprocess.run(
            [str(python), "-c", probe], capture_output=True, text=True, timeout=120
        )
    except OSError as error:
        raise SideUnavailable(f"--legacy-python {python}: cannot start it ({error})") from None
    if result.returncode != 0:
        raise SideUnavailable(
            f"--legacy-python {python}: it failed to start:\n{result.stderr[-2000:]}"
        )
    found = json.loads(result.stdout)
    tensorflow = found.get("tensorflow-cpu") or found.get("tensorflow")
    if not tensorflow or not tensorflow.startswith("2.15."):
        raise SideUnavailable(
            f"the legacy environment ({python}) has TensorFlow {tensorflow or 'not installed'}; "
            f"the legacy side needs TensorFlow 2.15: {install}"
        )
    if not found.get("tensorflow-estimator", "").startswith("2.15."):
        raise SideUnavailable(
            f"the legacy environment ({python}) lacks tensorflow-estimator 2.15: {install}"
        )
    return Path(found["path"]), tensorflow


def _requirements() -> list[str]:
    lines = REQUIREMENTS.read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def _created_legacy_environment(venv: Path, log) -> Path:
    python = venv / "bin" / "python"
    if (venv / ".complete").exists():
        return python
    if sys.version_info[:2] not in LEGACY_PYTHONS:
        raise SideUnavailable(
            f"TensorFlow 2.15 has no wheels for Python {sys.version_info[0]}."
            f"{sys.version_info[1]}: name an interpreter of Python 3.9-3.11 with "
            f"{' and '.join(_requirements())} installed, as --legacy-python"
        )
    log(f"creating the legacy environment in {venv} (once; about 600 MB)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    _pip(str(python), *_requirements())
    _pip(str(python), "--no-deps", "--target", str(venv / "estimator-1.15"), ESTIMATOR_1_15)
    (venv / ".complete").write_text("")
    return python


def _pip(python: str, *arguments: str) -> None:
    command = [python, "-m", "pip", "install", "--quiet", *arguments]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SideUnavailable(
            f"could not install {' '.join(arguments)} ({' '.join(command)} failed; is the "
            f"package index reachable?):\n{result.stderr[-2000:]}\n"
            "Install TensorFlow 2.15 and tensorflow-estimator 2.15 into an environment "
            "yourself and name its interpreter with --legacy-python."
        )
