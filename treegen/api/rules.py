"""The public :class:`Rules`: a ruleset (``treegen rules -o``) with the methods of the API.

:meth:`Rules.predict`, :meth:`Rules.save`, :meth:`Rules.export_c` and
:meth:`Rules.verify` call what ``treegen predict RULES``, ``export RULES`` and
``verify RULES`` call, with the CLI's options as keywords.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.api.common import PathLike, VerifyReport, labels_of, unlabelled, x_of
from treegen.codegen import rules as codegen_rules
from treegen.codegen.export import ScaleSpec, export_options, scales_from
from treegen.codegen.lower import ExportOptions
from treegen.codegen.rules_verify import verify_ruleset
from treegen.rules import core as rules_core
from treegen.rules.file import save_ruleset

# The file name a ruleset that was never saved exports under (prefix "rules").
UNSAVED_RULES = "rules.rules"


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
        """The labels :meth:`predict` returns, in class order (``np.unique(y)`` for arrays)."""
        return labels_of(self.schema, self.options)

    def _x(self, X: npt.ArrayLike | PathLike) -> npt.NDArray[np.float64]:
        return x_of(self.schema, self.compares_float32, X)

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
        sets = unlabelled(self.schema, None if data is None else self._x(data))
        report = verify_ruleset(self, opts, sets, cc=cc, n_random=n_random, seed=seed)
        return VerifyReport.of(report)
