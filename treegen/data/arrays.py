"""A :class:`~treegen.data.dataset.Dataset` from numpy arrays (``treegen.train((X, y))``).

The array counterpart of the file readers: ``X`` is ``(n_rows, n_features)``
with NaN for a missing value, nominal columns hold codes 0..k-1, ``y`` holds
labels of any type (or codes into ``class_names``).  :func:`label_kind` is
the one rule for how a label type is recorded, and :func:`label_names` for how
labels become class names, for arrays and for imported scikit-learn, XGBoost and
LightGBM classifiers alike.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Attribute, Dataset, Schema, beyond_range, range_message
from treegen.data.frame import SPARSE, column_index, float64_of, is_missing, is_sparse, ragged
from treegen.errors import DatasetError, UsageError


def label_kind(y: npt.NDArray[np.generic]) -> str:
    """How labels of ``y``'s dtype are recorded in a model file (``"labels"``), so
    predictions come back as the type they were given in: bool, int (numpy's, or an
    object array of Python ints), float, bytes (numpy's ``S`` dtype, or an object array
    of bytes) or str."""
    if y.dtype == np.bool_:
        return "bool"
    if y.dtype.kind == "S" or (
        y.dtype.kind == "O" and y.size > 0 and all(isinstance(v, bytes) for v in y.flat)
    ):
        return "bytes"
    if np.issubdtype(y.dtype, np.integer) or (
        # Python ints past int64, which numpy holds as objects
        y.dtype.kind == "O"
        and y.size > 0
        and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in y.flat)
    ):
        return "int"
    if np.issubdtype(y.dtype, np.floating):
        return "float"
    return "str"


def label_names(values: Sequence[object], option: str) -> tuple[str, ...]:
    """The class names of the labels ``values`` (``np.unique``'s, in order): each as
    text, bytes decoded from UTF-8 (``b"a"`` is class ``a`` in the printed tree and the
    C; :data:`~treegen.model.options.LABEL_TYPES` encodes it back, so that predict
    returns ``b"a"``).  Bytes that are no UTF-8 text are an error naming ``option``."""
    names = []
    for v in values:
        if not isinstance(v, bytes):
            try:
                names.append(str(v))
            except ValueError:  # an int of more digits than Python writes out
                raise DatasetError(
                    f"a label is an integer of more than {sys.get_int_max_str_digits():,} "
                    "digits, more than Python writes as text: give shorter labels",
                    option=option,
                ) from None
            continue
        try:
            names.append(v.decode("utf-8"))
        except UnicodeDecodeError:
            raise DatasetError(
                f"the label {v!r} is no UTF-8 text: give labels as str, or bytes of UTF-8 text",
                option=option,
            ) from None
    return tuple(names)


# The most values a nominal column of codes declares when categories= does not name
# them: every code up to the largest is one (a declared value seen in no row), and a
# value is a name, a count per class at every node and a branch of the C.
MAX_UNNAMED_VALUES = 2**16


def check_column_name(name: object, option: str) -> None:
    """``name``, a column's name (``target``, ``weight_column``), is a str or None, else a
    UsageError naming ``option`` (an array was compared with each column's name, and
    numpy refused its truth)."""
    if name is not None and not isinstance(name, str):
        raise UsageError(f"must be a str, got {name!r}", option=option)


def check_import_names(feature_names: object, target: object) -> None:
    """Every importer's ``feature_names`` (None or a collection of names) and ``target``
    (a str), else a UsageError naming it: checked before the model is read, where a
    float's TypeError or target's AttributeError was blamed on the model ("not a fitted
    estimator treegen can read"), and a str named the columns by its letters."""
    if isinstance(feature_names, str) or not isinstance(feature_names, Iterable | type(None)):
        raise UsageError(f"must be a list of names, got {feature_names!r}", option="feature_names")
    if not isinstance(target, str):  # (here no None: an imported model names its class)
        raise UsageError(f"must be a str, got {target!r}", option="target")


def column_list(columns: object, option: str) -> list[Any]:
    """``nominal``'s or ``ignore``'s columns (of :func:`treegen.train` and
    ``C45Classifier``) as a list, from any collection of them; a str is refused (iterated,
    "mode" was the columns m, o, d and e), and so is a number or None, naming ``option``."""
    if isinstance(columns, str):
        raise UsageError(f"must be a list of columns: [{columns!r}]", option=option)
    if isinstance(columns, bytes) or not isinstance(columns, Iterable):
        raise UsageError(f"must be a list of columns, got {columns!r}", option=option)
    return list(columns)


def _unique_labels(
    labels: npt.NDArray[np.generic],
) -> tuple[npt.NDArray[np.generic], npt.NDArray[np.intp]]:
    """``np.unique(labels, return_inverse=True)``; a missing label (None, NaN, pandas'
    NA) or labels of types that do not sort together is an error naming ``y``."""
    if labels.dtype.kind == "O" and any(is_missing(v) for v in labels):
        raise DatasetError("y has a missing label (None, NaN or NA): every row needs one")
    try:
        return np.unique(labels, return_inverse=True)
    except TypeError:  # np.unique sorts: '<' between, say, a str and an int
        kinds = ", ".join(sorted({type(v).__name__ for v in labels}))
        raise DatasetError(
            f"y mixes label types ({kinds}) that do not sort together: give labels of one type"
        ) from None


def dataset_from_arrays(
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    feature_names: Sequence[str] | None = None,
    nominal: Sequence[int | str] = (),
    class_names: Sequence[str] | None = None,
    target: str | None = None,
    categories: Mapping[int, Sequence[str]] | None = None,
    float32: bool = False,
) -> tuple[Dataset, str]:
    """A :class:`Dataset` from arrays, and the label kind to record.

    ``nominal`` columns hold codes 0..k-1 (NaN missing); every code up to the
    largest seen is a declared value, named by its number unless
    ``categories`` (column index -> value names) names a column's values.
    With ``class_names``, ``y`` holds codes into it; otherwise the classes
    are ``np.unique(y)``.  A continuous value beyond a double's range, or with
    ``float32`` (a c45 model's data) beyond float32's, is refused as a data file's is.
    """
    if is_sparse(X):
        raise DatasetError(SPARSE, option="X")
    try:
        x = np.array(float64_of(X))  # a copy: the Dataset holds no array of the caller's
    except (TypeError, ValueError) as exc:
        why = ragged(X)
        if why is not None:
            raise DatasetError(why, option="X") from None
        raise DatasetError(
            f"must hold numbers (NaN for missing): {exc}; a nominal column holds codes "
            "0..k-1 (nominal=, with categories= naming them), or give a DataFrame",
            option="X",
        ) from None
    try:
        labels = np.asarray(y)
    except ValueError:  # ragged: labels of different lengths, numpy's "inhomogeneous"
        raise DatasetError(
            "must be one label per row, not lists of different lengths", option="y"
        ) from None
    if x.ndim != 2:
        raise DatasetError(
            f"must be a 2-d array (rows by columns), got shape {x.shape}", option="X"
        )
    if labels.shape != (x.shape[0],):
        raise DatasetError(
            f"must be one label per row of X: shape ({x.shape[0]},), got {labels.shape}",
            option="y",
        )
    if feature_names is not None and not isinstance(feature_names, Iterable):
        raise DatasetError(f"feature_names must be {x.shape[1]} distinct non-empty strs")
    names = (
        list(feature_names) if feature_names is not None else [f"x{j}" for j in range(x.shape[1])]
    )
    if (
        isinstance(feature_names, str)
        or len(names) != x.shape[1]
        or not all(isinstance(n, str) and n for n in names)
        or len(set(names)) != len(names)
    ):
        raise DatasetError(f"feature_names must be {x.shape[1]} distinct non-empty strs")
    check_column_name(target, "target")
    if (target or "class") in names:  # eval would read that feature's column as the class
        raise UsageError(
            f"'{target or 'class'}' cannot name the class column: it is a feature's name "
            "(give target=NAME)",
            option="target",
        )
    kinds = {column_index(ref, len(names), names) for ref in nominal}
    plain = sorted(set(categories or ()) - kinds)
    if plain:  # dropped silently, the column stayed continuous
        raise UsageError(
            f"column {plain[0]} is not nominal: list it in nominal", option="categories"
        )
    attrs = []
    for j, name in enumerate(names):
        col = x[:, j]
        if j not in kinds:
            bad = beyond_range(col, float32)
            if bad.any():
                r = int(np.argmax(bad))
                msg = range_message(repr(float(col[r])), name, float32)
                raise DatasetError(f"row {r + 1}: {msg}", option="X")
            attrs.append(Attribute(name, "continuous"))
            continue
        known = col[~np.isnan(col)]
        if known.size and (np.any(known < 0) or np.any(known != np.floor(known))):
            raise DatasetError(
                f"nominal feature '{name}' must hold codes 0, 1, 2, ... (NaN for missing)"
            )
        k = int(known.max()) + 1 if known.size else 1
        if categories is not None and j in categories:
            named = tuple(str(v) for v in categories[j])
            if k > len(named) or len(set(named)) != len(named) or not all(named):
                raise DatasetError(
                    f"nominal feature '{name}' needs {k} distinct non-empty value names, "
                    f"got {named!r}"
                )
            attrs.append(Attribute(name, "nominal", named))
            continue
        if k > MAX_UNNAMED_VALUES:  # each code up to it a value: 2**64 of them never ended
            raise DatasetError(
                f"nominal feature '{name}' holds code {k - 1}: codes without categories= "
                f"naming them go up to {MAX_UNNAMED_VALUES - 1}",
                option="X",
            )
        attrs.append(Attribute(name, "nominal", tuple(str(v) for v in range(k))))
    if class_names is not None:
        if isinstance(class_names, str) or not isinstance(class_names, Iterable):
            # a str was its letters: class_names="ab" trained the classes 'a' and 'b'
            raise DatasetError(f"class_names must be a list of names, got {class_names!r}")
        classes = tuple(str(c) for c in class_names)
        if not all(classes) or len(set(classes)) != len(classes):
            raise DatasetError(f"class_names must be distinct and non-empty, got {classes!r}")
        try:
            codes = float64_of(labels)
        except (TypeError, ValueError):  # labels that are no numbers, so no codes
            codes = np.full(labels.shape, np.nan)
        if (
            np.any(np.isnan(codes))
            or np.any(codes < 0)
            or np.any(codes >= len(classes))
            or np.any(codes != np.floor(codes))
        ):
            raise DatasetError(f"with class_names, y must hold codes 0..{len(classes) - 1}")
        ycodes = codes.astype(np.int32)
        kind = "str"
    else:
        if labels.dtype.kind == "f" and np.any(np.isnan(labels)):
            raise DatasetError("y has a missing (NaN) label")
        values, inverse = _unique_labels(labels)
        classes = label_names(values.tolist(), "y")
        if len(set(classes)) != len(classes):
            raise DatasetError("two labels of y print the same; pass class_names")
        if not all(classes):
            raise DatasetError("y has an empty label (''): every class needs a name")
        ycodes = inverse.astype(np.int32).reshape(-1)
        kind = label_kind(labels)
    schema = Schema(tuple(attrs), classes, target or "class")
    return Dataset(schema, x, ycodes, labels=kind), kind
