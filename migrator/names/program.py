"""Which TensorFlow a program was written for, read from the whole program.

A file alone often cannot tell: ``import tensorflow.compat.v1 as tf`` was how TF 1.14
and 1.15 code reached TF 1's API as much as how TF 2 code did, and a model module
may use no TF 1-only name while the trainer beside it imports ``tf.contrib``. What
matters is how the program ran: TF 1.x ran every program with the behaviour that
``tf.compat.v1.disable_v2_behavior()`` switches on today (v1 initializers seeded by
the graph seed, reference variables, v1 control flow and shapes...), so a program
written for TF 1 and run with TF 2's behaviour trains with other numbers, silently.

A *program* is the directory that holds a file's top-level package (the file's own
directory for a script beside others). It was written for TF 1 when any of its
files uses a name only TF 1 had (``migrator.names.dialect``), or a requirement file of it
or of a directory above it (up to the repository's root) pins TensorFlow 1.

The program's own top-level modules and packages (what ``import x`` finds in its
directory before anything installed) are its own: a project's ``runtime`` package
is not the bundled runtime's former name, nor its ``npu_bridge`` Ascend's.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import threading
from pathlib import Path

from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.names import dialect
from estimator_revival.migrator.names.file_facts import FileFacts

_REQUIREMENT_FILES = (
    "requirements*.txt",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "environment*.yml",
    "environment*.yaml",
)
# tensorflow==1.15, tensorflow-gpu~=1.14, tensorflow<2, tensorflow>=1.13,<2.0
_TF1_PIN = re.compile(
    r"""\btensorflow(?:-gpu|-cpu)?\s*(?:[=~]=\s*1\.|<=?\s*1\.|(?:>=?\s*1[\d.]*\s*,\s*)?<\s*2\b)"""
)
_SWITCH = re.compile(r"^[^#\n]*\bdisable_v2_behavior\s*\(", re.MULTILINE)  # not in a comment
# Ascend's adapter for TF 1 (its TF 2 adapter is npu_device)
_NPU_BRIDGE = re.compile(rb"^\s*(?:from|import)\s+npu_bridge\b", re.MULTILINE)
_REPOSITORY_MARKERS = (".git", ".hg")
# What migrator.rules.tf1_behaviour writes where it decided a program was written for TF 1
# (`# migrate: a TF 1 program (why)`): later runs read the decision back.
DECISION_MARK = "# migrate: a TF 1 program"
# A switch the program's own code makes (not one migrate wrote, which a copy of an
# entry point in an earlier run's --out directory holds too)
_OWN_SWITCH = re.compile(
    _SWITCH.pattern.encode() + rb"(?![^\n]*" + re.escape(DECISION_MARK).encode() + rb")",
    re.MULTILINE,
)
DECISION = re.compile(re.escape(DECISION_MARK) + r" \((.*?)\)(?:$|:)", re.MULTILINE)
_MENTIONS = re.compile(rb"tensorflow|npu_bridge|__main__|" + re.escape(DECISION_MARK).encode())
_READING = threading.Lock()
_LEVELS_WITHOUT_REPOSITORY = 4  # the program's directory and three above it
_SKIPPED_DIRECTORIES = {"__pycache__", "site-packages", "node_modules"}
# top-level calls that make a module a script (what it runs when run)
_SCRIPT_CALLS = {
    "main",
    "run",
    "train",
    "evaluate",
    "predict",
    "train_and_evaluate",
    "export_saved_model",
    "export_savedmodel",
}


@dataclasses.dataclass(frozen=True)
class Program:
    """What migrating one of the program's files needs to know of the others."""

    root: Path
    written_for_tf1: bool = False
    reason: str = ""  # why TF 1: "model.py uses tensorflow.contrib"
    switched: bool = False  # a module calls disable_v2_behavior() of its own
    entry_points: tuple[Path, ...] = ()
    # its own top-level modules that bear a name the migration resolves
    first_party: frozenset[str] = frozenset()

    @property
    def needs_switch(self) -> bool:
        """TF 1's behaviour must be switched on for this program to run as it ran."""
        return self.written_for_tf1 and not self.switched

    def fingerprint(self) -> str:
        """What a migration's result depends on (the result cache's key)."""
        own = ",".join(sorted(self.first_party))
        if not self.written_for_tf1:
            return own and f"own|{own}"
        return f"tf1|{self.reason}|{self.switched}|{sorted(map(str, self.entry_points))}|{own}"


