"""What an Estimator keeps between its calls: the programs traced for a call like
the last one in its mode, so that such a call runs without tracing again.

A legacy Estimator built a new graph for every ``train``/``evaluate``/``predict``
call, calling input_fn and model_fn once, and that graph came out the same
whenever model_fn, params, config, the mode and the input's
:class:`~runtime.tf1.discovery.InputSignature` were the same: the same
variables, initial values and op seeds. The runtime discovers model_fn's graph
in every call as the Estimator built it (so model_fn is called once per call, and
its side effects and draws from Python's and numpy's generators happen as they
did), and while the signature is equal to the last call's in the mode, runs the
programs traced for that call. Variable values are not kept: every call still
restores the checkpoint on disk (or initializes) as the Estimator's new session did.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from typing import TypeVar

from estimator_revival.tf1.discovery import Blueprint, InputSignature, LegacyInputGraph

Programs = TypeVar("Programs")


@dataclasses.dataclass
class _ModeEntry:
    signature: InputSignature
    blueprint: Blueprint  # the last call's
    programs: dict = dataclasses.field(default_factory=dict)


class CallCache:
    def __init__(self) -> None:
        self._entries: dict[str, _ModeEntry] = {}

    def blueprint(
        self, input_graph: LegacyInputGraph, discover: Callable[[], Blueprint]
    ) -> Blueprint:
        """``discover()``; the mode's programs stay while the input's signature is
        the last call's."""
        mode, signature = input_graph.mode, input_graph.signature()
        blueprint = discover()
        entry = self._entries.get(mode)
        if signature is None:
            self._entries.pop(mode, None)
        elif entry is not None and entry.signature == signature:
            entry.blueprint = blueprint
        else:
            self._entries[mode] = _ModeEntry(signature, blueprint)
        return blueprint

    def programs(
        self, blueprint: Blueprint, key: Hashable, build: Callable[[], Programs]
    ) -> Programs:
        """The programs built for ``blueprint``'s signature and ``key`` (what else
        they were traced with), built by ``build()`` on first use."""
        entry = self._entries.get(blueprint.mode)
        if entry is None or entry.blueprint is not blueprint:
            return build()
        if key not in entry.programs:
            entry.programs[key] = build()
        return entry.programs[key]
