"""The public Python API: ``treegen.train``, ``treegen.load`` and the :class:`Model` methods.

These are thin wrappers over the functions the command line calls (the
readers, :func:`treegen.trainer.train`, the model file, the exporter and
the verifier), so a model trained, exported or verified from Python is
byte for byte the one the CLI gives.  Arrays follow scikit-learn's
conventions: ``X`` is ``(n_rows, n_features)`` with NaN for a missing
value, ``y`` holds any labels, and :meth:`Model.predict` returns them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.codegen import rules as codegen_rules
from treegen.codegen import verify as codegen_verify
from treegen.codegen.export import (
    ScaleSpec,
    export_files,
    export_options,
    scales_from,
    with_provenance,
)
from treegen.codegen.lower import ExportOptions
from treegen.codegen.rules_verify import verify_ruleset
from treegen.data.arrays import dataset_from_arrays
from treegen.data.dataset import Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.errors import TrainError, UsageError
from treegen.model import classify, core
from treegen.model.file import save_model
from treegen.rules import core as rules_core
from treegen.rules.file import load_model_or_ruleset, save_ruleset
from treegen.trainer import Criterion, Engine, Flavor, TrainOptions
from treegen.trainer import train as train_dataset
from treegen.trainer.options import PRUNINGS, Pruning

PathLike = str | os.PathLike[str]
# The file name a model that was never saved exports under (prefix "model").
UNSAVED = "model.tree"
UNSAVED_RULES = "rules.rules"
# Label kinds a model trained from arrays records, so a loaded model returns
# labels of the same type as the ``y`` it was trained on.
_LABEL_KINDS: dict[str, Callable[[str], object]] = {
    "int": int,
    "float": float,
    "bool": lambda s: s == "True",
    "str": str,
}


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
    def of(cls, report: codegen_verify.Report) -> VerifyReport:
        return cls(
            passed=report.rows - report.failed_rows,
            failed=report.failed_rows,
            mismatches=tuple(report.mismatches),
            text=report.text(),
        )


def _unlabelled(schema: Schema, x: npt.NDArray[np.float64] | None) -> list[Dataset]:
    """``verify``'s data rows as a dataset without classes (none when ``x`` is None)."""
    if x is None:
        return []
    return [Dataset(schema, x, np.full(x.shape[0], -1, dtype=np.int32))]


