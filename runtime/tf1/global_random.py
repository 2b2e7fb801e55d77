"""model_fn's draws from Python's and numpy's global random generators.

tf_keras seeds initializers that have no seed from ``random.randint`` (and some
ops from ``np.random.randint``), so a legacy Estimator, which called model_fn
in every ``train``/``evaluate``/``predict`` call, moved these generators on in
every call. A call that reuses an earlier call's blueprint does not call
model_fn; it replays the draws model_fn made instead, so that what the program
draws next (another Estimator's initial values) is what it drew under TF 1.
"""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import Iterator

import numpy as np

# Functions of the generators' modules that do not draw.
_NOT_DRAWS = frozenset(
    {"seed", "getstate", "setstate", "get_state", "set_state", "default_rng",
     "get_bit_generator", "set_bit_generator"}
)  # fmt: skip
_GENERATORS = (random, np.random)

Draw = tuple  # (module, function name, args, kwargs)


def _drawing_functions(module) -> list[str]:
    return [
        name
        for name in module.__all__
        if name not in _NOT_DRAWS and callable(getattr(module, name))
        if not isinstance(getattr(module, name), type)
    ]


@contextlib.contextmanager
def recording(into: list[Draw]) -> Iterator[None]:
    """Appends every call of a drawing function of ``random`` or ``np.random``
    made while active (arguments copied as they were) to ``into``."""
    originals = [
        (module, name, getattr(module, name))
        for module in _GENERATORS
        for name in _drawing_functions(module)
    ]
    for module, name, original in originals:
        setattr(module, name, _recorder(module, name, original, into))
    try:
        yield
    finally:
        for module, name, original in originals:
            setattr(module, name, original)


def _recorder(module, name, original, into):
    def draw(*args, **kwargs):
        into.append((module, name, copy.deepcopy(args), copy.deepcopy(kwargs)))
        return original(*args, **kwargs)

    return draw


@contextlib.contextmanager
def unchanged() -> Iterator[None]:
    """Leaves both generators where they were, whatever is drawn while active."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


def replay(draws: tuple[Draw, ...]) -> None:
    """Makes the recorded calls again (on copies of their arguments)."""
    for module, name, args, kwargs in draws:
        getattr(module, name)(*copy.deepcopy(args), **copy.deepcopy(kwargs))
