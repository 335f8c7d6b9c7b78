"""The public :class:`Model`: a trained tree with the methods of the Python API.

:meth:`Model.predict`, :meth:`Model.predict_proba`, :meth:`Model.save`,
:meth:`Model.export_c` and :meth:`Model.verify` call what ``treegen predict``,
``train -o``, ``export`` and ``verify`` call, with the CLI's options as keywords.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.api.common import PathLike, VerifyReport, labels_of, unlabelled, x_of
from treegen.codegen import verify as codegen_verify
from treegen.codegen.export import (
    ScaleSpec,
    export_files,
    export_options,
    scales_from,
    with_provenance,
)
from treegen.codegen.lower import ExportOptions
from treegen.model import classify, core
from treegen.model.file import save_model

# The file name a model that was never saved exports under (prefix "model").
UNSAVED = "model.tree"


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
        return labels_of(self.schema, self.options)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.schema.attributes)

    def _x(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
        return x_of(self.schema, self.compares_float32, X)

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
        sets = unlabelled(self.schema, None if data is None else self._x(data))
        report = codegen_verify.verify(self, opts, sets, cc=cc, n_random=n_random, seed=seed)
        return VerifyReport.of(report)
