"""Reproduces the op-level random seeds a legacy Estimator graph used.

In graph mode TensorFlow derives an op's seed from a per-graph counter of
``get_seed`` calls. The runtime builds model_fn once in a throwaway graph that
mirrors the legacy one (recording the seed sequence) and replays that sequence
while tracing the real step, so dropout masks, shuffles and random initializers
draw exactly the numbers the Estimator drew.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tensorflow.python.framework import random_seed

from estimator_revival.distribute.replication import replica_index

Seeds = tuple


@contextlib.contextmanager
def recording(
    into: list, *, skip_while: callable = lambda: False, tag: callable | None = None
) -> Iterator[None]:
    """Appends every seed pair handed out while active to ``into`` (as
    ``(tag(), seeds)`` when ``tag`` is given).

    Calls made while ``skip_while()`` is true (variable initializers, which the
    traced step never re-runs) are not recorded.
    """
    original = random_seed.get_seed

    def get_seed(op_seed):
        seeds = original(op_seed)
        if not skip_while():
            into.append(seeds if tag is None else (tag(), seeds))
        return seeds

    random_seed.get_seed = get_seed
    try:
        yield
    finally:
        random_seed.get_seed = original


@contextlib.contextmanager
def replaying(
    seeds: tuple[Seeds, ...], *, what: str, per_replica: tuple[tuple[Seeds, ...], ...] = ()
) -> Iterator[None]:
    """Hands out ``seeds`` in order instead of deriving new ones, to every
    replica's model_fn call from the start (each shard of a TPU computation
    drew the same op seeds), or ``per_replica[i]`` to replica i (each replica
    of a legacy MirroredStrategy graph drew its own)."""
    original = random_seed.get_seed
    remaining: dict[int, Iterator[Seeds]] = {}

    def get_seed(op_seed):
        replica = replica_index()
        try:
            if replica not in remaining:
                remaining[replica] = iter(per_replica[replica] if per_replica else seeds)
            return next(remaining[replica])
        except StopIteration:
            raise RuntimeError(
                f"{what} asked for more random seeds while tracing than it did while "
                "building the legacy graph; model_fn must build the same random ops "
                "every time it is called."
            ) from None

    random_seed.get_seed = get_seed
    try:
        yield
    finally:
        random_seed.get_seed = original
