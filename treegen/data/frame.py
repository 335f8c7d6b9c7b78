"""``X`` as scikit-learn accepts it -> treegen's float matrix (NaN = missing, codes).

scikit-learn validates input with ``check_array``; treegen must not depend on
it, so this module does the same checks with the same messages (the ones
``check_estimator`` looks for): no sparse or complex input, 2-d, no infinity,
at least one row and one column, string feature names only.  A pandas
DataFrame is recognised by its attributes, so pandas is not imported either.

A DataFrame's columns are matched to a model's attributes by name
(:func:`rows_by_name`), as scikit-learn matches ``feature_names_in_``, and trained on
with its names and its categorical or text columns as nominal
(:func:`training_arrays`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Schema
from treegen.errors import EstimatorError, EstimatorTypeError, UsageError

# The column kinds pandas reports for a categorical column.
_CATEGORICAL = "category"


def is_missing(value: object) -> bool:
    """None, a float NaN, or pandas' NA/NaT: an unknown value of a nominal column."""
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return math.isnan(float(value))
    return type(value).__name__ in ("NAType", "NaTType")


def _is_frame(X: object) -> bool:
    return all(hasattr(X, a) for a in ("columns", "dtypes", "iloc"))


def feature_names(X: object) -> list[str] | None:
    """The column names of a DataFrame when all are strings (scikit-learn's rule), else None."""
    if not _is_frame(X):
        return None
    frame: Any = X
    names = list(frame.columns)
    kinds = sorted({type(n).__name__ for n in names})
    if all(isinstance(n, str) for n in names):
        return [str(n) for n in names]
    if any(isinstance(n, str) for n in names):
        raise EstimatorError(
            "Feature names are only supported if all input features have string names, "
            f"but your input has {kinds} as feature name / column name types. If you want "
            "feature names to be stored and validated, you must convert them all to strings",
            option="X",
        )
    return None


@dataclass(frozen=True, slots=True)
class Columns:
    """``X`` split into columns: object or numeric arrays, and which are categorical."""

    columns: list[npt.NDArray[np.generic]]
    categorical: dict[int, tuple[object, ...]]  # pandas categories of categorical columns
    n_rows: int


# What a scipy sparse matrix or array is told, by every reader of X (known by its
# methods: scipy is not imported).
SPARSE = "sparse input is not supported: pass a dense array (its toarray())"


def is_sparse(X: object) -> bool:
    return hasattr(X, "toarray") or hasattr(X, "tocsr")


def _reject(X: object) -> None:
    if is_sparse(X):
        raise EstimatorError(SPARSE, option="X")
    if X is None:
        raise EstimatorError("Expected 2D array, got None", option="X")


def columns(X: object) -> Columns:
    """The columns of ``X`` with the shape checks scikit-learn makes."""
    _reject(X)
    if _is_frame(X):
        frame: Any = X
        ncols = len(frame.columns)
        cols: list[npt.NDArray[np.generic]] = []
        categorical: dict[int, tuple[object, ...]] = {}
        iloc = frame.iloc
        for j in range(ncols):
            series = iloc[:, j]
            if getattr(series.dtype, "name", "") == _CATEGORICAL:
                categorical[j] = tuple(series.cat.categories)
                cols.append(np.asarray(series.astype(object), dtype=object))
            else:
                cols.append(np.asarray(series.to_numpy()))
        nrows = len(frame)
        return _checked(Columns(cols, categorical, nrows), ncols)
    arr = np.asarray(X)
    if arr.ndim == 0 or arr.ndim == 1:
        raise EstimatorError(
            f"Expected 2D array, got {'scalar' if arr.ndim == 0 else '1D'} array instead: "
            "Reshape your data with array.reshape(-1, 1) if it has a single feature or "
            "array.reshape(1, -1) if it contains a single sample",
            option="X",
        )
    if arr.ndim != 2:
        raise EstimatorError(f"Found array with dim {arr.ndim}. Expected <= 2.", option="X")
    return _checked(
        Columns([arr[:, j] for j in range(arr.shape[1])], {}, arr.shape[0]), arr.shape[1]
    )


