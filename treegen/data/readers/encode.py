"""A :class:`~treegen.data.readers.table.RawTable` encoded into a Dataset.

:func:`build_dataset` encodes training data: every column's kind inferred or checked
(``--nominal``, ``--ignore``), the classes from the file.  :func:`map_onto_schema`
encodes evaluation and prediction data with a model's schema.  Both parse the numbers
(a whole column at once where it can) and raise each error for a bad value at the cell
that holds it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from treegen.data.colnames import option_name
from treegen.data.dataset import Attribute, Dataset, Schema, beyond_range, range_message
from treegen.data.frame import default_names
from treegen.data.readers.lookalike import comma_number
from treegen.data.readers.table import (
    NUMBER_TEXT,
    RawRow,
    RawTable,
    column_kind,
    label_order,
    parse_number,
    shorten,
)
from treegen.errors import DatasetError

_NUMBER_LINES = re.compile(rf"(?:{NUMBER_TEXT}\n)*", re.ASCII)  # one number a line
# Missing values as pandas, R and spreadsheets write them (lower case).
_MARKERS = frozenset({"na", "nan", "n/a", "#n/a", "null", "none", "-", "missing"})


def _numbers(table: RawTable, j: int) -> np.ndarray | None:
    """Column ``j`` as numbers (NaN where missing), or None if any cell is not a number.

    One regular-expression scan and one numpy conversion for the whole column:
    the per-cell loop in :func:`_encode_continuous` only runs to find the
    cell to blame in an error.  A literal too large for a double becomes inf
    here; :func:`_check_range` rejects it.
    """
    texts = [row.values[j] for row in table.rows]
    present = [t for t in texts if t is not None]
    joined = "\n".join(present) + "\n" if present else ""
    # A quoted cell may hold a newline ("1\n2"): it is no number, though its lines are.
    if joined.count("\n") != len(present) or not _NUMBER_LINES.fullmatch(joined):
        return None
    values = np.array(present, dtype=np.float64)
    if len(present) == len(texts):
        return values
    out = np.full(len(texts), np.nan)
    out[np.array([t is not None for t in texts])] = values
    return out


def _check_range(
    table: RawTable, j: int, col: np.ndarray, name: str, float32: bool, hint: str = ""
) -> None:
    """Reject a finite literal whose value the model cannot hold (:func:`beyond_range`).
    ``inf``/``nan`` words never get here: they are not numbers."""
    bad = beyond_range(col, float32)
    if not bad.any():
        return
    row = table.rows[int(np.argmax(bad))]
    text = row.values[j]
    assert text is not None
    raise _err(table, row, j, range_message(f"'{shorten(text)}'", name, float32, hint))


def _err(table: RawTable, row: RawRow, j: int, msg: str) -> DatasetError:
    return DatasetError(msg, file=table.path, line=row.line, col=row.col(j))


def _encode_continuous(table: RawTable, j: int, name: str, float32: bool) -> np.ndarray:
    out = _numbers(table, j)
    if out is None:
        out = np.full(len(table.rows), np.nan)
        for r, row in enumerate(table.rows):
            text = row.values[j]
            if text is None:
                continue
            value = parse_number(text)
            if value is None:
                # Other tools' missing markers ('NA', 'NaN', ...) are numbers to no one
                # here, nor missing: say how treegen writes one.
                hint = (
                    "; write '?' for an unknown value"
                    if text.lower() in _MARKERS
                    else "; its decimal point is '.', with no thousands separator"
                    if comma_number(text.strip())
                    else ""
                )
                raise _err(
                    table,
                    row,
                    j,
                    f"'{shorten(text)}' is not a finite number "
                    f"(attribute '{name}' is continuous{hint})",
                )
            out[r] = value
    _check_range(table, j, out, name, float32)
    return out


def _encode_nominal(
    table: RawTable, j: int, name: str, values: Sequence[str], unknown_is_missing: bool
) -> np.ndarray:
    index = {v: i for i, v in enumerate(values)}
    out = np.full(len(table.rows), np.nan)
    for r, row in enumerate(table.rows):
        text = row.values[j]
        if text is None:
            continue
        code = index.get(text)
        if code is None:
            if unknown_is_missing:
                continue
            raise _err(table, row, j, f"value '{text}' is not declared for attribute '{name}'")
        out[r] = code
    return out


def _first_seen(table: RawTable, j: int, name: str, limit: int) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for row in table.rows:
        text = row.values[j]
        if text is not None and text not in seen:
            seen[text] = None
            if limit and len(seen) > limit:
                raise _err(
                    table,
                    row,
                    j,
                    f"attribute '{name}' is declared 'discrete {limit}' "
                    f"but this is value number {len(seen)}: '{text}'",
                )
    return tuple(seen)


def _encode_classes(
    table: RawTable,
    classes: Sequence[str],
    allow_missing: bool,
) -> np.ndarray:
    j = table.class_index
    index = {c: i for i, c in enumerate(classes)}
    y = np.empty(len(table.rows), dtype=np.int32)
    for r, row in enumerate(table.rows):
        text = row.values[j]
        if text is None:
            if not allow_missing:
                raise _err(table, row, j, "class value is missing ('?' or empty)")
            y[r] = -1
            continue
        code = index.get(text)
        if code is None:
            raise _err(table, row, j, f"undeclared class '{text}' (classes: {', '.join(classes)})")
        y[r] = code
    return y


def _require_rows(table: RawTable) -> None:
    if not table.rows:
        raise DatasetError("no data rows", file=table.path, line=table.end_line)


def build_dataset(
    table: RawTable,
    *,
    nominal: Sequence[str] = (),
    ignore: Sequence[str] = (),
    target: str = "class",
    float32: bool = False,
) -> Dataset:
    """Encode a training table: infer or check every column, classes from the file.

    ``float32``: continuous values must fit a float32 (data for the c45 flavor), not
    only a double."""
    cls_col = table.columns[table.class_index]
    if len(table.columns) < 2:
        # Often a separator the file does not use; nothing for a tree to test either way.
        raise DatasetError(
            f"no attributes: the class '{cls_col.name}' is the only column "
            "(a tree needs at least one attribute)",
            file=table.path,
            line=cls_col.line,
            col=cls_col.col,
        )
    _require_rows(table)
    names = [c.name for c in table.columns]
    for opt, given in (("--nominal", nominal), ("--ignore", ignore)):
        for name in given:
            if name not in names:
                raise DatasetError(
                    f"{opt}: names '{name}', which is not a column of this file "
                    f"(its columns, spelt for {opt}: {', '.join(map(option_name, names))})",
                    file=table.path,
                )
    if cls_col.name in ignore:
        raise DatasetError(f"the class column '{cls_col.name}' cannot be ignored", file=table.path)
    labels = "str"
    if cls_col.kind == "nominal":
        classes = cls_col.values
    elif cls_col.kind in ("open", "infer") or (
        cls_col.kind == "continuous" and cls_col.name in nominal
    ):
        classes, labels = label_order(_first_seen(table, table.class_index, cls_col.name, 0))
    else:
        raise DatasetError(
            f"the class attribute '{cls_col.name}' must be nominal, not "
            f"{cls_col.kind} (use --nominal {option_name(cls_col.name)} to treat its values "
            f"as labels)",
            file=table.path,
            line=cls_col.line,
            col=cls_col.col,
        )
    if not classes:
        raise DatasetError("no class values", file=table.path, line=cls_col.line, col=cls_col.col)
    y = _encode_classes(table, classes, allow_missing=False)

    attributes: list[Attribute] = []
    columns: list[np.ndarray] = []
    for j, c in enumerate(table.columns):
        if j == table.class_index:
            continue
        kind = column_kind(c, nominal, ignore)
        if kind == "reject":
            raise DatasetError(
                f"attribute '{c.name}': {c.reject_reason} "
                f"(use --ignore {option_name(c.name)} to skip it)",
                file=table.path,
                line=c.line,
                col=c.col,
            )
        numbers = _numbers(table, j) if kind == "infer" else None
        if kind == "infer":
            kind = "continuous" if numbers is not None else "open"
        if numbers is not None:
            _check_range(
                table,
                j,
                numbers,
                c.name,
                float32,
                f"; --nominal {option_name(c.name)} reads the column as labels",
            )
            attributes.append(Attribute(c.name, "continuous"))
            columns.append(numbers)
        elif kind == "ignore":
            attributes.append(Attribute(c.name, "ignore"))
            columns.append(np.full(len(table.rows), np.nan))
        elif kind == "continuous":
            attributes.append(Attribute(c.name, "continuous"))
            columns.append(_encode_continuous(table, j, c.name, float32))
        else:
            values = c.values if kind == "nominal" else _first_seen(table, j, c.name, c.max_values)
            attributes.append(Attribute(c.name, "nominal", values))
            columns.append(_encode_nominal(table, j, c.name, values, unknown_is_missing=False))
    schema = Schema(tuple(attributes), tuple(classes), target)
    weights = table.weights()
    return Dataset(
        schema,
        _stack(columns, len(table.rows)),
        y,
        table.path,
        labels,
        None if weights is None else np.asarray(weights, dtype=np.float64),
    )


def _unnamed(schema: Schema) -> str:
    """Where a model fitted on an array gets its features' names, which its library
    calls otherwise (XGBoost f0, LightGBM Column_0): a header must use treegen's."""
    n = len(schema.attributes)
    if [a.name for a in schema.attributes] != default_names(n):
        return ""
    called = "x0" if n == 1 else f"x0 to x{n - 1}"
    return (
        "; the model's features have no names (fitted on an array): treegen calls them "
        f"{called}, in its order"
    )


