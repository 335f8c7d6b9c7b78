"""A disk that fills up mid-write, for the atomic-write tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.data import atomic


def fail_write(monkeypatch: pytest.MonkeyPatch, nth: int) -> list[str]:
    """Make the ``nth`` temporary file an atomic write makes fail with ENOSPC (the ones
    before it are written); returns the names written or tried so far, in order."""
    real = atomic._write_tmp
    calls: list[str] = []

    def failing(folder: Path, name: str, data: bytes) -> str:
        calls.append(name)
        if len(calls) == nth:
            raise OSError(28, "No space left on device")
        return real(folder, name, data)

    monkeypatch.setattr(atomic, "_write_tmp", failing)
    return calls