def _checked(cols: Columns, ncols: int) -> Columns:
    if cols.n_rows < 1:
        raise EstimatorError(
            f"Found array with 0 sample(s) (shape=({cols.n_rows}, {ncols})) "
            "while a minimum of 1 is required.",
            option="X",
        )
    if ncols < 1:
        raise EstimatorError(
            f"Found array with 0 feature(s) (shape=({cols.n_rows}, 0)) "
            "while a minimum of 1 is required.",
            option="X",
        )
    for col in cols.columns:
        if col.dtype.kind == "c":
            raise EstimatorError("Complex data not supported", option="X")
    return cols


# Why a Python int is no float64 (numpy's OverflowError), in the errors that say so.
BEYOND_DOUBLE = "an integer is beyond a double's range"


def float64_of(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``values`` as float64, or numpy's TypeError or ValueError where they are no
    numbers; complex values are a TypeError too (``np.asarray`` would drop their
    imaginary part), and so are datetime64 and timedelta64 values (numpy casts their
    ticks, whose unit a model would not record: the same times in another unit would
    be other numbers), and a ValueError a Python int past a double's range (numpy's
    OverflowError, which the callers would not expect)."""
    # The dtype as np.iscomplexobj reads it, but not through __array_function__, which
    # an array-like of __array__ alone (scikit-learn's check of weights) refuses.
    dtype = getattr(values, "dtype", None)
    if getattr(dtype if dtype is not None else np.asarray(values).dtype, "kind", "") == "c":
        raise TypeError("complex")
    # A DataFrame's columns' dtypes; a Series' `dtypes` is its one dtype, not a list.
    kinds = getattr(values, "dtypes", None) if getattr(values, "ndim", 0) == 2 else None
    for dtype in [getattr(values, "dtype", None), *([] if kinds is None else list(kinds))]:
        if getattr(dtype, "kind", "") in ("M", "m"):
            raise TypeError(
                f"{dtype} values are times, not numbers: give them as numbers in one unit "
                "(say, seconds since an epoch)"
            )
    try:
        return np.asarray(values, dtype=np.float64)
    except OverflowError:
        raise ValueError(BEYOND_DOUBLE) from None


def ragged(values: object) -> str | None:
    """Why ``values``, a list or tuple, is no table: its items' shapes differ (numpy's
    "inhomogeneous shape" ValueError says so at length), or it is an ``(X, y)`` pair
    where the rows alone are asked for.  None where its items' shapes agree."""
    if not isinstance(values, list | tuple) or len(values) < 2:
        return None
    try:
        shapes = [np.shape(v) for v in values]
    except ValueError:  # an item ragged in itself
        return "its rows are not all lists of the same length"
    if len(set(shapes)) == 1:
        return None
    if len(values) == 2 and len(shapes[0]) == 2 and shapes[1] == shapes[0][:1]:
        return "is a pair (X, y): give the rows X alone (no labels are read here)"
    lengths = sorted({s[0] if s else 1 for s in shapes if len(s) <= 1})
    if len(lengths) > 1 and all(len(s) <= 1 for s in shapes):
        shown = ", ".join(map(str, lengths[:3])) + (", ..." if len(lengths) > 3 else "")
        return f"its rows have different lengths ({shown} values)"
    return f"its items have different shapes ({', '.join(map(str, sorted(set(shapes))[:3]))})"


