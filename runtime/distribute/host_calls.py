"""Host calls on replicas: TPUEstimator's outfeed on ``tf.distribute``.

On a TPU each replica outfed the tensors of its spec's ``eval_metrics`` and
``host_call``; the host concatenated them across replicas on axis 0 and ran the
fns once per step, on the CPU. Here each replica's model_fn call puts its host
calls in the :class:`HostCallOutfeed`, the replicated step returns their tensors
from ``strategy.run``, and the host part of the step runs the fns on the
concatenation. A spec's ``scaffold_fn`` is called there too, once.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.distribute.replication import Replication, on_host, replica_index


def call_host_fn(host_call):
    """Calls a ``(fn, tensors)`` pair: ``fn(*tensors)`` or ``fn(**tensors)``."""
    fn, tensors = host_call
    if isinstance(tensors, (tuple, list)):
        return fn(*tensors)
    return fn(**tensors)


class HostCallOutfeed:
    """Carries host calls from the replicas to the host within one traced step."""

    def __init__(self, replication: Replication) -> None:
        self._replication = replication
        self._calls: dict[int, dict] = {}
        self._scaffold_fn = None

    def enqueue(self, *, scaffold_fn=None, **host_calls) -> None:
        """Records the running replica's ``(fn, tensors)`` pairs (None ones
        dropped) and replica 0's scaffold_fn."""
        self._calls[replica_index()] = {
            name: call for name, call in host_calls.items() if call is not None
        }
        if replica_index() == 0:
            self._scaffold_fn = scaffold_fn

    def replica_tensors(self) -> dict:
        """The running replica's host-call tensors, by host-call name."""
        return {name: tensors for name, (_, tensors) in self._calls[replica_index()].items()}

    def run_on_host(self, per_replica_tensors: dict) -> dict:
        """Calls each fn once on its tensors concatenated across replicas (on the
        host CPU, outside the strategy); returns ``{name: fn result}``."""
        fns = {name: fn for name, (fn, _) in self._calls[0].items()}
        results = {}
        with on_host():
            if self._scaffold_fn is not None:
                self._scaffold_fn()
            for name, fn in fns.items():
                tensors = tf.nest.map_structure(
                    self._replication.concatenate, per_replica_tensors[name]
                )
                results[name] = call_host_fn((fn, tensors))
        return results
