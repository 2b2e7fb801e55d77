"""``estimator_export``: the decorator tensorflow-estimator marked its own symbols
with for TensorFlow's API generator (code copied from its sources keeps it).

The runtime generates no API from it, so the decorated symbol comes back as it
is, and ``export_constant`` records nothing. TF 2.15's decorator also wrapped the
symbol in a deprecation notice ("Use tf.keras instead."), a log line the
runtime's classes do not need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Exported = TypeVar("Exported")


class estimator_export:  # noqa: N801 - tensorflow-estimator's name
    """``@estimator_export("estimator.Name", v1=[...])`` on a class or function, or
    ``estimator_export("estimator.NAME").export_constant(__name__, "NAME")``."""

    def __init__(self, *names: str, v1: Sequence[str] | None = None) -> None:
        """The API names (and TF 1's, ``v1``) TF's generator exported the symbol as."""

    def __call__(self, symbol: Exported) -> Exported:
        return symbol

    def export_constant(self, module_name: str, name: str) -> None:
        """TF's registration of a module's constant under the API names."""
