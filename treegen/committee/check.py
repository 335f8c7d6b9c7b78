"""A committee's side of ``verify``: the rows, and the Python sides the C is held to.

The rows are the data given, then every tree's own verify rows (its thresholds and
their neighbours, every nominal code, missing and special values, random rows: those
:func:`treegen.verify.inputs.comparison_inputs` makes for a tree).  The C's class (and,
bagged, its probabilities) on each row is compared with:

* the fixed-point Python committee: each tree's fixed-point classifier
  (:mod:`treegen.model.fixedpoint`) on the values the C was given, the integer vote
  over them (:mod:`treegen.committee.vote`);
* the IR evaluator (:mod:`treegen.verify.oracle`) on each tree's lowered form, the same
  vote (under ``--missing none`` the only side for rows that meet a missing value);
* on rows without missing values, the committee's classifier on the values
  ``treegen predict`` reads (:func:`treegen.committee.vote.predict`).

Equality only.  With DATA, :func:`weka_report` adds how many of its rows the integer
vote decides otherwise than the trees' double vote as Weka casts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.codegen.options import ExportOptions
from treegen.committee import vote
from treegen.committee.ccode import CommitteeIR, lower_tree
from treegen.committee.core import ADJECTIVE, Committee
from treegen.committee.weka_vote import disagreement_line
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.verify.inputs import comparison_inputs, model_values, to_c_domain
from treegen.verify.oracle import evaluate, meets_missing
from treegen.verify.report import Report, check_against, row_counts, tally
from treegen.verify.tree import classify_comparable


def verify_rows(
    c: Committee,
    cir: CommitteeIR,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    """The rows verify compares (DATA rows first), described in ``report``."""
    ir0 = cir.trees[0]
    parts = [to_c_domain(ir0, ds.X) for ds in data]
    per_tree = max(1, n_random // len(cir.trees))
    parts += [comparison_inputs(ir, None, per_tree, seed + i) for i, ir in enumerate(cir.trees)]
    X = np.concatenate(parts)
    n_data = sum(ds.n_rows for ds in data)
    enc = ir0.encoding
    report.lines.append(
        f"{ADJECTIVE[c.method]} committee of {counted(len(cir.trees), 'tree')}, style {cir.style}, "
        f"input {enc.input_type}{', float compare int' if enc.uses_keys else ''}"
        f"{', missing none' if ir0.missing == 'none' else ''}: "
        f"{row_counts(n_data, X.shape[0], per_tree * len(cir.trees))}"
    )
    for ds in data:
        weka_report(c, ds, report)
    return X


def _vote(
    c: Committee, outputs: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16]]]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
    """The committee's class and (bagged) probabilities from each tree's C answers."""
    sums = vote.tally(c, [cls if c.method == "boost" else proba for cls, proba in outputs])
    cls = vote.decide(sums).astype(np.int32)
    proba = (sums // c.n_members).astype(np.uint16)
    return cls, proba


def compare(
    c: Committee,
    cir: CommitteeIR,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16],
    report: Report,
) -> None:
    """The C's answers on every row against every Python side (module docstring)."""
    every = np.ones(X.shape[0], dtype=bool)
    ir0 = cir.trees[0]
    full_opts = replace(opts, missing="c45", proba=True, inline_top=None)
    full = [lower_tree(c, i, full_opts, cir.prefix) for i in range(c.n_members)]
    rule = ir0.missing
    oracle = _vote(c, [evaluate(ir, X, rule=rule) for ir in full])
    fixed = _vote(
        c, [vote.member_classifier(c, i, ir0.encoding).predict(X) for i in range(c.n_members)]
    )
    known = every if rule == "c45" else ~np.any([meets_missing(ir, X) for ir in full], axis=0)
    with_proba = cir.proba
    bad = np.zeros(X.shape[0], dtype=bool)
    bad |= check_against(
        report,
        "IR evaluator" + (", none rule" if rule == "none" else ""),
        X,
        every,
        c_cls,
        oracle[0],
        c_proba if with_proba else None,
        oracle[1] if with_proba else None,
    )
    bad |= check_against(
        report,
        "fixed-point Python committee"
        + (" (rows meeting no missing value)" if rule == "none" else ""),
        X,
        known,
        c_cls,
        fixed[0],
        c_proba if with_proba else None,
        fixed[1] if with_proba else None,
    )
    sel = known & np.all(
        [classify_comparable(m, ir, X) for m, ir in zip(c.members, full, strict=True)], axis=0
    )
    if sel.any():
        want = np.zeros(X.shape[0], dtype=np.int32)
        want[sel] = vote.predict(c, model_values(ir0, X[sel]))
        bad |= check_against(
            report, "committee classifier (rows without missing values)", X, sel, c_cls, want
        )
    tally(report, X.shape[0], bad)


def weka_report(c: Committee, ds: Dataset, report: Report) -> None:
    """How many of ``ds``'s rows the integer vote decides otherwise than the trees'
    double vote (:mod:`treegen.committee.weka_vote`), and how close they are: a report
    line, not a failure."""
    report.lines.append(disagreement_line(c, ds))
