"""A time limit on code run in the main thread: a hang fails the test that met it,
instead of stopping the whole run."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def time_limit(seconds: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` in the main thread after ``seconds`` (SIGALRM: Python code is
    interrupted between bytecodes, a long C call when it returns)."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise error()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