@dataclass(frozen=True, slots=True)
class Model(core.Model):
    """A trained tree: :class:`treegen.model.core.Model` with methods to use it.

    ``path`` is the file the model was loaded from or last saved to (it
    names the default C prefix and the provenance comment, as on the CLI).
    """

    path: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, model: core.Model, path: PathLike | None = None) -> Model:
        return cls(
            model.schema,
            model.nodes,
            model.options,
            model.treegen_version,
            model.data_fingerprint,
            None if path is None else os.fspath(path),
        )

    @property
    def classes_(self) -> npt.NDArray[np.generic]:
        """The labels :meth:`predict` returns, in class order (``np.unique(y)`` for arrays)."""
        kind = self.options.get("labels", "str")
        convert = _LABEL_KINDS.get(str(kind), str)
        values = [convert(c) for c in self.schema.classes]
        return np.asarray(values) if kind != "str" else np.asarray(values, dtype=object)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.schema.attributes)

    def _x(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
        return _x_of(self.schema, self.compares_float32, X)

    def predict(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.generic]:
        """The class label of every row (NaN = missing; nominal values as codes)."""
        return self.classes_[classify.predict(self, self._x(X))]

    def predict_proba(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
        """Class probabilities per row, columns in the order of :attr:`classes_`."""
        return classify.predict_proba(self, self._x(X))

    def save(self, path: PathLike) -> Model:
        """Write the model file (atomically); returns the model with ``path`` set."""
        save_model(self, path)
        return Model.of(self, path)

    def _export_options(
        self,
        style: str,
        input_type: str,
        float_compare: str,
        scale: ScaleSpec,
        missing_value: int | None,
        prefix: str | None,
        missing: str,
        proba: bool | None,
        inline_top: int | None = None,
    ) -> tuple[str, ExportOptions]:
        model_path = self.path or UNSAVED
        opts = export_options(
            model_path,
            style=style,
            input_type=input_type,
            float_compare=float_compare,
            scale=scales_from(scale),
            missing_value=missing_value,
            missing=missing,
            proba=proba,
            prefix=prefix,
            inline_top=inline_top,
        )
        return model_path, opts

    def export_c(
        self,
        out_dir: PathLike,
        *,
        style: str = "ifs",
        input_type: str = "float",
        float_compare: str = "float",
        scale: ScaleSpec = None,
        missing_value: int | None = None,
        prefix: str | None = None,
        missing: str = "c45",
        proba: bool | None = None,
        inline_top: int | None = None,
    ) -> list[Path]:
        """Write ``predict.c`` and ``predict.h`` into ``out_dir``, as ``treegen export`` does.

        The keyword arguments are the CLI's export options (``scale``: K for
        every continuous feature, or ``{name: K}``; ``missing="none"``, ``proba``:
        ``--missing none``, ``--proba``/``--no-proba``; ``inline_top``:
        ``--inline-top``).  Returns the paths written.
        """
        model_path, opts = self._export_options(
            style,
            input_type,
            float_compare,
            scale,
            missing_value,
            prefix,
            missing,
            proba,
            inline_top,
        )
        return export_files(self, model_path, os.fspath(out_dir), opts)

    def verify(
        self,
        data: npt.ArrayLike | PathLike | None = None,
        *,
        style: str = "ifs",
        input_type: str = "float",
        float_compare: str = "float",
        scale: ScaleSpec = None,
        missing_value: int | None = None,
        prefix: str | None = None,
        cc: str | None = None,
        n_random: int = 1000,
        seed: int = 0,
        missing: str = "c45",
        proba: bool | None = None,
        inline_top: int | None = None,
    ) -> VerifyReport:
        """Compile the exported C and compare it with this model, as ``treegen verify`` does.

        ``data`` (a path or an ``X`` array) adds its rows to the thresholds,
        their neighbours, missing values and ``n_random`` random rows.
        """
        model_path, opts = self._export_options(
            style,
            input_type,
            float_compare,
            scale,
            missing_value,
            prefix,
            missing,
            proba,
            inline_top,
        )
        opts = with_provenance(opts, self, model_path, ".")
        sets = _unlabelled(self.schema, None if data is None else self._x(data))
        report = codegen_verify.verify(self, opts, sets, cc=cc, n_random=n_random, seed=seed)
        return VerifyReport.of(report)


@dataclass(frozen=True, slots=True)
class Rules(rules_core.RuleSet):
    """A ruleset (``treegen rules -o RULES``): :class:`treegen.rules.core.RuleSet` with
    methods to use it.  ``path`` is the file it was loaded from or last saved to."""

    path: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, rs: rules_core.RuleSet, path: PathLike | None = None) -> Rules:
        return cls(
            rs.schema,
            rs.rules,
            rs.default,
            rs.options,
            rs.treegen_version,
            rs.data_fingerprint,
            rs.flavor,
            None if path is None else os.fspath(path),
        )

    @property
    def classes_(self) -> npt.NDArray[np.generic]:
        """The labels :meth:`predict` returns, in class order."""
        return np.asarray(self.schema.classes, dtype=object)

    def _x(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
        return _x_of(self.schema, self.compares_float32, X)

    def predict(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.generic]:
        """The class label of every row: the first rule whose conditions all hold, else
        the default class (a condition on a missing value, NaN, does not hold)."""
        return self.classes_[rules_core.predict(self, self._x(X))]

    def save(self, path: PathLike) -> Rules:
        """Write the ruleset file (atomically); returns the ruleset with ``path`` set."""
        save_ruleset(self, path)
        return Rules.of(self, path)

    def _export_options(
        self,
        input_type: str,
        float_compare: str,
        scale: ScaleSpec,
        missing_value: int | None,
        prefix: str | None,
    ) -> tuple[str, ExportOptions]:
        path = self.path or UNSAVED_RULES
        opts = export_options(
            path,
            input_type=input_type,
            float_compare=float_compare,
            scale=scales_from(scale),
            missing_value=missing_value,
            prefix=prefix,
        )
        return path, opts

    def export_c(
        self,
        out_dir: PathLike,
        *,
        input_type: str = "float",
        float_compare: str = "float",
        scale: ScaleSpec = None,
        missing_value: int | None = None,
        prefix: str | None = None,
    ) -> list[Path]:
        """Write ``predict.c`` and ``predict.h`` (one ``if`` per rule) into ``out_dir``, as
        ``treegen export RULES`` does; the keywords are its options."""
        path, opts = self._export_options(input_type, float_compare, scale, missing_value, prefix)
        return codegen_rules.export_ruleset_files(self, path, os.fspath(out_dir), opts)

    def verify(
        self,
        data: npt.ArrayLike | PathLike | None = None,
        *,
        input_type: str = "float",
        float_compare: str = "float",
        scale: ScaleSpec = None,
        missing_value: int | None = None,
        prefix: str | None = None,
        cc: str | None = None,
        n_random: int = 1000,
        seed: int = 0,
    ) -> VerifyReport:
        """Compile the exported C and compare it with this ruleset on every row, as
        ``treegen verify RULES`` does (``data``: a path or an ``X`` array, added to the
        threshold, missing-value and random rows)."""
        path, opts = self._export_options(input_type, float_compare, scale, missing_value, prefix)
        opts = codegen_rules.with_provenance(opts, self, path, ".")
        sets = _unlabelled(self.schema, None if data is None else self._x(data))
        report = verify_ruleset(self, opts, sets, cc=cc, n_random=n_random, seed=seed)
        return VerifyReport.of(report)


def _x_of(schema: Schema, float32: bool, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
    """The rows a model or ruleset classifies: a data file read as ``treegen predict``
    reads it (``float32``: values held as float32, so out-of-range ones are errors),
    or an array."""
    if isinstance(X, str | os.PathLike):
        return read_dataset(os.fspath(X), schema=schema, float32=float32).X
    return _rows(X, len(schema.attributes))


def _rows(X: npt.ArrayLike, n_features: int) -> npt.NDArray[np.float64]:
    """``X`` as a float matrix of ``n_features`` columns (one row if 1-d)."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2 or x.shape[1] != n_features:
        raise UsageError(f"X must have shape (n, {n_features}), got {np.shape(X)}", option="X")
    return x


def load(path: PathLike) -> Model | Rules:
    """Read a model file (``model.tree``) or a ruleset file (``treegen rules -o``),
    checked as ``treegen`` checks it."""
    loaded = load_model_or_ruleset(os.fspath(path))
    if isinstance(loaded, rules_core.RuleSet):
        return Rules.of(loaded, path)
    return Model.of(loaded, path)


def train(
    data: PathLike | tuple[npt.ArrayLike, npt.ArrayLike],
    target: str | None = None,
    *,
    feature_names: Sequence[str] | None = None,
    nominal: Sequence[int | str] = (),
    class_names: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    categories: Mapping[int, Sequence[str]] | None = None,
    min_cases: int = 2,
    cf: float = 0.25,
    prune: bool | Pruning = True,
    subsets: bool = False,
    criterion: Criterion = "gainratio",
    flavor: Flavor = "c45",
    engine: Engine = "level",
    max_depth: int | None = None,
    min_gain_ratio: float = 0.0,
    folds: int = 3,
    seed: int = 1,
    validation: PathLike | None = None,
) -> Model:
    """Train a C4.5 tree, as ``treegen train`` does.

    ``data`` is a path in any format treegen reads (CSV, ARFF, C4.5 stem or
    ``.names``/``.data``; ``target``, ``nominal`` and ``ignore`` as the CLI's
    data options) or a pair ``(X, y)`` of arrays (NaN for missing;
    ``nominal`` columns, by index or name, hold codes; ``feature_names`` and
    ``class_names`` name them; ``categories`` maps a nominal column's index to
    the names of its codes).  The training options are the CLI's:
    ``prune`` is True (error-based pruning), False (the unpruned tree) or
    ``"reduced-error"`` (J48's -R, with ``folds`` and ``seed``, or on the
    ``validation`` file's rows, read with the training data's attributes);
    ``max_depth`` and ``min_gain_ratio`` pre-prune.
    """
    pruning: Pruning = "error-based"
    if isinstance(prune, str):
        if prune not in PRUNINGS:
            raise TrainError(
                f"unknown pruning {prune!r}: use True, False or 'reduced-error'", option="--prune"
            )
        pruning, prune = prune, True
    opts = TrainOptions(
        min_cases=min_cases,
        cf=cf,
        prune=prune,
        subsets=subsets,
        criterion=criterion,
        flavor=flavor,
        max_depth=max_depth,
        min_gain_ratio=min_gain_ratio,
        pruning=pruning,
        folds=folds,
        seed=seed,
    )
    if isinstance(data, str | os.PathLike):
        ds = read_dataset(
            os.fspath(data), target=target, nominal=[str(n) for n in nominal], ignore=list(ignore)
        )
        valid = None
        if validation is not None:
            valid = read_dataset(os.fspath(validation), schema=ds.schema, float32=flavor == "c45")
        return Model.of(train_dataset(ds, opts, engine=engine, validation=valid))
    if validation is not None:
        raise TrainError(
            "validation is a file, for training data read from a file", option="--validation"
        )
    if not isinstance(data, tuple) or len(data) != 2:
        raise TrainError("data must be a path or a pair (X, y)")
    ds, kind = dataset_from_arrays(
        data[0],
        data[1],
        feature_names=feature_names,
        nominal=nominal,
        class_names=class_names,
        target=target,
        categories=categories,
    )
    model = train_dataset(ds, opts, engine=engine)
    options = dict(model.options)
    if kind != "str":
        options["labels"] = kind
    return Model(model.schema, model.nodes, options, model.treegen_version, model.data_fingerprint)