FILE_ALONE = Program(root=Path())


def program_root(path: Path) -> Path:
    """The directory holding ``path``'s top-level package (``path``'s own directory
    for a module outside any package)."""
    directory = path.absolute().parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


def program_of(path: Path) -> Program:
    return read_program(program_root(path))


def read_program(root: Path) -> Program:
    """The program under ``root`` (read once per run: workers forked after the first
    read inherit it). Threads read one at a time: CPython 3.11's ``ast.parse`` in
    two threads at once can fail (``AST constructor recursion depth mismatch``)."""
    with _READING:
        return _read_program(root)


def forget_programs() -> None:
    """A new run reads every program again (its files may have changed)."""
    _read_program.cache_clear()


@functools.cache
def _read_program(root: Path) -> Program:
    reason, switched, entry_points = "", False, []
    for path in _python_files(root):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if not _MENTIONS.search(data):
            continue
        switched |= bool(_OWN_SWITCH.search(data))
        with FileFacts(data) as facts:
            if not facts.parses():
                continue
            if facts.get("entry_point", lambda code, tree: is_entry_point(tree)):
                entry_points.append(path)
            if not reason and _NPU_BRIDGE.search(data):
                reason = f"{path.relative_to(root)} imports npu_bridge"
            if not reason and b"tensorflow" in data:
                tf1_name = facts.get("tf1_only_name", dialect.tf1_only_name)
                if tf1_name:
                    short = tf1_name.replace("tensorflow.", "tf.", 1)
                    reason = f"{path.relative_to(root)} uses {short}"
        code = data.decode("utf-8")
        decided = DECISION.search(code)
        if not reason and decided:  # by an earlier run, whose rewrites hid the reason
            reason = decided.group(1)
    reason = reason or _pinned_tf1(root)
    return Program(
        root, bool(reason), reason, switched, tuple(entry_points), _own_resolved_modules(root)
    )


def _own_resolved_modules(root: Path) -> frozenset[str]:
    """The top-level modules and packages in ``root`` whose names the migration
    would otherwise resolve (``runtime``, ``npu_bridge``, ``tensorflow``...)."""
    names = set()
    for entry in root.iterdir() if root.is_dir() else ():
        if entry.suffix == ".py" and entry.is_file():
            names.add(entry.stem)
        elif entry.is_dir() and any(entry.glob("*.py")):
            names.add(entry.name)  # a package, or a namespace package's portion
    return frozenset(
        name
        for name in names
        if name in (symbols.PACKAGE, symbols.FORMER_PACKAGE) or symbols.may_act_under(name)
    )


def switches_on(code: str) -> bool:
    """Whether ``code`` calls ``disable_v2_behavior()`` (its own call or migrate's)."""
    return bool(_SWITCH.search(code))


def is_entry_point(tree: ast.Module) -> bool:
    """Whether a module runs as a program: ``if __name__ == "__main__":``, or a
    script's work at its top level (``main()``, ``tf.app.run()``,
    ``estimator.train(...)``)."""
    return any(_is_main_guard(node) or _runs_work(node) for node in tree.body)


def _is_main_guard(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)):
        return False
    names = [node.test.left, *node.test.comparators]
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in names) and any(
        isinstance(n, ast.Constant) and n.value == "__main__" for n in names
    )


def _runs_work(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    function = node.value.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name in _SCRIPT_CALLS


def _python_files(root: Path):
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).parts
        if any(part.startswith(".") or part in _SKIPPED_DIRECTORIES for part in relative):
            continue
        yield path


def _pinned_tf1(root: Path) -> str:
    """``"requirements.txt pins tensorflow==1.15"`` when a requirement file of the
    program, or of a directory above it up to the repository's root, pins TF 1."""
    for directory in (root, *root.parents)[:_LEVELS_WITHOUT_REPOSITORY]:
        for pattern in _REQUIREMENT_FILES:
            for path in sorted(directory.glob(pattern)):
                try:
                    text = path.read_text(errors="replace")
                except OSError:
                    continue
                pin = _TF1_PIN.search(text)
                if pin:
                    return f"{path.name} pins {' '.join(pin.group(0).split())}"
        if any((directory / marker).exists() for marker in _REPOSITORY_MARKERS):
            break
    return ""
