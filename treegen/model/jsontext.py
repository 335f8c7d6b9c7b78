"""Reading a treegen JSON file: its text, its JSON value, an error at its line.

Every treegen file is UTF-8 JSON (model, committee, ensemble and ruleset files;
:mod:`treegen.ensemble.xgboost_doc` reads XGBoost's JSON with :func:`decode_json` too).
:func:`read_text` reads the text, :func:`decode_json` decodes it with each error a
one-line :class:`~treegen.errors.ModelFileError` at its line and column (an empty,
truncated or malformed file, a non-finite number or a whole number past a double's
range, JSON nested beyond
:data:`MAX_NESTING` levels, an escape of a lone surrogate), and :func:`field_error`
places the error for a field :mod:`treegen.model.check` found wrong at the field's line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from treegen.data.readers.text import byte_position, read_bytes
from treegen.errors import ModelFileError
from treegen.model.check import InvalidField

# How deep JSON arrays and objects may nest.  treegen writes 4 levels (file, nodes,
# node, subsets); the limit keeps a hostile file from reaching Python's recursion limit
# in the JSON decoder, or later where ``options`` is written back (it is free-form).
MAX_NESTING = 64
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _nesting(value: object) -> int:
    """How deep arrays and objects nest in a decoded JSON value (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _over_nesting(text: str, filename: str, what: str) -> ModelFileError | None:
    """The error for JSON nested beyond MAX_NESTING, at the first bracket that goes over;
    None if ``text`` never goes over (``what``: the kind of file, for the message)."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                return ModelFileError(
                    f"not a {what}: JSON nested more than {MAX_NESTING} levels deep",
                    file=filename,
                    line=line,
                    col=col,
                )
        elif c in "]}":
            depth -= 1
    return None


def _too_deep(text: str, filename: str, what: str) -> ModelFileError:
    """:func:`_over_nesting`'s error; only where the decoder gave up below the limit (a
    deep call stack already), one without a position."""
    err = _over_nesting(text, filename, what)
    return err or ModelFileError(f"not a {what}: JSON nested too deeply", file=filename)


# What json.loads refuses without a position: a non-finite constant, a huge integer.
_BAD_NUMBER = re.compile(r'(?<![\w".])(?:-?Infinity|NaN)(?![\w"])|\d{309,}')
# A run of digits long enough to be a whole number past a double's range (2**1024 has
# 309 digits): only then are the file's whole numbers read by _parse_int.
_LONG_DIGITS = re.compile(r"\d{309}")


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def int_reader(text: str) -> Callable[[str], int] | None:
    """The ``parse_int`` that decoding ``text`` needs: :func:`_parse_int` where a run of
    digits could be a whole number past a double's range, else None (``int``, with no
    Python call a number).  For every reader of JSON model files."""
    return _parse_int if _LONG_DIGITS.search(text) else None


def _parse_int(literal: str) -> int:
    """A whole number that a double can hold: every number of a treegen (or XGBoost) file
    is one, and a larger one would overflow where it is taken as a float (a weight, a
    threshold), past the checks, as a traceback."""
    value = int(literal)
    try:
        float(value)
    except OverflowError:
        raise ValueError("a whole number is beyond a double's range") from None
    return value


# The lists written one object per line, and the key each object starts with.
_FIRST_KEY = {"nodes": "id", "attributes": "name", "rules": "number"}


def _field_line(text: str, field: str) -> int | None:
    """Best-effort line of the field an error names, for the FILE:LINE prefix."""
    m = re.match(r"(\w+)(?:\[(\d+)\])?", field)
    if not m:
        return None
    key, index = m.group(1), m.group(2)
    if key in _FIRST_KEY and index is not None:
        # The index-th object of the list (its "id" may be the very thing that is wrong).
        first = _FIRST_KEY[key]
        found = [x.start() for x in re.finditer(rf'\{{\s*"{first}"\s*:', text)]
        pos = found[int(index)] if int(index) < len(found) else -1
        return text.count("\n", 0, pos) + 1 if pos >= 0 else None
    else:
        pat = rf'"{re.escape(key)}"\s*:'
    hit = re.search(pat, text)
    return text.count("\n", 0, hit.start()) + 1 if hit else None


def decode_json(text: str, filename: str, what: str = "treegen model") -> Any:
    """The JSON value of a treegen file's text; :class:`ModelFileError` (with the line and
    column) for an empty, truncated or malformed file, a non-finite number, a whole number
    past a double's range or JSON nested beyond :data:`MAX_NESTING` (``what`` names the
    kind of file in the message)."""
    if not text.strip():
        raise ModelFileError(f"empty file: not a {what}", file=filename, line=1)
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_int=int_reader(text))
    except json.JSONDecodeError as err:
        # Nesting beyond the limit is that error wherever the decoder stops: Python
        # 3.11's decoder gives up on deep nesting with a RecursionError, 3.13's reads on.
        over = _over_nesting(text[: err.pos + 1], filename, what)
        if over is not None:
            raise over from None
        # A file cut short (interrupted copy, full disk) lacks the closing brace; one
        # that does not even start like JSON is some other kind of file.
        if not text.lstrip("\ufeff \t\r\n").startswith(("{", "[")):
            kind = f"not a {what} (not JSON)"
        elif text.rstrip().endswith("}"):
            kind = "not valid JSON"
        else:
            kind = "truncated file"
        raise ModelFileError(
            f"{kind}: {err.msg}", file=filename, line=err.lineno, col=err.colno
        ) from None
    except ValueError as err:
        # NaN/Infinity (refused by _reject_constant), a whole number past a double's
        # range (_parse_int) or of more digits than int() converts: the decoder gives no
        # position, so find the token.
        bad = _BAD_NUMBER.search(text)
        msg = (
            str(err)
            if "digits" not in str(err)
            else f"a number has more than {sys.get_int_max_str_digits()} digits"
        )
        raise ModelFileError(
            f"not valid JSON: {msg}",
            file=filename,
            line=text.count("\n", 0, bad.start()) + 1 if bad else None,
            col=bad.start() - text.rfind("\n", 0, bad.start()) if bad else None,
        ) from None
    except RecursionError:
        raise _too_deep(text, filename, what) from None
    # Every other field's shape is checked by the caller; "options" is free-form JSON, and
    # a value that is no object at all may nest as deep as a decoder will read.
    deep = 1 + _nesting(data.get("options")) if isinstance(data, dict) else _nesting(data)
    if deep > MAX_NESTING:
        raise _too_deep(text, filename, what)
    check_surrogates(text, data, filename, what)
    return data


# A \uD800-\uDFFF escape: JSON allows one alone, but it is half of a UTF-16 pair, no
# character; a name holding it could be neither printed nor written as UTF-8.
_SURROGATE = re.compile(r"\\u([dD][89a-fA-F][0-9a-fA-F]{2})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?")


def check_surrogates(text: str, data: Any, filename: str, what: str) -> None:
    """A :class:`ModelFileError` at the first escape of ``text`` that decoded to a lone
    surrogate (``data`` is ``text`` decoded); the text of a UTF-8 file has none else."""
    if not _SURROGATE.search(text):
        return
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return  # only pairs, or a literal backslash before the "u"
    for m in _SURROGATE.finditer(text):
        if m.group(1)[1].lower() in "89ab" and m.group(2) is not None:
            continue  # a high and a low surrogate: one character
        line = text.count("\n", 0, m.start()) + 1
        raise ModelFileError(
            f"not a {what}: \\u{m.group(1)} is half of a UTF-16 surrogate pair, no character",
            file=filename,
            line=line,
            col=m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1,
        )
    raise ModelFileError(f"not a {what}: a string holds half of a surrogate pair", file=filename)


def field_error(err: InvalidField, text: str, filename: str) -> ModelFileError:
    """The one-line error for a field :mod:`treegen.model.check` found wrong, at its line.

    A field that cannot be found (missing, or the whole file) is the top-level
    object's, which starts on line 1.
    """
    return ModelFileError(
        f"{err.field}: {err.message}" if err.field else err.message,
        file=filename,
        line=_field_line(text, err.field) or 1,
    )


def read_text(path: str | os.PathLike[str], what: str = "model") -> str:
    """The UTF-8 text of a treegen file (``what``: model or ruleset, for the messages),
    without a byte-order mark: an editor may save one, and the data readers accept it."""
    name = os.fspath(path)
    raw = read_bytes(
        name, ModelFileError, f"no such {what} file", f"is a folder, not a {what} file"
    )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, col = byte_position(raw, err.start)
        raise ModelFileError(
            f"not a treegen {what}: byte 0x{raw[err.start]:02x} is not UTF-8 text",
            file=name,
            line=line,
            col=col,
        ) from None