def continuous(col: npt.NDArray[np.generic], name: str) -> npt.NDArray[np.float64]:
    """A numeric column as float64 (NaN missing); infinity is refused, as check_array
    does, and a value that is no number is an error naming the column ``name``."""
    if col.dtype.kind == "O":
        # float() of None is a TypeError; None is scikit-learn's missing value here too.
        col = np.asarray([np.nan if is_missing(v) else v for v in col], dtype=object)
    try:
        out = float64_of(col)
    except (TypeError, ValueError) as exc:
        kind = EstimatorTypeError if isinstance(exc, TypeError) else EstimatorError
        raise kind(
            f"column {name} must hold numbers (NaN for missing): {exc}", option="X"
        ) from None
    if np.any(np.isinf(out)):
        raise EstimatorError(
            "Input X contains infinity or a value too large for dtype('float64').", option="X"
        )
    return out


def categories_of(
    col: npt.NDArray[np.generic], declared: tuple[object, ...] | None
) -> tuple[object, ...]:
    """A nominal column's values in code order: pandas' categories, or the sorted known values."""
    if declared is not None:
        return declared
    known = {v.item() if isinstance(v, np.generic) else v for v in col if not is_missing(v)}
    try:
        values = sorted(known)
    except TypeError:  # values of mixed types: order by type, then by text
        values = sorted(known, key=lambda v: (type(v).__name__, str(v)))
    if len({value_name(v) for v in values}) != len(values):
        raise EstimatorError("two values of a nominal column print the same", option="nominal")
    return tuple(values) if values else ("?",)


