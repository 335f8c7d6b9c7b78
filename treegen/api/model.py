"""The public :class:`Model`: a model of any kind, with the methods of the Python API.

:meth:`Model.predict`, :meth:`Model.predict_proba`, :meth:`Model.save`,
:meth:`Model.export_c` and :meth:`Model.verify` call what ``treegen predict``,
``train -o``, ``export`` and ``verify`` call, for every kind in the registry
(:mod:`treegen.kinds`): a tree, a ruleset, whatever :func:`treegen.kinds.register`
adds.  What each does for a kind is that kind's registry entry; this class never asks
which kind it holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.api.common import (
    PathLike,
    Rows,
    VerifyReport,
    labels_of,
    path_of,
    unlabelled,
    x_of,
)
from treegen.codegen.names import prefix_from_path
from treegen.codegen.options import ExportOptions
from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Schema
from treegen.data.npstate import numpy_defaults
from treegen.data.words import counted
from treegen.errors import UsageError
from treegen.kinds import Kind, a_kind, check_kind, kind_of
from treegen.kinds.export import export_files, file_name
from treegen.kinds.spec import random_rows_error
from treegen.model.optnames import keyword_errors

REPR_CLASSES = 5  # the classes a repr names, the rest counted


@dataclass(frozen=True, repr=False)
class Model:
    """A trained or loaded model: ``value`` is the kind's own record (a
    :class:`treegen.model.core.Model` tree, a :class:`treegen.rules.core.RuleSet`, ...)
    and ``path`` the file it was loaded from or last saved to, which names the default
    C prefix and the provenance comment, as on the command line.

    The value's own fields read through: ``model.nodes`` of a tree, ``model.rules`` of
    a ruleset.
    """

    value: Any
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        check_kind(self.value)  # a TypeError for anything that is no registered kind

    @classmethod
    def of(cls, value: object, path: PathLike | None = None) -> Model:
        """``value`` (a kind's record, or a Model) as a Model named by ``path``."""
        if isinstance(value, Model):
            path = value.path if path is None else path
            value = value.value
        return cls(value, None if path is None else os.fspath(path))

    def __repr__(self) -> str:
        """Kind, file, features, classes (the first few) and size: never the nodes, which
        for a forest would be megabytes."""
        names = self.schema.classes
        what = "outputs" if getattr(self.value, "regressor", False) else "classes"
        shown = ", ".join(repr(c) for c in names[:REPR_CLASSES])
        more = f", ... ({len(names)})" if len(names) > REPR_CLASSES else ""
        size = self.kind.size(self.value) if self.kind.size is not None else None
        return (
            f"<treegen.Model {self.kind.name}"
            + (f" {self.path!r}" if self.path is not None else "")
            + f": {counted(len(self.schema.attributes), 'feature')}, {what} {shown}{more}"
            + (f"; {size}" if size else "")
            + ">"
        )

    def __getattr__(self, name: str) -> Any:
        # Only reached for names this class lacks: the kind's own fields.
        if name.startswith("__") or name in ("value", "path"):
            raise AttributeError(name)
        return getattr(self.value, name)

    @property
    def kind(self) -> Kind[Any, Any]:
        """The registry's entry for this model's kind (``kind.name``: "tree", ...)."""
        return kind_of(self.value)

    @property
    def name(self) -> str:
        """The model's name, the default C prefix: its file's stem, else the kind's
        default (``model``, ``rules``)."""
        return prefix_from_path(file_name(self.kind, self.path))

    @property
    def schema(self) -> Schema:
        schema: Schema = self.value.schema
        return schema

    @property
    def classes_(self) -> npt.NDArray[np.generic]:
        """The labels :meth:`predict` returns, in class order (``np.unique(y)`` for arrays)."""
        return labels_of(self.schema, self.value.options)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.schema.attributes)

    def _x(self, X: Rows, reader: str) -> npt.NDArray[np.float64]:
        """``X`` as rows of the model's features; ``reader``: the method, for errors.
        predict and predict_proba read an ARFF file's instance weights and leave them
        out, as ``treegen predict`` does; verify refuses them, as ``treegen verify``."""
        weights = reader != "verify"
        argument = "data" if reader == "verify" else "X"
        return x_of(
            self.schema, self.value.compares_float32, X, f"Model.{reader}", weights, argument
        )

    @keyword_errors
    @numpy_defaults
    def predict(self, X: Rows) -> npt.NDArray[np.generic]:
        """The class label of every row (NaN = missing; nominal values as codes); for a
        regressor its float64 prediction (n values, or n x outputs), as the estimator's."""
        x = self._x(X, "predict")  # once: a warning about X's column names is said once
        values = self.kind.values(self.value, x) if self.kind.values else None
        if values is not None:
            return values[:, 0] if values.shape[1] == 1 else values
        return self.classes_[self.kind.predict(self.value, x)]

    @keyword_errors
    @numpy_defaults
    def predict_proba(self, X: Rows) -> npt.NDArray[np.float64]:
        """Class probabilities per row, columns in the order of :attr:`classes_`."""
        proba = self.kind.predict_proba
        if proba is None:
            raise UsageError(f"{a_kind(self.kind.name)} gives classes, not class probabilities")
        return proba(self.value, self._x(X, "predict_proba"))

    @keyword_errors
    @numpy_defaults
    def save(self, path: PathLike) -> Model:
        """Write the model file (atomically); returns the model with ``path`` set."""
        write_text_atomic(path_of(path, "path"), self.kind.to_json(self.value))
        return Model.of(self.value, path)

    @keyword_errors
    def export_options(
        self, options: ExportOptions | None = None, **overrides: Any
    ) -> ExportOptions:
        """The export options ``options`` (default: the defaults) with ``overrides``; an
        unknown keyword, or ``options`` that are no :class:`ExportOptions`, is a
        :class:`UsageError` naming it."""
        if options is not None and not isinstance(options, ExportOptions):
            raise UsageError(
                f"must be an ExportOptions, got {type(options).__name__}: give the options "
                "as keywords, or treegen.ExportOptions(**them)",
                option="options",
            )
        known = [f.name for f in fields(ExportOptions)]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise UsageError(
                f"unknown export option {unknown[0]!r} (the options: {', '.join(known)})"
            )
        return replace(options or ExportOptions(), **overrides)

    @keyword_errors
    @numpy_defaults
    def export_c(
        self, out_dir: PathLike, options: ExportOptions | None = None, **overrides: Any
    ) -> list[Path]:
        """Write ``predict.c`` and ``predict.h`` into ``out_dir``, as ``treegen export``
        does: ``options`` (an :class:`ExportOptions`) or its fields as keywords
        (``style="table"``, ``input_type="int16"``, ``scale=10``, ``missing="none"``...).
        Returns the paths written."""
        opts = self.export_options(options, **overrides)
        return export_files(self.value, path_of(out_dir, "out_dir"), opts, path=self.path)[1]

    @keyword_errors
    @numpy_defaults
    def verify(
        self,
        data: Rows | None = None,
        options: ExportOptions | None = None,
        *,
        cc: str | None = None,
        n_random: int = 1000,
        seed: int = 0,
        **overrides: Any,
    ) -> VerifyReport:
        """Compile the exported C and compare it with this model, as ``treegen verify``
        does; ``data`` (a path or an ``X`` array) adds its rows to the thresholds,
        their neighbours, missing values and ``n_random`` random rows."""
        opts = self.export_options(options, **overrides)
        if cc is not None and not isinstance(cc, str):
            raise UsageError(f"must be a str (a command), got {type(cc).__name__}", option="cc")
        _check_count(n_random, "n_random")
        _check_count(seed, "seed")
        why = random_rows_error(int(n_random))
        if why is not None:
            raise UsageError(why, option="n_random")
        sets = unlabelled(self.schema, None if data is None else self._x(data, "verify"))
        # Imported here: compiling C is verify's alone (`treegen.train` does not load it).
        from treegen.kinds import check as kinds_check

        report = kinds_check.verify(
            self.value, opts, sets, path=self.path, cc=cc, n_random=n_random, seed=seed
        )
        return VerifyReport.of(report)


def _check_count(value: object, name: str) -> None:
    """``value`` is an integer (not a bool) of at least 0, as ``verify --random`` and
    ``--seed`` take, else a :class:`UsageError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise UsageError(f"must be an integer, got {value!r}", option=name)
    if value < 0:
        raise UsageError(f"must be at least 0, got {value}", option=name)
