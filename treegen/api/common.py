"""What :class:`~treegen.api.Model`'s methods take and return, whatever the kind.

The path type and its check, :class:`VerifyReport` (what ``verify`` returns), the labels a model
predicts, and the rows ``X`` it classifies: a data file read as ``treegen predict``
reads it, or an array.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.data import frame
from treegen.data.dataset import Dataset, Schema
from treegen.data.filekind import DATA_WANTED, wrong_for_data
from treegen.data.readers import read_dataset
from treegen.errors import TreegenError, UsageError, users_stacklevel
from treegen.model.options import LABEL_TYPES, ModelOptions
from treegen.verify.report import Report

PathLike = str | os.PathLike[str]

Rows = npt.ArrayLike | Mapping[str, npt.ArrayLike] | PathLike
"""Rows to classify: an array (columns in the model's order), a DataFrame or a
``{name: column}`` mapping (columns by name), or a data file's path."""


def path_of(value: object, argument: str) -> str:
    """``value``, a path argument, as a str; anything but a str or ``os.PathLike`` is a
    :class:`UsageError` naming ``argument`` (``os.fspath``'s TypeError named none)."""
    if isinstance(value, str | os.PathLike):
        path: str = os.fspath(value)
        if isinstance(path, str) and "\0" in path:  # no file's name: open() raised ValueError
            raise UsageError(f"must be a path, got {path!r}: it holds a NUL", option=argument)
        return path
    raise UsageError(
        f"must be a path (a str or os.PathLike), got {type(value).__name__}", option=argument
    )


def data_path(value: object, argument: str, reader: str, *, named: bool = False) -> str:
    """``value`` as the path of a data file that ``reader`` (a function's name) reads:
    :func:`path_of`, and a file whose content is no data (a model, a pickle, C source)
    is named as what it is, as the CLI names it, not left to the reader's confusion.
    ``named``: the message starts with ``argument``."""
    path = path_of(value, argument)
    wrong = wrong_for_data(path)
    if wrong is not None:
        raise UsageError(
            f"{wrong[0]} is {wrong[1].name}; {reader} reads {DATA_WANTED}",
            option=argument if named else None,
        )
    return path


def labels_of(
    schema: Schema, options: ModelOptions | Mapping[str, object]
) -> npt.NDArray[np.generic]:
    """The labels a model or ruleset predicts, in class order: its class names, as the
    type of the ``y`` it was trained on where it records one (``np.unique(y)``).
    ``options``: a tree's record, or another kind's ``"options"`` object."""
    if isinstance(options, ModelOptions):
        kind = options.labels
    else:
        kind = str(options.get("labels", "str"))
    convert = LABEL_TYPES.get(kind, str)
    values = [convert(c) for c in schema.classes]
    return np.asarray(values) if kind != "str" else np.asarray(values, dtype=object)


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What :meth:`Model.verify` found: rows that agree, rows that differ, the first few."""

    passed: int
    failed: int
    mismatches: tuple[str, ...]
    text: str

    @property
    def ok(self) -> bool:
        return self.failed == 0

    @classmethod
    def of(cls, report: Report) -> VerifyReport:
        return cls(
            passed=report.rows - report.failed_rows,
            failed=report.failed_rows,
            mismatches=tuple(report.mismatches),
            text=report.text(),
        )


def unlabelled(schema: Schema, x: npt.NDArray[np.float64] | None) -> list[Dataset]:
    """``verify``'s data rows as a dataset without classes (none when ``x`` is None)."""
    if x is None:
        return []
    return [Dataset(schema, x, np.full(x.shape[0], -1, dtype=np.int32))]


def x_of(
    schema: Schema,
    float32: bool,
    X: Rows,
    reader: str,
    weights: bool = False,
    argument: str = "X",
) -> npt.NDArray[np.float64]:
    """The rows a model classifies: a data file read as ``treegen predict`` reads it
    (``float32``: values held as float32, so out-of-range ones are errors; ``reader``
    names the method for an error; ``weights``: an ARFF file's instance weights are
    read, and left out, rather than an error), a DataFrame or a ``{name: column}`` mapping whose
    columns are taken by name (as scikit-learn does), or an array, whose columns are
    taken in order (a warning when the model's features were named).  ``argument``:
    the caller's name for ``X`` (``data`` for verify), which its errors name."""
    try:
        return _x_of(schema, float32, X, reader, weights)
    except TreegenError as exc:
        if exc.option == "X":  # the rows' checks below name them X, predict's argument
            exc.option = argument
        raise


def _x_of(
    schema: Schema, float32: bool, X: Rows, reader: str, weights: bool
) -> npt.NDArray[np.float64]:
    if isinstance(X, str | os.PathLike):
        path = data_path(X, "X", reader)
        return read_dataset(path, schema=schema, float32=float32, weights=weights).X
    named = frame.fitted_with_names(schema)
    if isinstance(X, Mapping):
        by_name = frame.rows_by_name(X, schema)
        assert by_name is not None
        return by_name
    if frame.is_frame(X):
        if named:
            by_name = frame.rows_by_name(X, schema)
            if by_name is not None:
                return by_name
        elif frame.feature_names(X) is not None:
            warnings.warn(
                "X has feature names, but the model was fitted without feature names",
                UserWarning,
                stacklevel=users_stacklevel(),
            )
    elif named:
        warnings.warn(
            "X does not have valid feature names, but the model was fitted with feature "
            f"names ({', '.join(a.name for a in schema.attributes)}): its columns are taken "
            "in that order",
            UserWarning,
            stacklevel=users_stacklevel(),
        )
    return _rows(X, len(schema.attributes))


def _rows(X: npt.ArrayLike, n_features: int) -> npt.NDArray[np.float64]:
    """``X`` as a float matrix of ``n_features`` columns (one row if 1-d)."""
    if frame.is_sparse(X):
        raise UsageError(frame.SPARSE, option="X")
    try:
        x = frame.float64_of(X)
    except (TypeError, ValueError) as exc:
        why = frame.ragged(X)
        if why is not None:
            raise UsageError(why, option="X") from None
        raise UsageError(
            f"must hold numbers (NaN for missing), as the model's columns in order: {exc}; "
            "give nominal values by name in a DataFrame or a {name: column} mapping",
            option="X",
        ) from None
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2 or x.shape[1] != n_features:
        raise UsageError(f"must have shape (n, {n_features}), got {np.shape(X)}", option="X")
    return x
