"""Data readers: C4.5 (``.names``/``.data``/``.test``), ARFF and CSV, one :class:`Dataset`.

:func:`read_dataset` picks the format from the file name, lets the format's
reader produce a table of text cells (:mod:`treegen.data.readers.table`), and
encodes it (:mod:`treegen.data.readers.encode`), either inferring a schema (training
data) or mapping the columns onto a model's schema (evaluation and prediction data).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from treegen.data.colnames import refuse_nominal_and_ignored
from treegen.data.dataset import Dataset, Schema
from treegen.data.readers.arff import read_arff
from treegen.data.readers.c45 import c45_paths, parse_names, read_c45, read_cases, schema_columns
from treegen.data.readers.csv import read_csv
from treegen.data.readers.encode import build_dataset, map_onto_schema
from treegen.data.readers.fast import read_fast
from treegen.data.readers.table import Column, RawTable
from treegen.data.readers.weightcol import (
    refuse_attribute_options,
    refuse_model_column,
    take_weight_column,
)
from treegen.data.words import counted
from treegen.errors import DatasetError, UsageError

__all__ = [
    "C45_SUFFIXES",
    "CSV_SUFFIXES",
    "DATA_SUFFIXES",
    "detect_format",
    "locate_cell",
    "read_dataset",
    "read_python",
]

C45_SUFFIXES = (".names", ".data", ".test")
"""A C4.5 file's suffixes (its DATA may also be the files' stem)."""
CSV_SUFFIXES = (".csv", ".tsv", ".tab")
"""The suffixes of a file named as CSV (what is not C4.5 or ARFF is read as CSV too)."""
DATA_SUFFIXES = (*CSV_SUFFIXES, ".arff", *C45_SUFFIXES)
"""The suffixes of a data file's name: CSV's, ARFF's and C4.5's."""


def detect_format(path: str) -> str:
    """``"c45"``, ``"arff"`` or ``"csv"`` for a DATA argument."""
    suffix = Path(path).suffix.lower()
    if suffix in C45_SUFFIXES:
        return "c45"
    if suffix == ".arff":
        return "arff"
    if not os.path.isfile(path) and os.path.isfile(path + ".names"):
        return "c45"  # DATA given as the stem of stem.names / stem.data
    return "csv"


def read_dataset(
    path: str,
    *,
    target: str | None = None,
    nominal: Sequence[str] = (),
    schema: Schema | None = None,
    ignore: Sequence[str] = (),
    float32: bool = False,
    labels: bool = True,
    weights: bool = False,
    weight_column: str | None = None,
) -> Dataset:
    """Read DATA in any supported format.

    Without ``schema`` the attributes and classes come from the file (its
    declarations, or inference for CSV), ``target`` picks the class column
    (default: last; C4.5 files declare their classes), ``nominal`` forces
    columns nominal and ``ignore`` marks columns as ignored.  With ``schema``
    (a model's) the file's columns are mapped onto it: by name for CSV and
    ARFF, by position for C4.5; values the model does not know become
    missing, and a missing class (or no class column) becomes -1.  There the class
    column is the one named as the model's class, or ``target`` (CSV and ARFF: the
    user's file may call it otherwise); with ``labels`` False no class is read at
    all (every row's is -1, the column ignored like any the model does not use).

    A continuous value must be a finite number the model can hold: ``float32``
    (data for a c45 model, which stores values as float32 like Release 8) rejects a
    literal beyond float32's range, otherwise one beyond a double's is rejected; the
    error names the cell's FILE:LINE:COL.  ``inf`` and ``nan`` are not numbers.

    The data rows go through the C tokenizer when it is built and the file is
    plain (:mod:`treegen.data.readers.fast`); otherwise, and for every error,
    through the Python readers (:func:`read_python`): the same ``Dataset`` either way.

    ``weights``: an ARFF file's instance weights (``{w}`` after a row) are read into
    ``Dataset.weights`` (for training, evaluating and predicting, with or without
    ``schema``); without it they are an error at the first.  ``weight_column``: a CSV
    or C4.5 file's column of weights (``--weights``), taken out of its columns into
    ``Dataset.weights`` (:mod:`treegen.data.readers.weightcol`; the Python reader's).
    """
    fmt = detect_format(path)
    if weight_column is not None and fmt == "arff":
        raise UsageError(
            "is for a CSV or C4.5 file's weight column; an ARFF file gives a row's weight "
            "as {w} after it",
            option="--weights",
        )
    refuse_nominal_and_ignored(nominal, ignore)
    if weight_column is not None:
        refuse_attribute_options(weight_column, nominal, ignore)
    if schema is not None and weight_column is not None:
        refuse_model_column(schema, weight_column)
    if fmt == "c45" and target is not None and target != "class":
        raise DatasetError(
            "--target does not apply to C4.5 files: the class is declared "
            "by the first entry of the .names file",
            file=path,
        )
    fast = read_fast(
        path,
        fmt,
        target=target,
        nominal=nominal,
        schema=schema,
        ignore=ignore,
        float32=float32,
        labels=labels,
        weights=weights,
        weight_column=weight_column,
    )
    if fast is not None:
        return fast
    return read_python(
        path,
        fmt,
        target=target,
        nominal=nominal,
        schema=schema,
        ignore=ignore,
        float32=float32,
        labels=labels,
        weights=weights,
        weight_column=weight_column,
    )


def read_python(
    path: str,
    fmt: str,
    *,
    target: str | None = None,
    nominal: Sequence[str] = (),
    schema: Schema | None = None,
    ignore: Sequence[str] = (),
    float32: bool = False,
    labels: bool = True,
    weights: bool = False,
    weight_column: str | None = None,
) -> Dataset:
    """:func:`read_dataset` by the pure-Python readers: the reference, and the path for
    every file the C tokenizer does not take (see :mod:`treegen.data.readers.fast`)."""
    if fmt == "c45":
        if schema is not None:
            return _read_c45_with_schema(path, schema, float32, labels, weight_column)
        table, _ = read_c45(path)
        if weight_column is not None:
            take_weight_column(table, weight_column, "class")
        return build_dataset(table, nominal=nominal, ignore=ignore, target="class", float32=float32)
    if schema is not None:
        # With ``target`` the reader checks that the column exists and makes it the class.
        table = _table(path, fmt, target, weights, weight_column)
        names = [c.name for c in table.columns]
        if target is None:
            table.class_index = names.index(schema.target) if schema.target in names else -1
        elif target in (a.name for a in schema.attributes):
            raise DatasetError(
                f"--target {target}: the model uses column '{target}' as an attribute, "
                f"not as its class ('{schema.target}')",
                file=path,
                line=table.columns[0].line if table.columns else None,
            )
        if not labels:
            table.class_index = -1
        return map_onto_schema(table, schema, by_name=True, float32=float32)
    table = _table(path, fmt, target, weights, weight_column)
    return build_dataset(
        table,
        nominal=nominal,
        ignore=ignore,
        target=table.columns[table.class_index].name,
        float32=float32,
    )


def _table(
    path: str, fmt: str, target: str | None, weights: bool, weight_column: str | None
) -> RawTable:
    """An ARFF or CSV file's table, its rows' weights read (``weights``: ARFF's ``{w}``;
    ``weight_column``: a CSV column's, taken out of the table)."""
    if fmt == "arff":
        return read_arff(path, target, weights=weights)
    table = read_csv(path, target)
    if weight_column is not None:
        take_weight_column(table, weight_column, target)
    return table


def locate_cell(
    path: str, schema: Schema, row: int, attribute: int, weight_column: str | None = None
) -> tuple[int, int | None]:
    """The line and column (from 1) in ``path`` of the value that :func:`read_dataset`
    with ``schema`` (and ``weight_column``) put at ``row``, ``attribute`` of the
    Dataset's matrix: for naming a value that is refused after reading.  Reads the
    file again by the Python readers, which keep every cell's place."""
    fmt = detect_format(path)
    if fmt == "c45":
        table = _c45_table_for(path, schema, weight_column)
        j = attribute
    else:
        table = _table(path, fmt, None, True, weight_column)
        j = [c.name for c in table.columns].index(schema.attributes[attribute].name)
    cell = table.rows[row]
    return cell.line, cell.col(j)


def _read_c45_with_schema(
    path: str, schema: Schema, float32: bool, labels: bool, weight_column: str | None = None
) -> Dataset:
    table = _c45_table_for(path, schema, weight_column)
    if not labels:
        table.class_index = -1
    return map_onto_schema(table, schema, by_name=False, float32=float32)


def _c45_table_for(path: str, schema: Schema, weight_column: str | None) -> RawTable:
    """A C4.5 file's cases read with a model's columns (its .names file, when there is
    one, must declare them), the weight column taken out."""
    names_path, cases_path = c45_paths(path)
    columns = schema_columns(schema)
    if weight_column is not None and not os.path.isfile(names_path):
        raise UsageError(
            f"needs {names_path} to find column '{weight_column}' in", option="--weights"
        )
    if os.path.isfile(names_path):
        # The file's own declarations must describe the model's columns.
        declared, _ = parse_names(names_path)
        got = [c.name for c in declared]
        if weight_column is not None and weight_column in got:  # read, then taken out
            at = got.index(weight_column)
            del got[at]
            columns.insert(at, Column(weight_column, "continuous"))
        want = [a.name for a in schema.attributes]
        if got != want:
            diff = next(
                (i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w),
                min(len(got), len(want)),
            )
            detail = (
                f"attribute {diff + 1} is '{got[diff]}', the model's is '{want[diff]}'"
                if diff < min(len(got), len(want))
                else f"{counted(len(got), 'attribute')}, the model has {len(want)}"
            )
            raise DatasetError(f"does not match the model: {detail}", file=names_path)
    table: RawTable = read_cases(cases_path, columns)
    if weight_column is not None:
        take_weight_column(table, weight_column, "class")
    return table
