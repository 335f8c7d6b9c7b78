"""One updating progress line on stderr for work that takes more than about a second.

Shown only when stderr is a terminal and ``--quiet`` was not given: a pipe or
a log file gets nothing (so scripts and tests that read stderr see exactly
what they saw before).  The line names the phase (reading, growing, pruning,
writing, ...), the rows and the nodes so far and the elapsed time, is redrawn
in place (carriage return, erase to end of line) at most a few times a
second (a new phase at once), and is erased when the command ends, so the summary line that follows
stands alone.  A background thread draws it, so a long phase that reports
nothing (one C call reading a file) still shows; it waits for the GIL like any
thread, so a long C call may hold the line still for a while.

``TREEGEN_PROGRESS_DELAY`` (seconds, default 1) is how long a command runs
before the line appears; the tests set it to 0.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from treegen.data.words import counted

_INTERVAL = 0.2  # seconds between redraws


class ProgressLine:
    """The state shown (phase, rows, nodes) and the thread that draws it."""

    def __init__(self, stream: TextIO, delay: float) -> None:
        self._stream = stream
        self._start = time.monotonic()
        self._delay = delay
        self._lock = threading.Lock()
        self._phase = ""
        self._rows: int | None = None
        self._nodes: int | None = None
        self._count: str | None = None
        self._shown = False
        self._drawn = -math.inf
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="treegen-progress", daemon=True)
        self._thread.start()

    def update(
        self,
        phase: str,
        *,
        rows: int | None = None,
        nodes: int | None = None,
        count: str | None = None,
    ) -> None:
        """Set the phase (and the counts that are known; ``count``: how far the phase
        is, e.g. "1200 of 3163 rules", cleared by a new phase); drawn by the thread."""
        with self._lock:
            new_phase = phase != self._phase
            if new_phase:
                self._count = None
            self._phase = phase
            if rows is not None:
                self._rows = rows
            if nodes is not None:
                self._nodes = nodes
            if count is not None:
                self._count = count
            now = time.monotonic()
            # A new phase shows at once (once the delay is over); counts at most
            # every _INTERVAL, the thread redraws in between.
            if now - self._start >= self._delay and (new_phase or now - self._drawn >= _INTERVAL):
                self._draw(now)

    def nodes(self, phase: str, nodes: int) -> None:
        """The trainer's callback (``train(..., progress=...)``)."""
        self.update(phase, nodes=nodes)

    def steps(self, phase: str, done: int, total: int) -> None:
        """c4.5rules' callback (``generate(..., progress=...)``): ``done`` of ``total``."""
        self.update(phase, count=f"{done} of {total}" if total else None)

    def say(self, message: str) -> None:
        """Print ``message`` as a line of its own on the stream, the progress line (if
        shown) erased first and drawn again below it."""
        with self._lock:
            if self._shown:
                self._stream.write("\r\x1b[K")
            self._stream.write(message + "\n")
            if self._shown:
                self._draw(time.monotonic())
            self._stream.flush()

    def _text(self) -> str:
        parts = [f"treegen: {self._phase}"]
        if self._count is not None:
            parts.append(self._count)
        if self._rows is not None:
            parts.append(counted(self._rows, "row"))
        if self._nodes is not None:
            parts.append(counted(self._nodes, "node"))
        parts.append(f"{time.monotonic() - self._start:.1f} s")
        return ", ".join(parts)

    def _draw(self, now: float) -> None:
        """Redraw the line (the caller holds the lock)."""
        if self._phase:
            self._stream.write("\r\x1b[K" + self._text())
            self._stream.flush()
            self._shown = True
            self._drawn = now

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while True:
            with self._lock:
                now = time.monotonic()
                if now - self._drawn >= _INTERVAL:
                    self._draw(now)
            if self._stop.wait(_INTERVAL):
                return

    def close(self) -> None:
        """Stop drawing and erase the line."""
        self._stop.set()
        self._thread.join()
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()


class _Silent:
    """The progress line when it is not shown: every update is ignored."""

    def update(
        self,
        phase: str,
        *,
        rows: int | None = None,
        nodes: int | None = None,
        count: str | None = None,
    ) -> None:
        pass

    def nodes(self, phase: str, nodes: int) -> None:
        pass

    def steps(self, phase: str, done: int, total: int) -> None:
        pass

    def say(self, message: str) -> None:
        """No line to keep clear: ``message`` goes to stderr as it is."""
        print(message, file=sys.stderr)


Progress = ProgressLine | _Silent


def _delay() -> float:
    try:
        return max(0.0, float(os.environ.get("TREEGEN_PROGRESS_DELAY", "1")))
    except ValueError:
        return 1.0


@contextmanager
def progress_line(args: argparse.Namespace) -> Iterator[Progress]:
    """A progress line for one command: drawn if stderr is a terminal and not ``--quiet``."""
    if getattr(args, "quiet", False) or not sys.stderr.isatty():
        yield _Silent()
        return
    line = ProgressLine(sys.stderr, _delay())
    try:
        yield line
    finally:
        line.close()
