"""Scoring every attribute at a node in Release 8's case order (docs/C45.md sections 1-3, 8).

Release 8 evaluates the attributes one after another on the node's segment of
the case array, and the continuous ones reorder it: each moves its cases with an
unknown value to the front (:meth:`~treegen.trainer.release8.cases.Cases.to_front`)
and sorts the others (:meth:`~treegen.trainer.release8.cases.Cases.sort`), so
every attribute's sums run in the order the attributes before it left.  This
module walks the attributes in that order and records, per attribute, the sums
Release 8 makes at that moment; the formulas then run on all of them at once
(:func:`treegen.trainer.splits.eval_continuous`,
:func:`treegen.trainer.nominal.score_outcomes`), as they depend on nothing else.

``MinObjs`` is the node's state that ``--subsets`` can change for good in the
middle of the walk (:mod:`treegen.trainer.release8.subset`, step 1); the
attributes after that one see MINOBJS 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from treegen.trainer import sparse
from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.nominal import score_outcomes
from treegen.trainer.release8 import segments
from treegen.trainer.release8.cases import F32, Cases, add_at
from treegen.trainer.select import worth
from treegen.trainer.splits import ContScores, Score, eval_continuous
from treegen.trainer.subsets import eval_subset


@dataclass
class State:
    """What stays from node to node in one growth: MINOBJS (which ``--subsets`` can
    lower to 1 for good), how often each attribute is tested on the current path,
    the options."""

    min_cases: float
    tested: list[int]
    subsets: bool
    gainratio: bool
    leaked: bool = False
    # Per attribute, its gain counts in the average gain (section 1 step 5).
    in_average: list[bool] = field(default_factory=list)
    progress: Callable[[str, int], None] | None = None
    nodes: int = 0
    # The C path's per-class buffers (segments.py), where it scores continuous attributes.
    scratch: segments.Scratch | None = None


@dataclass
class _Cont:
    """A continuous attribute's segment as Release 8 scanned it."""

    att: int
    rows: npt.NDArray[np.intp]
    w: npt.NDArray[np.float32]
    items: float
    unknown: float
    min_cases: float


def _continuous(cases: Cases, att: int, fp: int, lp: int, state: State) -> _Cont:
    """Set the unknown values aside and sort the rest (``EvalContinuousAtt``'s reordering)."""
    ctx = cases.ctx
    items = cases.count(fp, lp)
    vals = ctx.value_col(att)[cases.rows(fp, lp)]
    unknown = np.isnan(vals)
    # Freq[0][c] in the order the scan meets them, then ValFreq[0] over the classes
    # (0 without unknown values: a sum of zeros; with thousands of classes, most nodes).
    val0 = 0.0
    unk_pos = np.flatnonzero(unknown)
    if unk_pos.size:
        freq0 = np.zeros(ctx.n_classes, dtype=F32)
        add_at(freq0, ctx.y[cases.order[fp + unk_pos]], cases.weight[fp + unk_pos])
        val0 = float(np.cumsum(freq0, dtype=F32)[-1])
    xp = cases.to_front(unknown, fp)
    if F32(F32(items) - F32(val0)) >= 2 * state.min_cases:
        cases.sort(ctx.value_col(att)[cases.rows(xp, lp)], xp)
    return _Cont(
        att,
        cases.rows(xp, lp).copy(),
        cases.weight[xp : lp + 1].copy(),
        items,
        val0,
        state.min_cases,
    )


def _score_continuous(cases: Cases, found: list[_Cont]) -> dict[int, Score]:
    ctx = cases.ctx
    out: dict[int, Score] = {}
    saved = ctx.min_cases
    try:
        for m in sorted({c.min_cases for c in found}):
            group = [c for c in found if c.min_cases == m]
            ctx.min_cases = m
            kpos = np.asarray([ctx.cont_pos[c.att] for c in group], dtype=np.intp)
            items = np.asarray([c.items for c in group], dtype=F32)
            unknown = np.asarray([c.unknown for c in group], dtype=F32)
            if sparse.available(ctx):
                # The same scores in time linear in the cases and classes present.
                rows, ws = [c.rows for c in group], [c.w for c in group]
                cs = sparse.eval_continuous_sparse(ctx, kpos, rows, ws, items, unknown)
            else:
                cs = _padded(ctx, group, kpos, items, unknown)
            for r in np.flatnonzero(cs.ok).tolist():
                out[group[r].att] = Score(float(cs.gain[r]), float(cs.info[r]), float(cs.bar[r]))
    finally:
        ctx.min_cases = saved
    return out


