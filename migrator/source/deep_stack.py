"""Running a function on a thread with a deep stack.

libcst's parser (native code) and its visitors recurse once per level of nesting:
a 1000-link ``a.b.c...`` chain, a 500-term ``a + a + ...`` sum or deeply nested
brackets exhaust the main thread's 8 MB stack (a segfault) or Python's default
recursion limit (RecursionError). On a thread with a 512 MB stack (reserved, only
touched pages are used) and a recursion limit to match, they migrate.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 200_000

T = TypeVar("T")


def call_with_deep_stack(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` on a fresh thread with a deep stack; its
    exception, if any, is raised here."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # re-raised in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name="migrate-deep-stack")
    previous_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        previous_size = threading.stack_size(STACK_BYTES)  # applies to threads started now
        try:
            thread.start()
        finally:
            threading.stack_size(previous_size)
        thread.join()
    finally:
        sys.setrecursionlimit(previous_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
