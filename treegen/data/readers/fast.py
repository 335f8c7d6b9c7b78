"""The fast path of :func:`treegen.data.readers.read_dataset`: the C tokenizer.

The header (CSV header row, ARFF declarations, C4.5 ``.names``) is parsed by
the Python readers' own code; the data section goes to
``treegen/data/native/ctok.c``, which writes ``X`` and ``y`` directly from
the file's bytes: no Python object per row or cell, no decoded copy of the
text.  A file whose columns are all declared (ARFF, C4.5 ``.names``, a model's
schema) is read in pieces of :data:`~treegen.data.readers.fastbytes.PIECE` bytes, cut
at line ends (:mod:`~treegen.data.readers.fastbytes`), so that ``X``, ``y`` and one
piece are all the memory it needs (the 1M-row bench file's 155 MB of
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
import stat
from collections.abc import Iterable, Sequence

import numpy as np

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.native import ctok
from treegen.data.readers.arff import arff_keyword, parse_arff
from treegen.data.readers.c45 import c45_paths, parse_names, schema_columns
from treegen.data.readers.csv import parse_csv, separator
from treegen.data.readers.fastbytes import (
    Fallback,
    Section,
    bom_end,
    count_line_ends,
    head,
    next_line,
    row_pieces,
    whole_bytes,
    with_header,
)
from treegen.data.readers.table import Column, RawTable, column_kind, label_order
from treegen.errors import DatasetError

__all__ = ["available", "read_fast"]

# Column kinds of ctok.parse (the K_* of ctok.c).
_IGNORE, _CONT, _NOM, _NOM_UNK, _OPEN, _INFER, _CLASS, _CLASS_MISS, _CLASS_OPEN, _WEIGHT = range(10)
_FORMATS = {"csv": 0, "arff": 1, "c45": 2}
_Spec = tuple[int, int, "list[bytes] | None", int]

# Why the last read_fast() call fell back (for the tests and for debugging).
last_fallback: list[str] = []


def available() -> bool:
    """True when the C tokenizer is built and usable in this process."""
    return ctok is not None and ctok.decimal_point() == "."


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
    weights: bool = False,
    weight_column: str | None = None,
) -> Dataset | None:
    """The ``Dataset`` ``read_dataset`` would return, or None to run the Python reader.
    ``weights``: an ARFF row's instance weight is read (else such a row falls back);
    ``weight_column``: a CSV file's column of weights (a C4.5 file's is the Python
    reader's, and so is every error in it)."""
    last_fallback.clear()
    try:
        if not available():
            raise Fallback("the C tokenizer is not available")
        if weight_column is not None and fmt != "csv":
            raise Fallback("a C4.5 file's weight column")
        return _read(
            path, fmt, target, nominal, schema, ignore, float32, labels, weights, weight_column
        )
    except Fallback as why:
        last_fallback.append(str(why))
    except (DatasetError, UnicodeDecodeError) as err:
        # The Python reader reports it, with the position the user needs.
        last_fallback.append(f"{type(err).__name__}: {err}")
    return None


def _read(
    path: str,
    fmt: str,
    target: str | None,
    nominal: Sequence[str],
    schema: Schema | None,
    ignore: Sequence[str],
    float32: bool,
    labels: bool,
    weights: bool,
    weight_column: str | None = None,
) -> Dataset:
    if fmt == "c45":
        names_path, cases_path = c45_paths(path)
        _refuse_unseekable(cases_path)
        if schema is not None:
            columns = schema_columns(schema)
            if os.path.isfile(names_path):
                declared, _ = parse_names(names_path)
                if [c.name for c in declared] != [a.name for a in schema.attributes]:
                    raise Fallback("the .names file does not match the model")
        else:
            columns, classes = parse_names(names_path)
            columns.append(Column("class", "nominal", classes))
        data, whole = head(cases_path)
        table = RawTable(cases_path, columns, class_index=len(columns) - 1)
        offset, sep = bom_end(data), ","
        path = cases_path
    else:
        _refuse_unseekable(path)
        header = _csv_header if fmt == "csv" else _arff_header
        data, whole, table, offset, sep = with_header(path, header, target)
    section = Section(path, data, whole, offset, fmt, sep)
    wj = None if weight_column is None else _weight_index(table, weight_column, target)
    if schema is None:
        return _train(table, section, nominal, ignore, float32, weights, wj)
    # The class column: the model's class's name, or --target's (the header check above
    # made sure it exists); none when the labels are not wanted.
    label = (target if target is not None else schema.target) if labels else None
    return _with_schema(table, section, schema, float32, label, weights, wj)


