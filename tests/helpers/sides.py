"""Who runs a program in the equivalence tests: an interpreter, which of a fixture's
two programs it runs, and its environment.

=========  =====================================================================
LEGACY     the legacy program on TensorFlow 2.15 + tensorflow-estimator 2.15
           (``.venv-legacy``): the numbers users had
REFERENCE  the same legacy program, unchanged, on TensorFlow 2.21, with
           tensorflow-estimator 2.15 put back by ``migrator/prove/side_process/legacy_on_tf_2_21/``:
           the numbers the Estimator gives on the runtime's kernels, which the
           runtime must equal bit for bit
RUNTIME    the migrated program on TensorFlow 2.21 + the runtime (``.venv``)
=========  =====================================================================

LEGACY and REFERENCE differ only by TensorFlow's version; every difference
between them must be kernels named per fixture (``tests/helpers/kernel_drift.py``).

The sides run with oneDNN on (``TF_ENABLE_ONEDNN_OPTS=1``) unless the environment
sets it: ``TF_ENABLE_ONEDNN_OPTS=0 scripts/test tests/equivalence`` runs the proof as
TensorFlow runs by default on CPUs without AVX-512 VNNI, where Grappler leaves
other ops unfused (tests/helpers/kernel_drift.py).

``SIDE_LAUNCHER`` runs every side's processes under a command, e.g.
``SIDE_LAUNCHER="qemu-x86_64 -cpu EPYC-Milan"``. qemu-user 7.2 cannot run oneDNN's
JIT-compiled kernels (the sides end in a segmentation fault in ``Session.run``), so
an emulated CPU can run only the oneDNN-off configuration, which the variable above
runs natively.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import shlex
import sys
import threading
from pathlib import Path

from estimator_revival.migrator.names.dialect import TF1, tensorflow_dialect
from estimator_revival.migrator.prove.sides import RUN_SIDE, SIDE_PROCESS

REPO = Path(__file__).resolve().parents[2]
MAIN_PYTHON = Path(sys.executable)
LEGACY_PYTHON = Path(os.environ.get("LEGACY_PYTHON", REPO / ".venv-legacy" / "bin" / "python"))
# Installs the stand-ins of TF 1.x names and runs a legacy program (migrator/prove/side_process/standins/)
# (migrate prove's own launcher: `--standins` for the legacy program)
RUN_LEGACY = (RUN_SIDE, "--standins")
# tensorflow-estimator 2.15 on TensorFlow 2.21 (its sitecustomize), and where
# scripts/setup-envs installs tensorflow-estimator 2.15.0 for it
LEGACY_ON_TF_2_21 = SIDE_PROCESS / "legacy_on_tf_2_21"
ESTIMATOR_2_15 = MAIN_PYTHON.parent.parent / "estimator-2.15"
# TensorFlow 2.15's package (legacy_on_tf_2_21 reads the modules TF 2.21 lost from
# it) and tensorflow-estimator 1.15.1 beside it (TF 1.15's contrib heads)
LEGACY_TENSORFLOW = next(
    (LEGACY_PYTHON.parent.parent / "lib").glob("python3*/site-packages/tensorflow"), ""
)
LEGACY_ESTIMATOR_1_15 = LEGACY_PYTHON.parent.parent / "estimator-1.15"
LAUNCHER = tuple(shlex.split(os.environ.get("SIDE_LAUNCHER", "")))
# Packages named `runtime` and `migrator` of a program's own, first on every side's
# path: a program that reached the bundled runtime by those names fails.
USER_PACKAGES = REPO / "tests" / "user_packages"


def onednn_on() -> bool:
    """Whether the sides run with oneDNN: on unless the environment says otherwise.
    TensorFlow's own default depends on the CPU (on here, with AVX-512 VNNI and
    BF16; off on an emulated EPYC-Milan), and with it the kernels a graph computes
    with."""
    return os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") not in ("0", "false", "False")


@dataclasses.dataclass(frozen=True)
class Side:
    name: str
    python: Path
    runs_legacy_program: bool
    tensorflow: str
    paths: tuple[Path, ...] = ()
    # a legacy program written for TF 1 builds TF 2's control flow (While, If),
    # as the runtime's traced step does, instead of TF 1's (migrator/prove/side_process/standins/tf1_api.py)
    control_flow_v2: bool = False

    @property
    def interpreter(self) -> list[str]:
        """The command that starts this side's Python."""
        return [*LAUNCHER, str(self.python)]

    @property
    def program_argument(self) -> str:
        """What tests/programs/*.py take as their first argument to run as this side."""
        return "legacy" if self.runs_legacy_program else "runtime"

    def env(self, **overrides: str) -> dict:
        """CPU only, the repository importable (after a program's own ``runtime``
        and ``migrator`` packages), and Keras as each TensorFlow has it (TF 2.15
        ships Keras 2; on TF 2.21, tf-keras as ``import estimator_revival`` selects it)."""
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(str(p) for p in (USER_PACKAGES, REPO, *self.paths)),
            TF_CPP_MIN_LOG_LEVEL="2",
            CUDA_VISIBLE_DEVICES="",
            TF_ENABLE_ONEDNN_OPTS="1" if onednn_on() else "0",
            LEGACY_TENSORFLOW=str(LEGACY_TENSORFLOW),
            LEGACY_ESTIMATOR_1_15=str(LEGACY_ESTIMATOR_1_15),
        )
        env.pop("TF_CONFIG", None)
        if self.tensorflow == "2.15":
            env.pop("TF_USE_LEGACY_KERAS", None)
        else:
            env["TF_USE_LEGACY_KERAS"] = "1"
        if self.control_flow_v2:
            env["LEGACY_CONTROL_FLOW_V2"] = "1"
        env.update(overrides)
        return env

    def command(self, program: Path) -> list[str]:
        """How this side runs a fixture program: a legacy one through the stand-ins,
        with TF 1's API when it was written for TF 1.x (``migrator.names.dialect``)."""
        if not self.runs_legacy_program:
            return [*self.interpreter, str(program)]
        tf1_api = ["--tf1-api"] if written_for_tf1(program.read_text()) else []
        return [*self.interpreter, *map(str, RUN_LEGACY), *tf1_api, str(program)]


LEGACY = Side("legacy", LEGACY_PYTHON, runs_legacy_program=True, tensorflow="2.15")
REFERENCE = Side(
    "reference",
    MAIN_PYTHON,
    runs_legacy_program=True,
    tensorflow="2.21",
    paths=(LEGACY_ON_TF_2_21, ESTIMATOR_2_15),
)
REFERENCE_CONTROL_FLOW_V2 = dataclasses.replace(
    REFERENCE, name="reference_control_flow_v2", control_flow_v2=True
)
RUNTIME = Side("runtime", MAIN_PYTHON, runs_legacy_program=False, tensorflow="2.21")

# CPython 3.11's ast.parse is not safe in two threads at once (its AST conversion
# keeps one recursion counter per interpreter: "SystemError: AST constructor
# recursion depth mismatch", seen in a clean-clone CI run); sides started from
# several threads parse one at a time.
_PARSING = threading.Lock()


def written_for_tf1(code: str) -> bool:
    with _PARSING:
        tree = ast.parse(code)
    return tensorflow_dialect(code, tree) == TF1
