"""A step- or time-based schedule, as Estimator's hook timers kept it."""

from __future__ import annotations

import dataclasses
import math
import time


def whole_steps(every: float | None) -> int | None:
    """A RunConfig step setting as the Estimator's hooks used it. RunConfig takes
    floats (``log_step_count_steps=1e9`` turns logging off in real programs), and
    the hooks' timer fires once ``step >= last + every``: on integer steps, every
    ``ceil(every)`` steps."""
    return None if every is None else math.ceil(every)


@dataclasses.dataclass
class Cadence:
    """Every ``steps`` global steps (or ``secs`` seconds), Estimator-style."""

    steps: int | None = None
    secs: float | None = None
    last_step: int | None = None
    last_time: float = dataclasses.field(default_factory=time.time)

    def due(self, step: int) -> bool:
        if self.last_step is None:
            return True
        if self.steps:
            return step >= self.last_step + self.steps
        if self.secs:
            return time.time() >= self.last_time + self.secs
        return False

    def mark(self, step: int, at: float | None = None) -> None:
        """``step`` was reached (at ``at``, by default now)."""
        self.last_step, self.last_time = step, time.time() if at is None else at

    def steps_until_due(self, step: int) -> int | None:
        if self.steps and self.last_step is not None:
            return max(self.last_step + self.steps - step, 1)
        return None
