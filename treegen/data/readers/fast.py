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
numbered or inferred as they come take the whole file at once.  The columns'
roles for the C pass, the pass itself and the Dataset it makes are
:mod:`~treegen.data.readers.fastbuild`'s.

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
from collections.abc import Sequence

from treegen.data.dataset import Dataset, Schema
from treegen.data.native import ctok
from treegen.data.readers.arff import arff_keyword, parse_arff
from treegen.data.readers.c45 import c45_paths, parse_names, schema_columns
from treegen.data.readers.csv import parse_csv, separator
from treegen.data.readers.fastbuild import dataset_for_training, dataset_on_schema
from treegen.data.readers.fastbytes import (
    Fallback,
    Section,
    bom_end,
    head,
    next_line,
    with_header,
)
from treegen.data.readers.table import Column, RawTable
from treegen.errors import DatasetError

__all__ = ["available", "read_fast"]

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
        return dataset_for_training(table, section, nominal, ignore, float32, weights, wj)
    # The class column: the model's class's name, or --target's (the header check above
    # made sure it exists); none when the labels are not wanted.
    label = (target if target is not None else schema.target) if labels else None
    return dataset_on_schema(table, section, schema, float32, label, weights, wj)


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
