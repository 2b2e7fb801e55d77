"""Where ``migrate`` writes, checked before anything is written: the ``--out`` tree,
the report, the files it rewrites in place. Nothing is overwritten that the user
did not hand to it: not the source tree from ``--out``, not a file edited while
the run was in progress."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from estimator_revival.migrator.command.files import FileResult
from estimator_revival.migrator.source.text import write_atomically


def check_out_directory(out: Path, roots: Sequence[Path], *, force: bool) -> None:
    """``--out`` must not overlap a source root, and must be empty unless ``--force``."""
    target = Path(os.path.realpath(out))
    for root in roots:
        source = Path(os.path.realpath(root))
        if root.is_dir() and target.is_relative_to(source):
            raise click.BadParameter(
                f"{out} is inside the source tree {root}: migrate would migrate its own "
                "output the next time; choose a directory outside it",
                param_hint="--out",
            )
        if source.is_relative_to(target):
            raise click.BadParameter(
                f"{out} contains the source {root}: the copy would overwrite it; choose "
                "another directory",
                param_hint="--out",
            )
    if target.exists() and not target.is_dir():
        raise click.BadParameter(f"{out} exists and is not a directory", param_hint="--out")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise click.BadParameter(
            f"{out} is not empty; pass --force to write into it (files there with the same "
            "names are replaced)",
            param_hint="--out",
        )
    _check_writable(_nearest_existing(target), "--out")


def check_report_path(path: Path, *, out: Path | None) -> None:
    """The report's directory must exist, or be one ``--out`` creates: the report
    is written after the migrated tree."""
    if path.is_dir():
        raise click.BadParameter(f"{path} is a directory", param_hint="--report")
    parent = Path(os.path.realpath(path.parent))
    if out is not None and parent.is_relative_to(os.path.realpath(out)):
        _check_writable(_nearest_existing(parent), "--report")
        return
    if not parent.is_dir():
        raise click.BadParameter(
            f"the directory {path.parent} does not exist; create it first", param_hint="--report"
        )
    _check_writable(parent, "--report")


def _nearest_existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def _check_writable(directory: Path, option: str) -> None:
    reason = _unwritable(directory)
    if reason is not None:
        raise click.BadParameter(f"cannot write into {directory}: {reason}", param_hint=option)


def _unwritable(directory: Path) -> str | None:
    """Why a file cannot be created in ``directory`` (tried for real), or None."""
    try:
        handle, probe = tempfile.mkstemp(dir=directory, prefix=".migrate-probe-")
    except OSError as error:
        return error.strerror or str(error)
    os.close(handle)
    os.unlink(probe)
    return None


def write_in_place(results: Iterable[FileResult]) -> None:
    """Rewrites each changed file, unless its directory cannot be written or the
    file changed on disk since it was read (then it is reported and left alone)."""
    changed = [result for result in results if result.changed]
    unwritable = {
        directory: _unwritable(directory) for directory in {r.path.parent for r in changed}
    }
    ready = []
    for result in changed:
        reason = unwritable[result.path.parent]
        if reason is not None:
            result.fail("MIG002", f"cannot write: {reason}; left unchanged")
        elif _changed_on_disk(result):
            result.fail("MIG002", "changed on disk while migrate ran; not overwritten")
        else:
            ready.append(result)
    for result in ready:
        _write(result, result.path)


def _changed_on_disk(result: FileResult) -> bool:
    try:
        return result.path.read_bytes() != result.original
    except OSError:
        return True


def write_copy(roots: Sequence[Path], results: Iterable[FileResult], out: Path) -> list[Path]:
    """Mirrors each root under ``out`` (every file, modes kept, symbolic links as links)
    at its path relative to the roots' common parent, migrated files replaced.
    Returns the paths that could not be copied."""
    targets = copy_targets(roots, out)
    failed: list[Path] = []
    for root, target in targets.items():
        try:
            if root.is_dir():
                shutil.copytree(root, target, symlinks=True, dirs_exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root, target, follow_symlinks=False)
        except shutil.Error as error:
            failed += [Path(source) for source, _, _ in error.args[0]]
        except OSError as error:
            failed.append(Path(error.filename or root))
    for result in results:
        if result.changed:
            _write(result, _target(result.path, targets))
    return failed


def copy_targets(roots: Sequence[Path], out: Path) -> dict[Path, Path]:
    """Where each root's copy goes: its path relative to the common parent of the
    roots (``r1/pkg r2/pkg`` -> ``out/r1/pkg``, ``out/r2/pkg``; one root ``pkg``
    -> ``out/pkg``)."""
    absolute = [Path(os.path.abspath(root)) for root in roots]
    base = Path(os.path.commonpath([path.parent for path in absolute]))
    return {root: out / path.relative_to(base) for root, path in zip(roots, absolute, strict=True)}


def _target(path: Path, targets: dict[Path, Path]) -> Path:
    absolute = Path(os.path.abspath(path))
    for root, target in sorted(targets.items(), key=lambda item: -len(str(item[0]))):
        root_absolute = Path(os.path.abspath(root))
        if absolute == root_absolute:
            return target
        if absolute.is_relative_to(root_absolute):
            return target / absolute.relative_to(root_absolute)
    raise ValueError(f"{path} is under none of the roots")  # discovery only finds files there


def _write(result: FileResult, target: Path) -> None:
    try:
        write_atomically(target, result.migrated)
    except OSError as error:
        result.fail("MIG002", f"cannot write {target}: {error.strerror or error}; left unchanged")
