"""The fast path of :func:`treegen.data.readers.read_dataset`: the C tokenizer.

The header (CSV header row, ARFF declarations, C4.5 ``.names``) is parsed by
the Python readers' own code; the data section goes to
``treegen/data/native/ctok.c``, which writes ``X`` and ``y`` directly from
the file's bytes: no Python object per row or cell, no decoded copy of the
text.  A file whose columns are all declared (ARFF, C4.5 ``.names``, a model's
schema) is read in pieces of :data:`PIECE` bytes, cut at line ends, so that ``X``,
``y`` and one piece are all the memory it needs (the 1M-row bench file's 155 MB of
bytes and its 160 MB matrix were held together); columns whose values are
numbered or inferred as they come take the whole file at once.

This module never raises a data error.  Whenever the file has anything the
C code does not handle (quoted CSV fields, sparse ARFF rows, C4.5 escapes
and continuation lines, control characters) or anything that is an error
(a bad number, an undeclared value, a missing class, a row of the wrong
width, a value out of range, a bad header), :func:`read_fast` returns None
and ``read_dataset`` runs the Python reader on the whole file, which gives
the same ``Dataset`` or the exact one-line ``FILE:LINE:COL`` error.  Errors
thus have one implementation, and the two paths can only differ in speed;
``tests/readers/test_readers_fast.py`` checks that they give the same ``Dataset``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.native import ctok
from treegen.data.readers.arff import parse_arff
from treegen.data.readers.c45 import c45_paths, parse_names, schema_columns
from treegen.data.readers.csv import parse_csv, separator
from treegen.data.readers.table import Column, RawTable, label_order
from treegen.data.readers.text import read_bytes
from treegen.errors import DatasetError

__all__ = ["available", "read_fast"]

# Column kinds of ctok.parse (the K_* of ctok.c).
_IGNORE, _CONT, _NOM, _NOM_UNK, _OPEN, _INFER, _CLASS, _CLASS_MISS, _CLASS_OPEN = range(9)
_FORMATS = {"csv": 0, "arff": 1, "c45": 2}
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|\Z)")
PIECE = 1 << 23  # bytes of data rows per C call when a file is read in pieces
_HEAD = 1 << 20  # bytes read first for a header (more while it does not end)
_Spec = tuple[int, int, "list[bytes] | None", int]

# Why the last read_fast() call fell back (for the tests and for debugging).
last_fallback: list[str] = []


def available() -> bool:
    """True when the C tokenizer is built and usable in this process."""
    return ctok is not None and ctok.decimal_point() == "."


class _Fallback(Exception):
    """Run the Python reader instead (the reason is the message)."""


def read_fast(
    path: str,
    fmt: str,
    *,
    target: str | None,
    nominal: Sequence[str],
    schema: Schema | None,
    ignore: Sequence[str],
    float32: bool,
    labels: bool = True,
) -> Dataset | None:
    """The ``Dataset`` ``read_dataset`` would return, or None to run the Python reader."""
    last_fallback.clear()
    try:
        if not available():
            raise _Fallback("the C tokenizer is not available")
        return _read(path, fmt, target, nominal, schema, ignore, float32, labels)
    except _Fallback as why:
        last_fallback.append(str(why))
    except (DatasetError, UnicodeDecodeError) as err:
        # The Python reader reports it, with the position the user needs.
        last_fallback.append(f"{type(err).__name__}: {err}")
    return None


def _bytes(path: str) -> bytes:
    """The file's bytes, or None where read_text() would refuse them or transform
    more than a BOM and line ends (those it does the same way as ctok)."""
    return _checked(read_bytes(path, DatasetError, "no such file", "is a directory"))


def _checked(data: bytes) -> bytes:
    """``data`` (whole lines of a file), or _Fallback / UnicodeDecodeError where
    read_text() would refuse them (see _bytes)."""
    if b"\0" in data:
        raise _Fallback("NUL byte")
    if not data.isascii():
        data.decode("utf-8")  # UnicodeDecodeError: the Python reader reports it
    return data


def _head(path: str, size: int) -> tuple[bytes, bool]:
    """The first ``size`` bytes of the file or a little less, cut after a line end
    (the whole file if it is that short), and whether that is the whole file."""
    try:
        with open(path, "rb") as f:
            data = f.read(size + 1)
    except OSError:
        return _bytes(path), True  # the whole-file reader says what is wrong
    if len(data) <= size:
        return _checked(data), True
    cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
    return _checked(data[:cut]), False


def _with_header(
    path: str,
    header: Callable[[str, bytes, str | None], tuple[RawTable, int, str]],
    target: str | None,
) -> tuple[bytes, bool, RawTable, int, str]:
    """The file's first bytes holding its header, whether they are the whole file,
    and ``header``'s table, data offset and separator (read further while the header
    does not end within them)."""
    size = _HEAD
    while True:
        data, whole = _head(path, size)
        try:
            return (data, whole, *header(path, data, target))
        except _Fallback:
            if whole:
                raise
        size *= 4


def _lines(data: bytes, pos: int) -> tuple[int, str]:
    """The line starting at ``pos``: where the next one starts, and its text."""
    m = _LINE.match(data, pos)
    assert m is not None
    return m.end(), m.group(0).rstrip(b"\r\n").decode("utf-8")


def _start(data: bytes) -> int:
    return 3 if data.startswith(b"\xef\xbb\xbf") else 0


def _read(
    path: str,
    fmt: str,
    target: str | None,
    nominal: Sequence[str],
    schema: Schema | None,
    ignore: Sequence[str],
    float32: bool,
    labels: bool,
) -> Dataset:
    if fmt == "c45":
        names_path, cases_path = c45_paths(path)
        if schema is not None:
            columns = schema_columns(schema)
            if os.path.isfile(names_path):
                declared, _ = parse_names(names_path)
                if [c.name for c in declared] != [a.name for a in schema.attributes]:
                    raise _Fallback("the .names file does not match the model")
        else:
            columns, classes = parse_names(names_path)
            columns.append(Column("class", "nominal", classes))
        data, whole = _head(cases_path, _HEAD)
        table = RawTable(cases_path, columns, class_index=len(columns) - 1)
        offset, sep = _start(data), ","
        path = cases_path
    else:
        header = _csv_header if fmt == "csv" else _arff_header
        data, whole, table, offset, sep = _with_header(path, header, target)
    section = _Section(path, data, whole, offset, fmt, sep)
    if schema is None:
        return _train(table, section, nominal, ignore, float32)
    # The class column: the model's class's name, or --target's (the header check above
    # made sure it exists); none when the labels are not wanted.
    label = (target if target is not None else schema.target) if labels else None
    return _with_schema(table, section, schema, float32, label)


def _csv_header(
    path: str,
    data: bytes,
    target: str | None,
) -> tuple[RawTable, int, str]:
    pos = _start(data)
    line_no = 0
    while pos < len(data):
        pos, line = _lines(data, pos)
        line_no += 1
        if line.strip():
            break
    else:
        raise _Fallback("no header row")
    if '"' in line or line_no > 50:
        raise _Fallback("quoted header, or the header after line 50")
    text = "\n" * (line_no - 1) + line
    return parse_csv(path, text, target), pos, separator(path, text)


def _arff_header(
    path: str,
    data: bytes,
    target: str | None,
) -> tuple[RawTable, int, str]:
    pos = _start(data)
    lines: list[str] = []
    while pos < len(data):
        pos, line = _lines(data, pos)
        lines.append(line)
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        keyword = stripped.split(None, 1)[0].lower()
        if keyword == "@data":
            return parse_arff(path, "\n".join(lines), target), pos, ","
        if keyword not in ("@relation", "@attribute"):
            break
    raise _Fallback("no @data line")


def _values(values: Sequence[str]) -> list[bytes] | None:
    out = [v.encode("utf-8") for v in values]
    return out if len(set(out)) == len(out) else None


@dataclass(frozen=True)
class _Section:
    """The data rows of a file: its path, its first bytes (``whole``: all of it),
    where the rows start, the format and separator."""

    path: str
    head: bytes
    whole: bool
    offset: int
    fmt: str
    sep: str


def _pieces(section: _Section) -> Iterator[memoryview]:
    """The file's data rows (from ``section.offset``) in pieces of about :data:`PIECE`
    bytes, each but the last ending after a line end (a CR LF is not split), checked as
    :func:`_checked` checks.  Each is a view of one buffer the file is read into, valid
    until the next is asked for: a new bytes object a piece (and its concatenation with
    the last piece's unfinished line, and the piece cut from that) faulted in 24 MB of
    fresh pages every 8 MB of the file."""
    with open(section.path, "rb") as f:
        f.seek(section.offset)
        buf = bytearray(PIECE)
        have = 0  # the last read's unfinished line, moved to the buffer's start
        while True:
            if have == len(buf):  # a line longer than the buffer: a larger one
                buf = buf + bytearray(len(buf))
            with memoryview(buf) as view, view[have:] as free:
                got = f.readinto(free)
            if not got:
                if have:
                    _check_piece(buf, have)
                    yield memoryview(buf)[:have]
                return
            end = have + got
            cut = max(buf.rfind(b"\n", 0, end), buf.rfind(b"\r", 0, end - 1)) + 1
            if cut:
                _check_piece(buf, cut)
                yield memoryview(buf)[:cut]
            have = end - cut
            buf[:have] = buf[cut:end]  # (the same length: the buffer is not resized)


def _check_piece(buf: bytearray, size: int) -> None:
    """:func:`_checked` on ``buf[:size]`` without copying it where it is ASCII: the
    whole buffer is tested first (the bytes after the piece are the file's too, or
    zeros, or earlier bytes of the file), the piece alone only where that fails."""
    if buf.find(b"\0", 0, size) >= 0:
        raise _Fallback("NUL byte")
    if not buf.isascii():
        _checked(bytes(buf[:size]))


def _line_ends(section: _Section) -> int:
    """How many line ends (CR or LF bytes) the file holds after ``section.offset``,
    read a block at a time into one buffer and counted by the tokenizer."""
    assert ctok is not None
    count = 0
    buf = bytearray(PIECE)
    with open(section.path, "rb") as f:
        f.seek(section.offset)
        while got := f.readinto(buf):
            count += ctok.line_ends(buf, got)
    return count


def _parse(
    section: _Section,
    specs: list[_Spec],
    n_attr: int,
    float32: bool,
) -> tuple[np.ndarray, np.ndarray, list[list[bytes] | None]]:
    assert ctok is not None
    # Values numbered as they come (open columns) or a column inferred from all its
    # cells (whose rows are read again when a cell is not a number) need the whole
    # data in one call; declared columns are read piece by piece.
    whole = section.whole or any(spec[0] in (_OPEN, _INFER, _CLASS_OPEN) for spec in specs)
    pieces: list[bytes] | None = None
    offset = 0  # where the rows start in the first piece
    if whole:
        pieces = [section.head if section.whole else _bytes(section.path)]
        offset = section.offset
    # Rows <= line ends + 1: X is allocated once, at its final size or a little more.
    max_rows = 1
    if pieces is None:
        max_rows += _line_ends(section)
    else:
        max_rows += pieces[0].count(b"\n", offset) + pieces[0].count(b"\r", offset)
    X = np.empty((max_rows, n_attr), dtype=np.float64)
    y = np.full(max_rows, -1, dtype=np.int32)
    rows = 0
    opened: list[list[bytes] | None] = []
    # (The whole file's bytes were checked as they were read; _pieces checks its own.)
    data: Iterable[bytes | memoryview] = pieces or _pieces(section)
    for piece in data:
        got = ctok.parse(
            piece,
            offset,
            _FORMATS[section.fmt],
            section.sep,
            specs,
            X[rows:],
            y[rows:],
            n_attr,
            float32,
            max_rows - rows,
        )
        if isinstance(got, str):
            raise _Fallback(got)
        rows += got[0]
        opened = got[2]
        offset = 0
    if rows == 0:
        raise _Fallback("no data rows")
    if rows < max_rows:
        # Give the unused tail back without a second copy of the table.
        X.resize((rows, n_attr), refcheck=False)
        y.resize(rows, refcheck=False)
    return X, y, opened


def _texts(values: list[bytes] | None) -> tuple[str, ...]:
    assert values is not None
    return tuple(v.decode("utf-8") for v in values)


def _train(
    table: RawTable, section: _Section, nominal: Sequence[str], ignore: Sequence[str], float32: bool
) -> Dataset:
    """:func:`treegen.data.readers.table.build_dataset`'s decisions, then one C pass."""
    columns = table.columns
    names = [c.name for c in columns]
    if any(n not in names for n in (*nominal, *ignore)):
        raise _Fallback("--nominal/--ignore names an unknown column")
    ci = table.class_index
    cls = columns[ci]
    if cls.name in ignore:
        raise _Fallback("the class is ignored")
    specs: list[_Spec] = []
    roles: list[str] = []  # a ColKind, or "class"
    out = 0
    for j, c in enumerate(columns):
        if j == ci:
            if cls.kind == "nominal":
                values = _values(cls.values)
                if values is None:
                    raise _Fallback("duplicate class")
                specs.append((_CLASS, -1, values, 0))
            elif cls.kind in ("open", "infer") or (
                cls.kind == "continuous" and cls.name in nominal
            ):
                specs.append((_CLASS_OPEN, -1, None, 0))
            else:
                raise _Fallback("the class is not nominal")
            roles.append("class")
            continue
        kind = c.kind
        if c.name in ignore:
            kind = "ignore"
        elif c.name in nominal and kind in ("continuous", "infer"):
            kind = "open"
        if kind == "reject":
            raise _Fallback("an attribute of a type treegen cannot use")
        if kind == "ignore":
            specs.append((_IGNORE, out, None, 0))
        elif kind == "continuous":
            specs.append((_CONT, out, None, 0))
        elif kind == "infer":
            specs.append((_INFER, out, None, 0))
        elif kind == "nominal":
            values = _values(c.values)
            if values is None:
                raise _Fallback("duplicate value")
            specs.append((_NOM, out, values, 0))
        else:
            specs.append((_OPEN, out, None, c.max_values))
        roles.append(kind)
        out += 1
    X, y, opened = _parse(section, specs, out, float32)
    labels = "str"
    if cls.kind == "nominal":
        classes = cls.values
    else:
        # Labels no header declares: the C pass numbered them first-seen; renumber them
        # in the readers' order (table.label_order).
        seen = _texts(opened[ci])
        classes, labels = label_order(seen)
        code = {c: i for i, c in enumerate(classes)}
        renumber = np.asarray([code[c] for c in seen] or [0], dtype=np.int32)
        y = np.where(y >= 0, renumber[np.maximum(y, 0)], y).astype(np.int32)
    if not classes:
        raise _Fallback("no class values")
    attributes: list[Attribute] = []
    for j, (c, role) in enumerate(zip(columns, roles, strict=True)):
        if role == "class":
            continue
        if role == "ignore":
            attributes.append(Attribute(c.name, "ignore"))
        elif role == "continuous" or (role == "infer" and opened[j] is None):
            attributes.append(Attribute(c.name, "continuous"))
        elif role == "nominal":
            attributes.append(Attribute(c.name, "nominal", c.values))
        else:
            attributes.append(Attribute(c.name, "nominal", _texts(opened[j])))
    schema = Schema(tuple(attributes), tuple(classes), cls.name)
    return Dataset(schema, X, y, table.path, labels)


def _with_schema(
    table: RawTable, section: _Section, schema: Schema, float32: bool, label: str | None
) -> Dataset:
    """:func:`treegen.data.readers.table.map_onto_schema`'s mapping, then one C pass;
    ``label`` names the class column (None: read no class)."""
    columns = table.columns
    names = [c.name for c in columns]
    by_name = section.fmt != "c45"
    if label is None:
        ci = -1
    elif by_name:
        ci = names.index(label) if label in names else -1
    else:
        ci = len(columns) - 1
    specs: list[_Spec] = [(_IGNORE, -1, None, 0) for _ in columns]
    absent: list[int] = []
    for i, a in enumerate(schema.attributes):
        if not by_name:
            j = i
        elif a.name in names:
            j = names.index(a.name)
        elif a.kind == "ignore":
            j = -1
        else:
            raise _Fallback("a column the model uses is missing")
        if a.kind == "ignore" or j < 0:
            absent.append(i)
            continue
        if j == ci or specs[j][1] >= 0:
            raise _Fallback("one column in two roles")
        if a.kind == "continuous":
            specs[j] = (_CONT, i, None, 0)
        else:
            values = _values(a.values)
            if values is None:
                raise _Fallback("duplicate value")
            specs[j] = (_NOM_UNK, i, values, 0)
    if ci >= 0:
        classes = _values(schema.classes)
        if classes is None:
            raise _Fallback("duplicate class")
        specs[ci] = (_CLASS_MISS, -1, classes, 0)
    X, y, _ = _parse(section, specs, len(schema.attributes), float32)
    for i in absent:
        X[:, i] = np.nan
    return Dataset(schema, X, y, table.path)
