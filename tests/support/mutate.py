"""Seeded mutations of files, for the hostile-input fuzz tests.

Three levels: :func:`mutate_bytes` damages a file's bytes (flips, specials, cuts, lines
duplicated or swapped), :func:`mutate_tokens` replaces words of a text file by hostile
numbers, :func:`mutate_json` edits a JSON document's structure (numbers
made huge, NaN, negative or fractional; strings and hex floats garbled; lists shortened,
lengthened or reordered; keys removed, duplicated or added; indices pointed out of range
or back at an earlier node, which makes a cycle of child links; values nested deep).
Every choice comes from the ``numpy.random.Generator`` passed in, so a case is
reproduced by the seed of its generator alone.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

SPECIALS = [
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\n",
    b"\r",
    b",",
    b'"',
    b"'",
    b"{",
    b"}",
    b"[",
    b"]",
    b"?",
    b"%",
    b"@",
    b".",
    b":",
    b"|",
    b"-",
    b"e999",
    b"NaN",
    b"inf",
    b"1" * 5000,
    b"\t",
    b" ",
    b"\\",
]
# More for JSON and binary files: a byte-order mark, JSON's non-finite constants,
# escapes of a NUL and of a lone surrogate.
MORE_SPECIALS = [*SPECIALS, b"\xef\xbb\xbf", b"Infinity", b"\\u0000", b"\\ud800", b"1" * 400]


def mutate_bytes(data: bytes, rng: np.random.Generator, specials: list[bytes] = SPECIALS) -> bytes:
    """One to three byte-level edits of ``data``: a byte flipped, a special token
    inserted, a run deleted, the rest cut off, a line duplicated or two swapped."""
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        op = int(rng.integers(0, 6))
        at = int(rng.integers(0, len(b) + 1))
        if op == 0 and b:  # flip a byte
            b[min(at, len(b) - 1)] = int(rng.integers(0, 256))
        elif op == 1:  # insert a special token
            b[at:at] = specials[int(rng.integers(len(specials)))]
        elif op == 2:  # delete a run
            del b[at : at + int(rng.integers(1, 20))]
        elif op == 3:  # truncate
            del b[at:]
        elif op == 4:  # duplicate a line
            lines = bytes(b).split(b"\n")
            k = int(rng.integers(len(lines)))
            lines.insert(k, lines[k])
            b = bytearray(b"\n".join(lines))
        else:  # swap two lines
            lines = bytes(b).split(b"\n")
            i, j = (int(v) for v in rng.integers(len(lines), size=2))
            lines[i], lines[j] = lines[j], lines[i]
            b = bytearray(b"\n".join(lines))
    return bytes(b)


# ---- tokens of a text file -----------------------------------------------------------

TOKENS = ["-1", "0", "1", "-0", "nan", "inf", "-inf", "1e999", "1e-999", "4294967296",
          "99999999999999999999", "1.5", "0x10", "", "x", "?", "-2147483649", "3e38"]  # fmt: skip
_TOKEN = re.compile(rb"[^\s,=:;{}\[\]]+")


def mutate_tokens(data: bytes, rng: np.random.Generator) -> bytes:
    """One to three words or numbers of a text file (LightGBM's ``key=v1 v2``, CSV
    cells) replaced by hostile ones: values and counts huge, negative, fractional,
    non-finite or missing."""
    for _ in range(int(rng.integers(1, 4))):
        words = list(_TOKEN.finditer(data))
        if not words:
            break
        m = words[int(rng.integers(len(words)))]
        new = TOKENS[int(rng.integers(len(TOKENS)))].encode()
        data = data[: m.start()] + new + data[m.end() :]
    return data


# ---- JSON structure -------------------------------------------------------------------


class Obj(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs, so a key can appear twice."""


class Deep:
    """A value nested ``depth`` levels deep in lists or objects (written as text: too
    deep for a recursive walk)."""

    def __init__(self, depth: int, objects: bool) -> None:
        self.depth = depth
        self.objects = objects


def parse(text: str) -> Any:
    return json.loads(text, object_pairs_hook=Obj)


def dump(value: Any, depth: int = 0) -> str:
    """JSON text of ``value`` (NaN and infinities as Python's json writes them); the top
    object's keys and its lists' items one per line, as treegen's files are laid out."""
    nl = "\n" if depth < 2 else ""
    if isinstance(value, Deep):
        left, right = ('{"a": ', "}") if value.objects else ("[", "]")
        return left * value.depth + "0" + right * value.depth
    if isinstance(value, Obj):
        items = [f"{json.dumps(k)}: {dump(v, depth + 1)}" for k, v in value]
        return "{" + nl + ("," + nl).join(items) + nl + "}"
    if isinstance(value, list):
        return "[" + nl + ("," + nl).join(dump(v, depth + 1) for v in value) + nl + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return json.dumps(value)


