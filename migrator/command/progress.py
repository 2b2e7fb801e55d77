"""Progress of a long run on stderr: files done out of the total and the time left.

On a terminal, one line redrawn in place; elsewhere (CI logs), a line every
``LOG_EVERY`` seconds. Nothing for runs that end within ``QUIET_FOR`` seconds. The
time left is only estimated once a few files are done, from the rate since the
first one finished (worker start-up is not counted as migration time).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

QUIET_FOR = 2.0
LOG_EVERY = 10.0
REDRAW_EVERY = 0.2


class Progress:
    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        interactive: bool | None = None,
    ) -> None:
        self.total = total
        self.done = 0
        self._stream = stream or sys.stderr
        self._clock = clock
        self._interactive = self._stream.isatty() if interactive is None else interactive
        self._started = clock()
        self._first_done: tuple[float, int] | None = None  # (when, how many)
        self._shown_at: float | None = None
        self._drawn = False

    def advance(self, count: int = 1) -> None:
        now = self._clock()
        self.done += count
        if self._first_done is None:
            self._first_done = (now, self.done)
        if now - self._started < QUIET_FOR or self.done >= self.total:
            return
        every = REDRAW_EVERY if self._interactive else LOG_EVERY
        if self._shown_at is None or now - self._shown_at >= every:
            self._show(now)

    def close(self) -> None:
        if self._drawn and self._interactive:
            self._stream.write("\n")
            self._stream.flush()

    def line(self, now: float) -> str:
        percent = 100 * self.done // max(1, self.total)
        elapsed = _clock(now - self._started)
        text = f"migrate: {self.done}/{self.total} files ({percent}%), {elapsed} elapsed"
        left = self.seconds_left(now)
        return text + (f", about {_clock(left)} left" if left is not None else "")

    def seconds_left(self, now: float) -> float | None:
        if self._first_done is None:
            return None
        since, count = self._first_done
        finished = self.done - count
        if finished < max(2, self.total // 50) or now <= since:
            return None
        return (now - since) / finished * (self.total - self.done)

    def _show(self, now: float) -> None:
        self._shown_at = now
        if self._interactive:
            self._stream.write("\r" + self.line(now).ljust(79))
        else:
            self._stream.write(self.line(now) + "\n")
        self._stream.flush()
        self._drawn = True


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
