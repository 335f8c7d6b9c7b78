"""The fast path's Dataset: the columns' roles for the C tokenizer, its one pass, the schema.

treegen.data.readers.fast reads the header and finds the data section; here its columns
become the specs ``ctok.parse`` reads them by (a kind of ``ctok.c`` and where the value
goes), the rows are parsed in one C pass (piece by piece where every column is
declared), and the result becomes a ``Dataset``: for training
(:func:`dataset_for_training`, ``encode.build_dataset``'s decisions, the labels no
header declares numbered in the readers' order) or on a model's schema
(:func:`dataset_on_schema`, ``encode.map_onto_schema``'s mapping).  As in ``fast``,
anything the C code does not handle or that is an error raises
:class:`~treegen.data.readers.fastbytes.Fallback`: the Python reader then reports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.native import ctok
from treegen.data.readers.fastbytes import (
    Fallback,
    Section,
    count_line_ends,
    row_pieces,
    whole_bytes,
)
from treegen.data.readers.table import RawTable, column_kind, label_order

# Column kinds of ctok.parse (the K_* of ctok.c).
_IGNORE, _CONT, _NOM, _NOM_UNK, _OPEN, _INFER, _CLASS, _CLASS_MISS, _CLASS_OPEN, _WEIGHT = range(10)
_FORMATS = {"csv": 0, "arff": 1, "c45": 2}
_Spec = tuple[int, int, "list[bytes] | None", int]


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


def dataset_for_training(
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


def dataset_on_schema(
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
    for :func:`dataset_for_training`."""
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
