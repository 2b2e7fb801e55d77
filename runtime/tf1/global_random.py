"""model_fn's draws from Python's and numpy's global random generators.

tf_keras seeds initializers that have no seed from ``random.randint`` (and some
ops from ``np.random.randint``), so a legacy Estimator, which called model_fn
once in every ``train``/``evaluate``/``predict`` call, moved these generators on
once per call: what the program draws next (another Estimator's initial values)
depends on it. The runtime's model_fn calls move them on as the Estimator's did:
discovery's (on MirroredStrategy, the replicas' calls in the legacy distributed
graph instead, one-device discovery leaving them alone), while a traced step's
call leaves them where they were.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import numpy as np


@contextlib.contextmanager
def unchanged() -> Iterator[None]:
    """Leaves both generators where they were, whatever is drawn while active."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
