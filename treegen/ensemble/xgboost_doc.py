"""An XGBoost model file's document: decoded, its numbers read as XGBoost reads them.

:func:`decode` reads JSON (every number kept as its text, :class:`DecimalText`) or
UBJSON (:mod:`treegen.ensemble.ubjson`), and names XGBoost's old binary format and its
dumps as such (not read); :func:`float32_of` and :func:`float32_array`
round a number's text once to float32, as XGBoost does; :class:`Doc` is checked access
to the fields, each error a :class:`~treegen.errors.ModelFileError` naming the field by
its path in the document.  What the fields mean is :mod:`treegen.ensemble.xgboost`'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from treegen.ensemble.ubjson import loads_ubjson
from treegen.errors import ModelFileError
from treegen.model.jsontext import check_surrogates, decode_json, int_reader


class DecimalText(str):
    """A JSON number's text, kept so that it is rounded once, to float32."""


class Doc:
    """Checked access to the decoded document; errors name the field's path."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def fail(self, path: str, msg: str) -> ModelFileError:
        return ModelFileError(f"{path}: {msg}" if path else msg, file=self.filename)

    def obj(self, d: Any, path: str) -> dict[str, Any]:
        if not isinstance(d, dict):
            raise self.fail(path, "must be an object")
        return d

    def get(self, d: dict[str, Any], key: str, path: str) -> Any:
        if key not in d:
            raise self.fail(f"{path}.{key}" if path else key, "is missing")
        return d[key]

    def text(self, d: dict[str, Any], key: str, path: str) -> str:
        v = self.get(d, key, path)
        if not isinstance(v, str):
            raise self.fail(f"{path}.{key}", "must be a string")
        return v

    def int_text(self, d: dict[str, Any], key: str, path: str, lo: int, hi: int) -> int:
        """An integer XGBoost writes as a string (``"num_class": "3"``)."""
        v = self.get(d, key, path)
        try:
            n = int(v) if isinstance(v, str | int) and not isinstance(v, bool) else None
        except ValueError:
            n = None
        if n is None or not lo <= n <= hi:
            raise self.fail(f"{path}.{key}", f"must be an integer {lo} .. {hi}, not {v!r}")
        return n

    def ints(
        self, d: dict[str, Any], key: str, path: str, n: int | None, lo: int, hi: int
    ) -> list[int]:
        """A list of ``n`` integers in ``lo .. hi`` (None: of any length)."""
        v = self.get(d, key, path)
        if isinstance(v, np.ndarray) or not isinstance(v, list) or n not in (None, len(v)):
            count = "" if n is None else f"{n} "
            raise self.fail(f"{path}.{key}", f"must be a list of {count}integers")
        for i, x in enumerate(v):
            if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
                raise self.fail(f"{path}.{key}[{i}]", f"must be an integer {lo} .. {hi}")
        return v

    def flags(self, d: dict[str, Any], key: str, path: str, n: int) -> list[int]:
        """A list of ``n`` flags: 0 or 1, or JSON's false and true (XGBoost before 1.6
        writes ``default_left`` so)."""
        v = self.get(d, key, path)
        if isinstance(v, list) and v and all(isinstance(x, bool) for x in v):
            v = [int(x) for x in v]
        return self.ints({key: v}, key, path, n, 0, 1)

    def floats(self, d: dict[str, Any], key: str, path: str, n: int) -> np.ndarray:
        """A list of float32 numbers: UBJSON's exactly, JSON's decimal text rounded once."""
        v = self.get(d, key, path)
        if isinstance(v, np.ndarray):
            if v.dtype != np.float32 or v.shape != (n,):
                raise self.fail(f"{path}.{key}", f"must be {n} float32 numbers")
            return v
        if not isinstance(v, list) or len(v) != n:
            raise self.fail(f"{path}.{key}", f"must be a list of {n} numbers")
        for i, x in enumerate(v):
            if isinstance(x, bool) or not isinstance(x, DecimalText | int | float):
                raise self.fail(f"{path}.{key}[{i}]", "must be a number")
        return float32_array(v)


def float32_array(v: Sequence[str | int | float]) -> np.ndarray:
    """:func:`float32_of` of every number, the exact path only where it is needed."""
    # Rounding to float32 is the point: overflow to infinity and underflow to a
    # subnormal or zero are results, not errors, even where the process has asked
    # numpy to raise on them (emlearn's import calls numpy.seterr(all="raise")).
    with np.errstate(over="ignore", under="ignore"):
        d = np.array([float(x) for x in v], dtype=np.float64)
        f = d.astype(np.float32)
        g = np.nextafter(f, np.where(d > f, np.float32(np.inf), np.float32(-np.inf)))
        mid = (f.astype(np.float64) + g.astype(np.float64)) / 2
    out: np.ndarray = f
    for i in np.flatnonzero((d == mid) & (d != f)).tolist():
        out[i] = float32_of(v[i])
    return out


def float32_of(x: str | int | float) -> np.float32:
    """The float32 XGBoost reads for a JSON number (its text rounded once to float32)."""
    if isinstance(x, float):
        return np.float32(x)
    exact = Fraction(Decimal(x)) if isinstance(x, str) else Fraction(x)
    d = float(exact)
    with np.errstate(over="ignore", under="ignore"):
        f = np.float32(d)
    if Fraction(d) != exact and np.isfinite(f):
        # Rounding to double first is wrong only where the double is a float32 tie.
        g = np.nextafter(f, np.float32(np.inf if exact > Fraction(float(f)) else -np.inf))
        if np.isfinite(g) and Fraction(float(f)) + Fraction(float(g)) == 2 * Fraction(d):
            return g if abs(Fraction(float(g)) - exact) < abs(Fraction(float(f)) - exact) else f
    return f


def decode(data: bytes, filename: str) -> Any:
    """The document of a JSON or UBJSON model file."""
    head = data.lstrip(b" \t\r\n\xef\xbb\xbf")[:2]
    if head[:1] == b"{" and head[1:2] in (b'"', b"}", b" ", b"\n", b"\t", b"\r", b""):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFileError("not UTF-8 JSON", file=filename) from None
        try:
            doc = json.loads(
                text,
                parse_float=DecimalText,
                parse_constant=DecimalText,
                parse_int=int_reader(text),
            )
            check_surrogates(text, doc, filename, "XGBoost model")
            return doc
        except (ValueError, RecursionError):
            # The error, with line and column; a RecursionError is Python 3.11's decoder
            # giving up on deep nesting, which decode_json reports as that.
            decode_json(text, filename, what="XGBoost model")
            raise
    if head[:1] == b"{":
        return loads_ubjson(data, filename)
    start = data.lstrip(b" \t\r\n\xef\xbb\xbf")
    if start.startswith(b"booster[") or (start[:1] == b"[" and b'"nodeid"' in start[:400]):
        raise ModelFileError(
            "XGBoost's dump (dump_model) is not a model file, it has no objective or base "
            "score: write the model with Booster.save_model('m.json')",
            file=filename,
        )
    if _old_binary(data):
        raise ModelFileError(
            "XGBoost's old binary format (a .model or .bst file from before JSON) is not "
            "read: load it with the XGBoost that wrote it and save_model('m.json')",
            file=filename,
        )
    raise ModelFileError(
        "not an XGBoost model (JSON or UBJSON from Booster.save_model)", file=filename
    )


def _old_binary(data: bytes) -> bool:
    """Whether ``data`` looks like XGBoost's binary model format: optionally ``binf``,
    the 136-byte LearnerModelParam, then the objective's name (a little-endian uint64
    length and its bytes, such as ``binary:logistic``)."""
    body = data[4:] if data.startswith(b"binf") else data
    size = int.from_bytes(body[136:144], "little") if len(body) >= 144 else 0
    name = body[144 : 144 + size]
    return (
        0 < size <= 64 and len(name) == size and re.fullmatch(rb"[a-z]+:[a-z_]+", name) is not None
    )