def map_onto_schema(
    table: RawTable, schema: Schema, *, by_name: bool, float32: bool = False
) -> Dataset:
    """Encode a table with a model's schema (evaluation / prediction data).

    Columns are matched by name (CSV, ARFF) or by position (C4.5).  Nominal
    values the model never saw become missing, as C4.5 does for a value it
    cannot place; a missing class (or no class column) is encoded as -1.
    ``float32`` as for :func:`build_dataset` (the model compares float32 values).
    """
    _require_rows(table)
    names = [c.name for c in table.columns]
    sources: list[int] = []
    for i, a in enumerate(schema.attributes):
        if not by_name:
            sources.append(i)
        elif a.name in names:
            sources.append(names.index(a.name))
        elif a.kind == "ignore":
            sources.append(-1)
        else:
            raise DatasetError(
                f"column '{a.name}' that the model uses is missing "
                f"(columns: {', '.join(names)}){_near(a.name, names)}" + _unnamed(schema),
                file=table.path,
                line=table.columns[0].line if table.columns else None,
            )
    columns: list[np.ndarray] = []
    for a, j in zip(schema.attributes, sources, strict=True):
        if a.kind == "ignore" or j < 0:
            columns.append(np.full(len(table.rows), np.nan))
        elif a.kind == "continuous":
            columns.append(_encode_continuous(table, j, a.name, float32))
        else:
            columns.append(_encode_nominal(table, j, a.name, a.values, unknown_is_missing=True))
    if table.class_index >= 0:
        y = _encode_classes(table, schema.classes, allow_missing=True)
    else:
        y = np.full(len(table.rows), -1, dtype=np.int32)
    weights = table.weights()  # an ARFF file's instance weights, when they were read
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return Dataset(schema, _stack(columns, len(table.rows)), y, table.path, weights=w)


def _near(name: str, names: list[str]) -> str:
    """A hint naming the file's column that is ``name`` written another way, or ""."""
    # Names that differ only in surrounding spaces print alike in the list.
    near = [n for n in names if n.strip() == name.strip()]
    if near:
        return (
            f"; the file's '{near[0]}' differs from it only in the spaces around it "
            '(a CSV header keeps them in "..." quotes)'
        )
    # LightGBM stores a feature name with its spaces replaced by '_' (and says so only
    # in a warning when it trains), so its model names no column of the data it fit.
    near = [n for n in names if " " in n and n.replace(" ", "_") == name]
    if near:
        return (
            f"; the file's '{near[0]}' is it with '_' for its spaces, as LightGBM writes a "
            "feature name (rename the column, or import with --feature-names)"
        )
    return ""


def _stack(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    if not columns:
        return np.empty((n_rows, 0), dtype=np.float64)
    return np.ascontiguousarray(np.column_stack(columns), dtype=np.float64)