def _weight_index(table: RawTable, name: str, target: str | None) -> int:
    """The weight column's number (:mod:`treegen.data.readers.weightcol`'s rules: a
    weight column written last, without --target, leaves the class the column before
    it); every mistake is the Python reader's to report."""
    names = [c.name for c in table.columns]
    if name not in names or len(names) < 3:
        raise Fallback("the weight column is not there")
    wj = names.index(name)
    if wj == table.class_index:
        if target is not None:
            raise Fallback("the weight column is the class")
        table.class_index = wj - 1
    return wj


def _refuse_unseekable(path: str) -> None:
    """Fall back, before reading a byte, for a file that is not regular: a pipe or a
    FIFO (``/dev/stdin``) can be read once, and this path reads the head, then the
    rows again from their offset, and falls back to a reader that reads it all."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return  # no such file: the readers say so
    if not regular:
        raise Fallback("not a regular file (a pipe is read once)")


def _csv_header(
    path: str,
    data: bytes,
    target: str | None,
) -> tuple[RawTable, int, str]:
    pos = bom_end(data)
    line_no = 0
    while pos < len(data):
        pos, line = next_line(data, pos)
        line_no += 1
        if line.strip():
            break
    else:
        raise Fallback("no header row")
    if '"' in line or line_no > 50:
        raise Fallback("quoted header, or the header after line 50")
    text = "\n" * (line_no - 1) + line
    return parse_csv(path, text, target), pos, separator(path, text)


def _arff_header(
    path: str,
    data: bytes,
    target: str | None,
) -> tuple[RawTable, int, str]:
    pos = bom_end(data)
    lines: list[str] = []
    while pos < len(data):
        pos, line = next_line(data, pos)
        lines.append(line)
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        keyword = arff_keyword(stripped)
        if keyword == "@data":
            if "%" in stripped or stripped.lower() != "@data":
                raise Fallback("text after @data (a row, or a comment)")
            return parse_arff(path, "\n".join(lines), target), pos, ","
        if keyword not in ("@relation", "@attribute"):
            break
    raise Fallback("no @data line")


def _values(values: Sequence[str]) -> list[bytes] | None:
    out = [v.encode("utf-8") for v in values]
    return out if len(set(out)) == len(out) else None


def _parse(
    section: Section,
    specs: list[_Spec],
    n_attr: int,
    float32: bool,
    weights: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[list[bytes] | None], np.ndarray | None]:
    """X, y, the values of the columns numbered as they came, and (``weights``) each
    row's instance weight, None when no row gives one."""
    assert ctok is not None
    # Values numbered as they come (open columns) or a column inferred from all its
    # cells (whose rows are read again when a cell is not a number) need the whole
    # data in one call; declared columns are read piece by piece.
    whole = section.whole or any(spec[0] in (_OPEN, _INFER, _CLASS_OPEN) for spec in specs)
    pieces: list[bytes] | None = None
    offset = 0  # where the rows start in the first piece
    if whole:
        pieces = [section.head if section.whole else whole_bytes(section.path)]
        offset = section.offset
    # Rows <= line ends + 1: X is allocated once, at its final size or a little more.
    max_rows = 1
    if pieces is None:
        max_rows += count_line_ends(section)
    else:
        max_rows += pieces[0].count(b"\n", offset) + pieces[0].count(b"\r", offset)
    X = np.empty((max_rows, n_attr), dtype=np.float64)
    y = np.full(max_rows, -1, dtype=np.int32)
    w = np.ones(max_rows, dtype=np.float64) if weights else None
    weighted = False
    rows = 0
    opened: list[list[bytes] | None] = []
    # (The whole file's bytes were checked as they were read; row_pieces checks its own.)
    data: Iterable[bytes | memoryview] = pieces or row_pieces(section)
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
            None if w is None else w[rows:],
        )
        if isinstance(got, str):
            raise Fallback(got)
        rows += got[0]
        opened = got[2]
        weighted = weighted or bool(got[3])
        offset = 0
    if rows == 0:
        raise Fallback("no data rows")
    if rows < max_rows:
        # Give the unused tail back without a second copy of the table.
        X.resize((rows, n_attr), refcheck=False)
        y.resize(rows, refcheck=False)
    return X, y, opened, w[:rows].copy() if w is not None and weighted else None


