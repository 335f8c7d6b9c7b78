"""``treegen verify`` for any kind: export, compile, run the rows, compare.

The C is built on this machine (:func:`treegen.verify.build.build`, through cffi) and
run on the rows the kind chooses (its data rows, thresholds and their neighbours,
missing and special values, random rows); the kind's ``compare`` holds the answers
against every Python side it has.  ``treegen verify --on`` runs the same rows on a
simulated chip instead (treegen.firmware.parity).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.kinds.export import render
from treegen.verify.build import build
from treegen.verify.report import Report


def verify(
    value: Any,
    opts: ExportOptions,
    data: Sequence[Dataset] = (),
    *,
    path: str | None = None,
    cc: str | None = None,
    n_random: int = 1000,
    seed: int = 0,
    workdir: Path | None = None,
) -> Report:
    """Export ``value`` (named by the model file ``path``), compile it with ``cc`` and
    compare it with the Python model; never raises on a mismatch."""
    r = render(value, opts, path=path)
    report = Report([f"note: {note}" for note in r.notes])
    with tempfile.TemporaryDirectory(prefix="treegen-verify-") as tmp:
        built = build(r.kind.api(r.lowered), r.files, workdir or Path(tmp), cc=cc)
        X = r.kind.rows(value, r.lowered, r.opts, data, n_random, seed, report)
        c_cls, c_proba = built.run(X)
        r.kind.compare(value, r.lowered, r.opts, X, c_cls, c_proba, report)
    return report
