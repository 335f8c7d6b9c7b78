"""``treegen verify --on TARGET``: verify's comparison, with the C run on a simulated chip.

The rows are verify's (the kind's ``rows``: DATA rows, every threshold and its
neighbours, missing and special values, random rows); the firmware prints class and
fixed-point probabilities for each, and the kind's ``compare`` holds them against its
Python sides (for a tree: the fixed-point Python model, the IR evaluator and, on rows
without missing values, the float classifier).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.firmware import targets
from treegen.firmware.sim import TIME_LIMIT, Run, run_vectors
from treegen.kinds.export import render
from treegen.verify.report import Report


def count_summary(run: Run) -> str:
    """``min A, median B, max C`` of the counts that came back."""
    c = run.count[run.done]
    if not c.size:
        return "no rows"
    return f"min {int(c.min())}, median {int(np.median(c))}, max {int(c.max())}"


@dataclass
class OnResult:
    report: Report
    rows: npt.NDArray[np.generic]  # what every target ran, in the C input domain
    runs: dict[str, Run] = field(default_factory=dict)


def verify_on(
    value: Any,
    opts: ExportOptions,
    data: Sequence[Dataset],
    on: Sequence[str],
    *,
    path: str | None = None,
    n_random: int = 1000,
    seed: int = 0,
    time_limit: float = TIME_LIMIT,
    files: dict[str, str] | None = None,
) -> OnResult:
    """Compare the C of ``value`` (a model of any kind, named by the file ``path``) on
    each target in ``on`` with the Python model; never raises on a mismatch, a crash or
    a hang (they fail rows).  ``files`` replaces the emitted predict.c/predict.h (the
    tests use it to run tampered C)."""
    chosen = [targets.target(name) for name in dict.fromkeys(on)]
    for t in chosen:  # every tool before the first run: fail fast, with one line
        targets.require(t)
    r = render(value, opts, path=path)
    api = r.kind.api(r.lowered)
    files = files if files is not None else r.files
    report = Report()
    X = r.kind.rows(value, r.lowered, r.opts, data, n_random, seed, report)
    result = OnResult(report, X)
    for t in chosen:
        run = run_vectors(api, files, X, t, time_limit=time_limit)
        result.runs[t.name] = run
        done = run.done
        sub = Report()
        r.kind.compare(value, r.lowered, r.opts, X[done], run.cls[done], run.proba[done], sub)
        report.lines += [f"{t.name}: {line}" for line in sub.lines]
        report.mismatches += [f"{t.name}: {m}" for m in sub.mismatches]
        lost = int((~done).sum())
        if run.failure:
            report.lines.append(f"{t.name}: FAILED: {run.failure}")
            # A run whose counter failed its self-check came back whole but is not
            # to be trusted either.
            lost = lost or X.shape[0]
        report.lines.append(
            f"{t.name}: {t.title}, {run.images} image(s), firmware "
            f"{run.firmware_flash} bytes of flash; {t.unit} per prediction: "
            f"{count_summary(run)}"
        )
        report.rows += X.shape[0]
        report.failed_rows += min(X.shape[0], sub.failed_rows + lost)
    return result