HOSTILE: list[Any] = [
    10**30,
    -(10**30),
    10**400,  # valid JSON, but past a double's range: a float() of it raises OverflowError
    2**31,
    2**63,
    -1,
    0,
    1,
    1.5,
    -0.5,
    -0.0,
    1e308,
    -1e308,
    5e-324,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x",
    "0x1p+1024",
    "0x1.fffffffffffffp+1023",
    "-0x0p+0",
    "nan",
    "inf",
    "0x1p-1074",
    "\u0000",
    # names that must not break the C they are written into (comments, strings)
    "a*/ int x; /*",
    "??/",
    "a\\",
    "a\nb",
    "\u2028",
    "%s%n",
    None,
    True,
    False,
    [],
    Obj(),
]


def _slots(value: Any, out: list[tuple[Any, Any]]) -> None:
    """Every (container, key or index) in ``value``, depth first."""
    if isinstance(value, Obj):
        for i, (_, v) in enumerate(value):
            out.append((value, i))
            _slots(v, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((value, i))
            _slots(v, out)


def _get(container: Any, key: int) -> Any:
    return container[key][1] if isinstance(container, Obj) else container[key]


def _set(container: Any, key: int, value: Any) -> None:
    if isinstance(container, Obj):
        container[key] = (container[key][0], value)
    else:
        container[key] = value


def _ints(value: Any, out: list[int]) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        out.append(value)
    elif isinstance(value, Obj):
        for _, v in value:
            _ints(v, out)
    elif isinstance(value, list):
        for v in value:
            _ints(v, out)


def _near(value: Any, doc: Any, rng: np.random.Generator) -> Any:
    """A plausible wrong value like ``value``: an int moved to another index (one seen
    elsewhere in the file, so child links can point back up), a float's sign or
    magnitude changed, one character of a string changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        seen: list[int] = []
        _ints(doc, seen)
        picks = [value - 1, value + 1, -value, value * 2 + 1, -2, 255, 65536]
        if seen:
            picks.append(int(rng.choice(seen)))
        return picks[int(rng.integers(len(picks)))]
    if isinstance(value, float):
        # (An earlier mutation may have left inf or NaN, which have no int.)
        whole = float(int(value)) if math.isfinite(value) else 0.0
        picks_f = [-value, value * 1e300, value / 3, whole, math.nextafter(value, 0)]
        return picks_f[int(rng.integers(len(picks_f)))]
    if isinstance(value, str) and value:
        i = int(rng.integers(len(value)))
        alphabet = '0123456789abcdefpx+-.?, "\\\u00e9'
        return value[:i] + alphabet[int(rng.integers(len(alphabet)))] + value[i + 1 :]
    return HOSTILE[int(rng.integers(len(HOSTILE)))]


def _deep(rng: np.random.Generator) -> Deep:
    return Deep(int(rng.choice([20, 63, 64, 65, 200, 100000])), bool(rng.random() < 0.5))


def mutate_json(text: str, rng: np.random.Generator) -> str:
    """One structural edit of the JSON document ``text``, or two or three."""
    doc = parse(text)
    # One edit most often: a file with one thing wrong gets past more of the checks.
    for _ in range(1 if rng.random() < 0.6 else int(rng.integers(2, 4))):
        slots: list[tuple[Any, Any]] = []
        _slots(doc, slots)
        if not slots:
            break
        container, key = slots[int(rng.integers(len(slots)))]
        value = _get(container, key)
        op = int(rng.integers(0, 10))
        if op <= 2:  # a value like it, but wrong
            _set(container, key, _near(value, doc, rng))
        elif op == 3:  # a hostile value
            _set(container, key, HOSTILE[int(rng.integers(len(HOSTILE)))])
        elif op == 4:  # delete this item or key
            del container[key]
        elif op == 5:  # duplicate it (an object gets the key twice)
            container.insert(key + int(rng.integers(0, 2)), container[key])
        elif op == 6 and isinstance(container, Obj):  # an unknown key, or a key renamed
            if rng.random() < 0.5:
                container.insert(key, ("zz_unknown", _near(value, doc, rng)))
            else:
                container[key] = (container[key][0] + "_", value)
        elif op == 7:  # swap with another item of the same container
            other = int(rng.integers(len(container)))
            a, b = _get(container, key), _get(container, other)
            _set(container, key, b)
            _set(container, other, a)
        elif op == 8 and isinstance(value, list) and value:  # shorten or lengthen a list
            if rng.random() < 0.5:
                del value[int(rng.integers(len(value))) :]
            else:
                value.extend(value[: int(rng.integers(1, len(value) + 1))])
        else:  # deep nesting
            _set(container, key, _deep(rng))
    return dump(doc)
