"""What ``verify`` found, for every model kind: the report and the one comparison rule.

:class:`Report` collects one line per Python side the C was held against, the first
rows that differ, and the counts; :func:`check_against` compares the C's classes (and
fixed-point probabilities where the side has them) with one side on chosen rows.
Equality only, never a tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.words import counted


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    rows: int = 0
    failed_rows: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed_rows == 0

    def text(self, show: int = 5) -> str:
        out = list(self.lines)
        if self.mismatches:
            out.append(f"first mismatches (of {counted(self.failed_rows, 'row')}):")
            out += ["  " + m for m in self.mismatches[:show]]
        out.append(f"{self.rows - self.failed_rows} passed, {self.failed_rows} failed")
        return "\n".join(out) + "\n"


def fmt_row(x: npt.NDArray[np.generic]) -> str:
    return "[" + ", ".join(repr(v.item()) for v in x) + "]"


def check_against(
    report: Report,
    name: str,
    X: npt.NDArray[np.generic],
    rows: npt.NDArray[np.bool_],
    c_cls: npt.NDArray[np.int32],
    cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[Any] | None = None,
    proba: npt.NDArray[Any] | None = None,
    values: str = "probabilities",
) -> npt.NDArray[np.bool_]:
    """One Python side against the C on ``rows``: its report line and first mismatches;
    the rows that differ (class, or probabilities where ``proba`` is given; ``values``
    names what ``proba`` holds, scores for a decision function)."""
    diff: npt.NDArray[np.bool_] = rows & (cls != c_cls)
    if proba is not None:
        assert c_proba is not None
        diff |= rows & (proba != c_proba).any(axis=1)
    n = int(rows.sum())
    verdict = "identical" if not diff.any() else f"{counted(int(diff.sum()), 'row')} differ"
    what = f"classes and {values}" if proba is not None else "classes"
    report.lines.append(f"C vs {name}: {counted(n, 'row')}, {what} {verdict}")
    for r in np.flatnonzero(diff)[:5]:
        extra = (
            f" {values} C {c_proba[r].tolist()} vs {proba[r].tolist()}"
            if proba is not None and c_proba is not None
            else ""
        )
        report.mismatches.append(
            f"row {r} {fmt_row(X[r])}: {name}: class C {c_cls[r]} vs {cls[r]}{extra}"
        )
    return diff


def row_counts(n_data: int, n_rows: int, n_random: int) -> str:
    """The report's account of the ``n_rows`` rows compared: ``n_data`` from DATA,
    ``n_random`` random ones, the rest the generated threshold, missing and special rows."""
    return (
        f"{n_data} data rows, {n_rows - n_data - n_random} threshold, "
        f"missing and special rows, {n_random} random rows"
    )


def tally(report: Report, n_rows: int, bad: npt.NDArray[np.bool_]) -> None:
    """Count ``n_rows`` rows compared, those in ``bad`` failed."""
    report.rows += n_rows
    report.failed_rows += int(bad.sum())
