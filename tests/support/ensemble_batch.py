"""Ensemble exports rendered and held to the Python model, for the export fuzz
(tests/ensemble/test_ensemble_fuzz.py; support.batch compiles many into one library):
:func:`render_case` renders one export or gives the error that refuses it,
:func:`compare_one` runs the kind's own verify rows and comparison on one export."""

from __future__ import annotations

from treegen.codegen.options import ExportOptions
from treegen.ensemble.core import Ensemble
from treegen.errors import TreegenError
from treegen.kinds.export import Rendered, render
from treegen.verify.build import Built
from treegen.verify.report import Report


def render_case(ens: Ensemble, opts: ExportOptions) -> Rendered | str:
    """The export, or the one-line error that refuses it."""
    try:
        return render(ens, opts)
    except TreegenError as err:
        return str(err)


def compare_one(ens: Ensemble, r: Rendered, built: Built, n_random: int, seed: int) -> Report:
    """The kind's own verify rows and comparison, on a library built by
    :func:`support.batch.compile_batch`."""
    report = Report([])
    X = r.kind.rows(ens, r.lowered, r.opts, (), n_random, seed, report)
    c_cls, c_out = built.run(X)
    r.kind.compare(ens, r.lowered, r.opts, X, c_cls, c_out, report)
    return report