def _texts(values: list[bytes] | None) -> tuple[str, ...]:
    assert values is not None
    return tuple(v.decode("utf-8") for v in values)


def _train(
    table: RawTable,
    section: Section,
    nominal: Sequence[str],
    ignore: Sequence[str],
    float32: bool,
    weights: bool,
    wj: int | None = None,
) -> Dataset:
    """:func:`treegen.data.readers.encode.build_dataset`'s decisions, then one C pass;
    ``wj``: the weight column's number (``--weights``), read into the weights."""
    columns = table.columns
    names = [c.name for c in columns if wj is None or c is not columns[wj]]
    if any(n not in names for n in (*nominal, *ignore)):
        raise Fallback("--nominal/--ignore names an unknown column")
    if len(columns) < 2:
        raise Fallback("no attributes")
    ci = table.class_index
    cls = columns[ci]
    if cls.name in ignore:
        raise Fallback("the class is ignored")
    specs: list[_Spec] = []
    roles: list[str] = []  # a ColKind, or "class"
    out = 0
    for j, c in enumerate(columns):
        if j == wj:
            specs.append((_WEIGHT, -1, None, 0))
            roles.append("weight")
            continue
        if j == ci:
            if cls.kind == "nominal":
                values = _values(cls.values)
                if values is None:
                    raise Fallback("duplicate class")
                specs.append((_CLASS, -1, values, 0))
            elif cls.kind in ("open", "infer") or (
                cls.kind == "continuous" and cls.name in nominal
            ):
                specs.append((_CLASS_OPEN, -1, None, 0))
            else:
                raise Fallback("the class is not nominal")
            roles.append("class")
            continue
        kind = column_kind(c, nominal, ignore)
        if kind == "reject":
            raise Fallback("an attribute of a type treegen cannot use")
        if kind == "ignore":
            specs.append((_IGNORE, out, None, 0))
        elif kind == "continuous":
            specs.append((_CONT, out, None, 0))
        elif kind == "infer":
            specs.append((_INFER, out, None, 0))
        elif kind == "nominal":
            values = _values(c.values)
            if values is None:
                raise Fallback("duplicate value")
            specs.append((_NOM, out, values, 0))
        else:
            specs.append((_OPEN, out, None, c.max_values))
        roles.append(kind)
        out += 1
    X, y, opened, w = _parse(section, specs, out, float32, weights or wj is not None)
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
        raise Fallback("no class values")
    attributes: list[Attribute] = []
    for j, (c, role) in enumerate(zip(columns, roles, strict=True)):
        if role in ("class", "weight"):
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
    return Dataset(schema, X, y, table.path, labels, w)


def _with_schema(
    table: RawTable,
    section: Section,
    schema: Schema,
    float32: bool,
    label: str | None,
    weights: bool = False,
    wj: int | None = None,
) -> Dataset:
    """:func:`treegen.data.readers.encode.map_onto_schema`'s mapping, then one C pass;
    ``label`` names the class column (None: read no class); ``weights`` and ``wj`` as
    for :func:`_train`."""
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
            raise Fallback("a column the model uses is missing")
        if a.kind == "ignore" or j < 0:
            absent.append(i)
            continue
        if j == ci or specs[j][1] >= 0:
            raise Fallback("one column in two roles")
        if a.kind == "continuous":
            specs[j] = (_CONT, i, None, 0)
        else:
            values = _values(a.values)
            if values is None:
                raise Fallback("duplicate value")
            specs[j] = (_NOM_UNK, i, values, 0)
    if wj is not None:
        if wj == ci or specs[wj][1] >= 0:
            raise Fallback("the weight column in another role")
        specs[wj] = (_WEIGHT, -1, None, 0)
    if ci >= 0:
        classes = _values(schema.classes)
        if classes is None:
            raise Fallback("duplicate class")
        specs[ci] = (_CLASS_MISS, -1, classes, 0)
    X, y, _, w = _parse(section, specs, len(schema.attributes), float32, weights or wj is not None)
    for i in absent:
        X[:, i] = np.nan
    return Dataset(schema, X, y, table.path, weights=w)
