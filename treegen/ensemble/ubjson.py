"""UBJSON, as XGBoost writes its binary model files (``Booster.save_model("m.ubj")``).

The subset XGBoost's writer and reader use: objects whose keys are ``L``-sized
strings, arrays (plain, ``#``-counted, and typed ``$T#L`` arrays of numbers), the
numbers ``i U I l L`` (integers), ``d`` (float32) and ``D`` (float64), ``C``, ``S``,
``T``, ``F`` and ``Z``, all big-endian.  Typed arrays of floats come back as numpy
arrays (float32 or float64), so a float32 keeps its exact value.  A file cut short or
with an unknown marker is a :class:`~treegen.errors.ModelFileError` naming the byte.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treegen.errors import ModelFileError

_INTS = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8"}
_FLOATS = {b"d": ">f4", b"D": ">f8"}
_MAX_DEPTH = 64


class _Reader:
    def __init__(self, data: bytes, filename: str) -> None:
        self.data = data
        self.pos = 0
        self.filename = filename

    def fail(self, msg: str, at: int | None = None) -> ModelFileError:
        where = self.pos if at is None else at
        return ModelFileError(f"byte {where}: {msg}", file=self.filename)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail("truncated file (UBJSON ends inside a value)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def marker(self) -> bytes:
        return self.take(1)

    def peek(self) -> bytes:
        if self.pos >= len(self.data):
            raise self.fail("truncated file (UBJSON ends inside a container)")
        return self.data[self.pos : self.pos + 1]

    def integer(self, m: bytes) -> int:
        if m not in _INTS:
            raise self.fail(f"expected an integer, found marker {m!r}", self.pos - 1)
        dt = np.dtype(_INTS[m])
        return int(np.frombuffer(self.take(dt.itemsize), dtype=dt)[0])

    def length(self) -> int:
        n = self.integer(self.marker())
        if n < 0:
            raise self.fail(f"negative length {n}")
        return n

    def string(self) -> str:
        raw = self.take(self.length())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string that is not UTF-8") from None

    def value(self, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise self.fail(f"containers nested deeper than {_MAX_DEPTH}")
        start = self.pos
        m = self.marker()
        if m in _INTS:
            return self.integer(m)
        if m in _FLOATS:
            dt = np.dtype(_FLOATS[m])
            return float(np.frombuffer(self.take(dt.itemsize), dtype=dt)[0])
        if m == b"C":
            return self.take(1)[0]
        if m == b"S":
            return self.string()
        if m in (b"T", b"F"):
            return m == b"T"
        if m == b"Z":
            return None
        if m == b"[":
            return self.array(depth)
        if m == b"{":
            return self.object(depth)
        raise self.fail(f"unknown UBJSON marker {m!r}", start)

    def array(self, depth: int) -> Any:
        if self.peek() == b"$":
            self.take(1)
            t = self.marker()
            if self.marker() != b"#":
                raise self.fail("a typed array without its count")
            n = self.length()
            dtype = _INTS.get(t) or _FLOATS.get(t)
            if dtype is None:
                raise self.fail(f"typed array of {t!r}")
            dt = np.dtype(dtype)
            arr = np.frombuffer(self.take(n * dt.itemsize), dtype=dt)
            return arr.astype(dt.newbyteorder("=")) if t in _FLOATS else arr.tolist()
        if self.peek() == b"#":
            self.take(1)
            return [self.value(depth + 1) for _ in range(self.length())]
        out = []
        while self.peek() != b"]":
            out.append(self.value(depth + 1))
        self.take(1)
        return out

    def object(self, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.peek() != b"}":
            key = self.string()
            out[key] = self.value(depth + 1)
        self.take(1)
        return out


def loads_ubjson(data: bytes, filename: str) -> Any:
    """The value of UBJSON ``data`` (the whole of it: bytes after the value are an error)."""
    r = _Reader(data, filename)
    if not data:
        raise r.fail("empty file")
    out = r.value()
    if r.pos != len(data):
        raise r.fail("bytes after the end of the model")
    return out
