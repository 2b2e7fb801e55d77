"""What an Estimator keeps between its calls, so that a call like the last one in
its mode runs without discovering and tracing model_fn again.

A legacy Estimator built a new graph for every ``train``/``evaluate``/``predict``
call, and that graph came out the same whenever model_fn, params, config, the mode
and the input's :class:`~runtime.tf1.discovery.InputSignature` were the same: the same
variables, initial values and op seeds. An Estimator's model_fn, params and config
never change, so the runtime reuses, per mode, the last call's blueprint while the
signature is equal, and its traced programs while what they were traced with is
equal too; model_fn's draws from the global random generators are replayed
(runtime/tf1/global_random.py). Variable values are not kept: every call still
restores the checkpoint on disk (or initializes) as the Estimator's new session did.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from typing import TypeVar

from runtime.tf1 import global_random
from runtime.tf1.discovery import Blueprint, InputSignature, LegacyInputGraph

Programs = TypeVar("Programs")


@dataclasses.dataclass
class _ModeEntry:
    signature: InputSignature
    blueprint: Blueprint
    programs: dict = dataclasses.field(default_factory=dict)


class CallCache:
    def __init__(self) -> None:
        self._entries: dict[str, _ModeEntry] = {}

    def blueprint(
        self, input_graph: LegacyInputGraph, discover: Callable[[], Blueprint]
    ) -> Blueprint:
        """The last blueprint of the mode when the input's signature is unchanged,
        else ``discover()`` (which then replaces it)."""
        mode, signature = input_graph.mode, input_graph.signature()
        entry = self._entries.get(mode)
        if signature is not None and entry is not None and entry.signature == signature:
            global_random.replay(entry.blueprint.global_random_draws)
            return entry.blueprint
        blueprint = discover()
        if signature is None:
            self._entries.pop(mode, None)
        else:
            self._entries[mode] = _ModeEntry(signature, blueprint)
        return blueprint

    def programs(
        self, blueprint: Blueprint, key: Hashable, build: Callable[[], Programs]
    ) -> Programs:
        """The programs built for ``blueprint`` and ``key`` (what else they were
        traced with), built by ``build()`` on first use."""
        entry = self._entries.get(blueprint.mode)
        if entry is None or entry.blueprint is not blueprint:
            return build()
        if key not in entry.programs:
            entry.programs[key] = build()
        return entry.programs[key]
