"""Migrating many files: in this process for a few, in worker processes for many.

A file whose migration kills its worker (a crash in native code, the kernel's
out-of-memory killer) costs only that file: when the pool breaks, every file it had
not finished is migrated again alone, in a fresh process, and the one that kills its
process again is reported (MIG000) and left unchanged. A file whose migration raised
in a worker (e.g. a MemoryError, which a worker's state can cause) is also tried
once more alone before its error is reported.

Workers are forked, so they inherit every object of the process that runs
``migrate``. Those objects are frozen out of the workers' garbage collection: when
``migrate`` runs inside a process that uses TensorFlow (a notebook, a test suite), a
collected TensorFlow function's finalizer calls into a runtime whose threads did not
survive the fork, and the worker crashes.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, wait
from pathlib import Path

from estimator_revival.migrator.command.files import FileResult, migrate_file
from estimator_revival.migrator.command.progress import Progress

# Below this many files, worker processes cost more than they save.
PARALLEL_THRESHOLD = 32

Candidate = tuple[Path, bytes]


def migrate_all(
    candidates: Sequence[Candidate],
    enabled: frozenset[str],
    *,
    jobs: int,
    progress: Progress,
    verify: bool = False,
) -> list[FileResult]:
    """One result per candidate, in order (with ``verify``: and the names it reaches)."""
    if jobs == 1 or len(candidates) < PARALLEL_THRESHOLD:
        results = []
        for path, data in candidates:
            results.append(migrate_file(path, enabled, data, verify=verify))
            progress.advance()
        return results
    with _inherited_objects_frozen():
        return _migrate_in_workers(candidates, enabled, jobs, progress, verify)


def _migrate_in_workers(candidates, enabled, jobs: int, progress: Progress, verify: bool):
    results: list[FileResult | None] = [None] * len(candidates)
    lost: list[int] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        batches = {
            pool.submit(_migrate_batch, [candidates[i] for i in batch], enabled, verify): batch
            for batch in _batches([len(data) for _, data in candidates], jobs)
        }
        for future in as_completed(batches):
            batch = batches[future]
            try:
                done = future.result()
            except BrokenProcessPool:
                lost.extend(batch)
                continue
            for index, result in zip(batch, done, strict=True):
                if result.internal_error:
                    lost.append(index)  # perhaps the worker's state: once more, alone
                    continue
                result.original = candidates[index][1]  # not sent back from the worker
                results[index] = result
                progress.advance()
    for index, result in _each_alone(sorted(lost), candidates, enabled, verify, jobs):
        results[index] = result
        progress.advance()
    return results


@contextlib.contextmanager
def _inherited_objects_frozen():
    """While workers are forked: every object that exists now is left out of garbage
    collection (in the workers, for good; here, until the workers are done)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _batches(sizes: list[int], jobs: int) -> list[list[int]]:
    """Indexes of the files in batches of about equal bytes, the largest files
    first: the pool ends on small batches, so no worker is left alone with a long
    one while the others idle."""
    largest_first = sorted(range(len(sizes)), key=lambda index: -sizes[index])
    budget = max(1, sum(sizes) // (jobs * 8))
    batches: list[list[int]] = [[]]
    filled = 0
    for index in largest_first:
        if filled >= budget:
            batches.append([])
            filled = 0
        batches[-1].append(index)
        filled += sizes[index]
    return batches


def _migrate_batch(batch: list[Candidate], enabled: frozenset[str], verify: bool):
    """migrate_file for each, returning only what the parent does not already have."""
    results = [migrate_file(path, enabled, data, verify=verify) for path, data in batch]
    for result in results:
        result.original = b""
    return results


def _each_alone(indexes: list[int], candidates, enabled, verify: bool, jobs: int):
    """``(index, result)`` for each file, each migrated in a fresh process, ``jobs``
    at a time."""
    pending = list(indexes)
    running: dict[Connection, tuple[int, multiprocessing.Process]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            index = pending.pop(0)
            receiver, sender = multiprocessing.Pipe(duplex=False)
            path, data = candidates[index]
            process = multiprocessing.Process(
                target=_child, args=(sender, path, enabled, data, verify)
            )
            process.start()
            sender.close()
            running[receiver] = (index, process)
        for receiver in wait(list(running)):
            index, process = running.pop(receiver)
            yield index, _outcome(receiver, process, *candidates[index])


def _child(sender: Connection, path: Path, enabled, data: bytes, verify: bool) -> None:
    result = migrate_file(path, enabled, data, verify=verify)
    result.original = b""
    sender.send(result)
    sender.close()


def _outcome(receiver: Connection, process, path: Path, data: bytes) -> FileResult:
    try:
        result = receiver.recv()
    except EOFError:  # the process died before it could answer
        process.join()
        return FileResult(path, original=data).fail(
            "MIG000",
            f"internal error: the migrator's process {_death(process.exitcode)} while "
            "migrating this file; file left unchanged",
        )
    finally:
        receiver.close()
    process.join()
    result.original = data
    return result


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            pass
    return f"exited with status {exitcode}"