def value_name(value: object) -> str:
    """A nominal value's name in the model: integral floats print as integers (2.0 -> "2"),
    so a column of codes 0..k-1 gets the names :func:`treegen.train` gives it."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def codes(col: npt.NDArray[np.generic], values: Sequence[object]) -> npt.NDArray[np.float64]:
    """A nominal column as codes into ``values``; missing and unseen values are NaN."""
    index = {v: float(i) for i, v in enumerate(values)}
    out = np.empty(col.shape[0], dtype=np.float64)
    for i, v in enumerate(col):
        key = v.item() if isinstance(v, np.generic) else v
        out[i] = np.nan if is_missing(key) else index.get(key, np.nan)
    return out


def is_frame(X: object) -> bool:
    """Whether ``X`` is a DataFrame (recognised by its attributes, pandas is not imported)."""
    return _is_frame(X)


def default_names(n: int) -> list[str]:
    """The feature names of arrays given none: ``x0``, ``x1``, ..."""
    return [f"x{j}" for j in range(n)]


def fitted_with_names(schema: Schema) -> bool:
    """Whether a model's features were named by its data (a file's header, a DataFrame's
    columns, ``feature_names``), not the defaults arrays get."""
    names = [a.name for a in schema.attributes]
    return names != default_names(len(names))


def rows_by_name(X: object, schema: Schema) -> npt.NDArray[np.float64] | None:
    """A DataFrame's (or a ``{name: column}`` mapping's) rows as the model's feature
    matrix, its columns taken by name in the model's order (None when ``X`` is neither,
    or a DataFrame without string column names).  A column
    the model lacks, or one it needs that ``X`` lacks, is an error naming them; one it
    ignores may be left out, as a data file may leave it out.  A nominal
    column holds the model's value names (or their codes 0..k-1); a value it never saw
    is missing, as in a data file."""
    names: list[str] | None
    if isinstance(X, Mapping):
        # {name: column}: named columns without pandas.
        names = [str(n) for n in X]
        data: list[npt.NDArray[np.generic]] = [np.asarray(v) for v in X.values()]
        lengths = {c.shape[0] if c.ndim == 1 else -1 for c in data}
        if len(lengths) != 1 or -1 in lengths:
            raise UsageError("the columns of a mapping must be 1-d and of one length", option="X")
        n_rows = lengths.pop()
    else:
        names = feature_names(X)
        if names is None:
            return None
        cols = columns(X)
        data, n_rows = cols.columns, cols.n_rows
    wanted = [a.name for a in schema.attributes]
    missing = [a.name for a in schema.attributes if a.name not in names and a.kind != "ignore"]
    unknown = [n for n in names if n not in wanted]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"lacks the model's feature(s) {', '.join(map(repr, missing))}")
        if unknown:
            parts.append(
                f"has feature(s) the model was not trained on: {', '.join(map(repr, unknown))}"
            )
        raise UsageError("; and ".join(parts), option="X")
    x = np.empty((n_rows, len(wanted)), dtype=np.float64)
    for j, a in enumerate(schema.attributes):
        if a.kind == "ignore":  # present or not, never read
            x[:, j] = np.nan
        elif a.is_nominal:
            x[:, j] = _nominal_codes(data[names.index(a.name)], a.values)
        else:
            x[:, j] = continuous(data[names.index(a.name)], repr(a.name))
    return x


def _nominal_codes(col: npt.NDArray[np.generic], values: Sequence[str]) -> npt.NDArray[np.float64]:
    """A column of value names (or codes) as codes into ``values``; others are NaN."""
    index = {v: float(i) for i, v in enumerate(values)}
    out = np.empty(col.shape[0], dtype=np.float64)
    for i, v in enumerate(col):
        key = v.item() if isinstance(v, np.generic) else v
        if is_missing(key):
            out[i] = np.nan
        elif value_name(key) in index:
            out[i] = index[value_name(key)]
        elif isinstance(key, int | float) and float(key).is_integer() and 0 <= key < len(values):
            out[i] = float(key)  # a code, as arrays give nominal values
        else:
            out[i] = np.nan
    return out


@dataclass(frozen=True, slots=True)
class TrainingArrays:
    """A DataFrame as :func:`treegen.train` trains on it: the float matrix, the column
    names, which columns are nominal and the names of their values in code order."""

    x: npt.NDArray[np.float64]
    names: list[str] | None
    nominal: list[int]
    categories: dict[int, list[str]]


def column_index(ref: object, n: int, names: Sequence[str] | None) -> int:
    """The column of ``n`` that ``nominal``'s ``ref`` names: a feature's name (of
    ``names``; None: the columns have none), or an index 0..n-1, never negative (as
    scikit-learn's ``categorical_features`` takes them), a bool or a float.  The one
    rule of :func:`treegen.train`'s ``nominal`` (of arrays and of a DataFrame) and
    ``C45Classifier``'s."""
    if isinstance(ref, str):
        if names is None or ref not in names:
            raise UsageError(f"no feature named '{ref}'", option="nominal")
        return list(names).index(ref)
    if isinstance(ref, bool) or not isinstance(ref, int | np.integer):
        raise UsageError(
            f"column {ref!r} is no column index (0..{n - 1}) or feature name", option="nominal"
        )
    if not 0 <= ref < n:
        raise UsageError(f"column {ref} is out of range (0..{n - 1})", option="nominal")
    return int(ref)


def training_arrays(X: object, nominal: Sequence[int | str] = ()) -> TrainingArrays:
    """``X`` (a DataFrame) to train on: its string column names, its categorical and text
    columns nominal (with the columns named or numbered in ``nominal``), each nominal
    column's values sorted (pandas' categories in their order)."""
    names = feature_names(X)
    cols = columns(X)
    chosen = set(cols.categorical)
    for j, col in enumerate(cols.columns):
        if col.dtype.kind in "OUSb":
            chosen.add(j)
    for ref in nominal:  # (int() took 1.7 as column 1; a column past the last: IndexError)
        chosen.add(column_index(ref, len(cols.columns), names))
    categories = {j: categories_of(cols.columns[j], cols.categorical.get(j)) for j in chosen}
    x = np.empty((cols.n_rows, len(cols.columns)), dtype=np.float64)
    for j, col in enumerate(cols.columns):
        if j in categories:
            x[:, j] = codes(col, categories[j])
        else:
            x[:, j] = continuous(col, repr(names[j]) if names is not None else str(j))
    named = {j: [value_name(v) for v in vs] for j, vs in categories.items()}
    return TrainingArrays(x, names, sorted(chosen), named)