def _padded(
    ctx: Context,
    group: list[_Cont],
    kpos: npt.NDArray[np.intp],
    items: npt.NDArray[np.float32],
    unknown: npt.NDArray[np.float32],
) -> ContScores:
    """:func:`eval_continuous` (numpy) on the group's segments padded into 2-D arrays."""
    width = max(max(c.rows.size for c in group), 2)
    rows2d = np.full((len(group), width), ctx.n_rows, dtype=np.intp)
    w2d = np.zeros((len(group), width), dtype=F32)
    for r, c in enumerate(group):
        rows2d[r, : c.rows.size] = c.rows
        w2d[r, : c.rows.size] = c.w
    lens = np.asarray([c.rows.size for c in group], dtype=np.intp)
    return eval_continuous(ctx, kpos, rows2d, w2d, lens, items, unknown)


def _score_nominal(
    cases: Cases, found: list[tuple[int, npt.NDArray[np.float32], float, float]], items: float
) -> dict[int, Score]:
    ctx = cases.ctx
    out: dict[int, Score] = {}
    for m in sorted({f[3] for f in found}):
        group = [f for f in found if f[3] == m]
        width = max(f[1].shape[0] for f in group)
        freq = np.zeros((len(group), width, ctx.n_classes), dtype=F32)
        for r, f in enumerate(group):
            freq[r, : f[1].shape[0]] = f[1]
        now = np.asarray([f[2] for f in group], dtype=F32)
        gain, info, ok = score_outcomes(ctx, freq, items, m, unknown_of=now)
        for r in np.flatnonzero(ok).tolist():
            out[group[r][0]] = Score(float(gain[r]), float(info[r]))
    return out


def evaluate(cases: Cases, fp: int, lp: int, items: float, state: State) -> dict[int, Score]:
    """Every admissible attribute's score at the node ``fp..lp`` (``items``: its
    ``Cases``), in Release 8's order of evaluation; the segment is left reordered as
    Release 8 leaves it."""
    ctx = cases.ctx
    cont: list[_Cont] = []
    fast = None
    if state.scratch is not None:
        fast = segments.NodeSegments(cases, state.scratch, fp, lp, len(ctx.cont_pos))
    nom: list[tuple[int, npt.NDArray[np.float32], float, float]] = []
    scores: dict[int, Score] = {}
    for att, kind in enumerate(ctx.kinds):
        if kind == "continuous":
            if fast is not None:
                fast.add(att, state.min_cases)
            else:
                cont.append(_continuous(cases, att, fp, lp, state))
        elif kind != "nominal":
            continue
        elif state.subsets and ctx.n_values[att] > 2:
            freq = cases.value_freq(att, fp, lp)
            found = eval_subset(
                ctx, freq, items, cases.count(fp, lp), state.min_cases, state.gainratio
            )
            if found.leaked:
                state.min_cases, state.leaked = 1.0, True
            elif found.score is not None:
                scores[att] = found.score
        elif not state.tested[att]:
            freq = cases.value_freq(att, fp, lp)
            nom.append((att, freq, cases.count(fp, lp), state.min_cases))
    if fast is not None:
        scores.update(fast.scores())
    if cont:
        scores.update(_score_continuous(cases, cont))
    if nom:
        scores.update(_score_nominal(cases, nom, items))
    return {a: s for a, s in sorted(scores.items()) if F32(s.gain) > -EPSILON}


def choose(scores: dict[int, Score], state: State) -> int:
    """The attribute to test, or -1 (section 1 steps 5 and 6)."""
    counted = {a: s for a, s in scores.items() if state.in_average[a]}
    total = F32(0)
    for s in counted.values():
        total = F32(total + F32(s.gain))
    av = float(F32(total / F32(len(counted)))) if counted else 1e6
    best, best_val = -1, -EPSILON
    for a, s in scores.items():
        val = worth(s.info, s.gain, av, state.gainratio)
        if val > best_val:
            best, best_val = a, val
    return best


def in_average(cases: Cases) -> list[bool]:
    """Per attribute, whether its gain counts in the average (section 1 step 5)."""
    return [cases.ctx.counts_in_average(a) for a in range(len(cases.ctx.kinds))]
