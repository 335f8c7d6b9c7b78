"""The c45 value-grouping search for many (node, attribute) pairs at once (``--subsets``).

:func:`treegen.trainer.subsets.best_subsets` searches one attribute at one
node; the level-wise engine has thousands of such searches per bucket, most
of a few blocks, where numpy's per-call cost is the whole cost (about 40x
plain training).  :func:`best_subsets_many` runs them in lockstep: each step
builds, scores and rates every search's candidate mergers in one set of
array operations, then each search takes its merger or stops.  Every number
is the one the single search computes, in the same order (merged blocks
summed value by value, zero rows as padding, which adds nothing), so each
search ends where :func:`~treegen.trainer.subsets.best_subsets` ends
(tests/test_subsets_search.py and the engine-equality tests hold them
equal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.splits import Score, score_nominal
from treegen.trainer.subsets import (
    SPARE_CASES,
    Blocks,
    FloatArray,
    _admissible_all,
    _freq_of,
    _merge,
    _worths,
    best_subsets,
)


@dataclass
class _Search:
    """One search's state: its blocks, the grouping it is at (``current``: unknown
    row, the blocks' sums, step 1's block) and that grouping's gain and worth."""

    freq: FloatArray
    cases: float
    average: float
    blocks: Blocks
    tail: Blocks
    spare_held: bool
    empty_tail: bool
    current: FloatArray
    gain: float = 0.0
    val: float = -EPSILON
    block_w: FloatArray | None = None
    done: bool = False


def _start(freq: FloatArray, cases: float, average: float) -> _Search | None:
    """The search's first grouping (one block per value above SPARE_CASES), or None
    when it has fewer than two blocks with step 1's (no grouping at all)."""
    k = freq.shape[0] - 1
    val_freq = freq[1:].sum(axis=1)
    blocks: Blocks = [[v] for v in range(k) if val_freq[v] > SPARE_CASES]
    spare = [v for v in range(k) if not val_freq[v] > SPARE_CASES]
    tail: Blocks = [spare] if spare else []
    if len(blocks) + len(tail) < 2:
        return None
    spare_held = bool(spare) and float(val_freq[spare].sum()) > 0.0
    return _Search(
        freq,
        cases,
        average,
        blocks,
        tail,
        spare_held,
        bool(tail) and not spare_held,
        _freq_of(blocks + tail, freq),
    )


def _stack(rows: list[FloatArray], width: int) -> FloatArray:
    """(len(rows), width, C): each grouping's rows, zero rows after them."""
    out = np.zeros((len(rows), width, rows[0].shape[1]), dtype=rows[0].dtype)
    for r, f in enumerate(rows):
        out[r, : len(f)] = f
    return out


def _scores(
    ctx: Context, f: FloatArray, cases: FloatArray
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_], FloatArray]:
    """Gain, split info, MINOBJS test, two outcomes with weight, and the outcomes'
    weights of each grouping (as ``best_subsets``' ``score`` sees them)."""
    g, s, passes = score_nominal(ctx, f, cases)
    out_w = np.cumsum(f, axis=2, dtype=f.dtype)[:, 1:, -1]
    ok = np.count_nonzero(out_w > 0, axis=1) >= 2
    return g, s, passes, ok, out_w


def _candidates(
    searches: list[_Search], active: list[int], width: int
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp], FloatArray]:
    """Every merger of two blocks of the active searches: the search of each, its pair
    and the grouping it makes, laid out as ``current`` (padded to ``width`` rows)."""
    seg: list[int] = []
    pairs: list[tuple[int, int]] = []
    for a in active:
        n = len(searches[a].blocks)
        for i in range(n - 1):
            for j in range(i + 1, n):
                seg.append(a)
                pairs.append((i, j))
    owner = np.asarray(seg, dtype=np.intp)
    first = np.asarray([i for i, _ in pairs], dtype=np.intp)
    second = np.asarray([j for _, j in pairs], dtype=np.intp)
    kmax = max(searches[a].freq.shape[0] - 1 for a in active)
    c = searches[active[0]].freq.shape[1]
    values = np.zeros((len(searches), kmax, c), dtype=searches[active[0]].freq.dtype)
    label = np.full((len(searches), kmax), -1, dtype=np.intp)
    currents = np.zeros((len(searches), width, c), dtype=values.dtype)
    n_blocks = np.zeros(len(searches), dtype=np.intp)
    for a in active:
        s = searches[a]
        values[a, : s.freq.shape[0] - 1] = s.freq[1:]
        for b, vals in enumerate(s.blocks):
            label[a, vals] = b
        currents[a, : len(s.current)] = s.current
        n_blocks[a] = len(s.blocks)
    # The merged block: its values added in order, as _freq_of sums them (+0 elsewhere).
    merged = np.zeros((len(pairs), c), dtype=values.dtype)
    lab = label[owner]
    for v in range(kmax):
        inside = (lab[:, v] == first) | (lab[:, v] == second)
        merged = merged + np.where(inside[:, None], values[owner, v], 0)
    # The other blocks keep their order, the merged one at the first's place, then
    # step 1's block (the current grouping's row after its blocks), then zeros.
    out = np.zeros((len(pairs), width, c), dtype=values.dtype)
    out[:, 0] = currents[owner, 0]
    n_col = n_blocks[owner][:, None]
    r = np.arange(width - 1, dtype=np.intp)[None, :]
    src = r + (r >= second[:, None])
    keep = r < n_col - 1
    rows = np.where(keep, 1 + src, width - 1)
    body = currents[owner[:, None], np.minimum(rows, width - 1)]
    body[~keep] = 0
    body[src == first[:, None]] = merged[np.nonzero(src == first[:, None])[0]]
    out[:, 1:] = body
    has_tail = np.asarray([bool(searches[a].tail) for a in seg], dtype=np.bool_)
    tail_rows = np.nonzero(has_tail)[0]
    out[tail_rows, n_blocks[owner[tail_rows]]] = currents[
        owner[tail_rows], n_blocks[owner[tail_rows]] + 1
    ]
    return owner, first, second, out


def best_subsets_many(
    ctx: Context,
    freqs: list[FloatArray],
    cases: list[float],
    criterion: str,
    averages: list[float],
) -> list[Score | None]:
    """:func:`~treegen.trainer.subsets.best_subsets` (c45) of each ``freqs[t]``
    (``Freq[v][c]`` of one attribute at one node, ``cases[t]`` its weight,
    ``averages[t]`` its node's average plain gain), all searched at once."""
    if ctx.j48:
        return [
            best_subsets(ctx, f, c, criterion, a)
            for f, c, a in zip(freqs, cases, averages, strict=True)
        ]
    starts = [_start(f, c, a) for f, c, a in zip(freqs, cases, averages, strict=True)]
    searches = [s for s in starts if s is not None]
    if searches:
        _search(ctx, searches, criterion)
    out: list[Score | None] = []
    it = iter(_finish(ctx, searches) if searches else [])
    for s in starts:
        out.append(None if s is None else next(it))
    return out


def _search(ctx: Context, searches: list[_Search], criterion: str) -> None:
    """Run every search to its end (``best_subsets``' loop, in lockstep)."""
    width = max(len(s.current) for s in searches)
    cases = np.asarray([s.cases for s in searches], dtype=np.float64)
    averages = np.asarray([s.average for s in searches], dtype=np.float64)
    g, s, _, ok, w = _scores(ctx, _stack([x.current for x in searches], width), cases)
    vals0 = np.where(ok, _worths(g, s, criterion, averages), -EPSILON)
    for t, x in enumerate(searches):
        x.gain, x.val, x.block_w = float(g[t]), float(vals0[t]), w[t, : len(x.blocks)]
    m = float(ctx.min_cases)
    while True:
        active = [
            t
            for t, x in enumerate(searches)
            if not x.done and len(x.blocks) >= 2 and len(x.blocks) + int(x.spare_held) > 2
        ]
        if not active:
            return
        owner, first, second, f = _candidates(searches, active, width)
        g, s, _, ok, w = _scores(ctx, f, cases[owner])
        n_of = np.asarray([len(x.blocks) for x in searches], dtype=np.intp)[owner]
        # The blocks' weights after each merger (columns past them can never count).
        weights = np.where(np.arange(w.shape[1])[None, :] < (n_of - 1)[:, None], w, -np.inf)
        block_w = np.zeros((len(searches), width), dtype=np.float64)
        for a in active:
            bw = searches[a].block_w
            assert bw is not None
            block_w[a, : len(bw)] = bw
        gain_s = np.asarray([x.gain for x in searches], dtype=np.float64)
        val_s = np.asarray([x.val for x in searches], dtype=np.float64)
        beside = np.asarray([x.empty_tail for x in searches], dtype=np.bool_)
        admit = ok & _admissible_all(
            m,
            (block_w[owner, first], block_w[owner, second]),
            weights,
            g,
            gain_s[owner],
            beside[owner],
        )
        vals = np.where(admit, _worths(g, s, criterion, averages[owner]), -EPSILON)
        assert not np.isnan(vals).any(), "blocks hold known cases: finite gains"
        for a, p in _choices(owner, vals, g.astype(np.float64), val_s, gain_s, len(searches)):
            x = searches[a]
            if p < 0:
                x.done = True  # no merger improves on its grouping
                continue
            n = len(x.blocks)
            x.blocks = _merge(x.blocks, int(first[p]), int(second[p]))
            x.current = f[p, : n + len(x.tail)].copy()
            x.val, x.gain, x.block_w = float(vals[p]), float(g[p]), w[p, : n - 1]


def _choices(
    owner: npt.NDArray[np.intp],
    vals: npt.NDArray[np.float64],
    g64: npt.NDArray[np.float64],
    val_s: npt.NDArray[np.float64],
    gain_s: npt.NDArray[np.float64],
    n_searches: int,
) -> list[tuple[int, int]]:
    """(search, the merger it takes, or -1 to stop) for each search with candidates:
    the first best one if it improves on the search's grouping, where one that loses
    no gain goes first, the one keeping most gain, then worth most, then the first
    (``best_subsets``' rule, on every search at once)."""
    P = len(owner)
    index = np.arange(P)
    seg_start = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    seg_of = np.cumsum(np.r_[False, owner[1:] != owner[:-1]])
    best = np.maximum.reduceat(vals, seg_start)
    at_best = vals == best[seg_of]
    first_best = np.full(len(seg_start), P)
    np.minimum.at(first_best, seg_of[at_best], index[at_best])
    improves = best > val_s[owner[seg_start]]
    chosen = np.where(improves, first_best, -1)
    lossless = np.flatnonzero((vals > val_s[owner]) & (g64 >= gain_s[owner] - EPSILON))
    if lossless.size:
        order = lossless[np.lexsort((lossless, -vals[lossless], -g64[lossless], seg_of[lossless]))]
        lead = np.r_[True, seg_of[order][1:] != seg_of[order][:-1]]
        chosen[seg_of[order[lead]]] = order[lead]
    assert n_searches >= len(seg_start)
    return [(int(owner[seg_start[k]]), int(chosen[k])) for k in range(len(seg_start))]


def _finish(ctx: Context, searches: list[_Search]) -> list[Score | None]:
    """Each search's Score, as ``best_subsets`` makes it from where it ended."""
    width = max(len(s.current) for s in searches)
    cases = np.asarray([s.cases for s in searches], dtype=np.float64)
    f = _stack([x.current for x in searches], width)
    _, info, passes = score_nominal(ctx, f, cases)
    held = [t for t, x in enumerate(searches) if x.spare_held]
    if held:
        f2 = f[held].copy()
        for r, t in enumerate(held):
            f2[r, len(searches[t].current) - 1] = 0  # step 1's block left out
        info = info.copy()
        info[held] = score_nominal(ctx, f2, cases[held])[1]
    out: list[Score | None] = []
    for t, x in enumerate(searches):
        subsets = tuple(tuple(b) for b in x.blocks + x.tail)
        if passes[t]:
            out.append(Score(x.gain, float(info[t]), subsets=subsets))
        elif len(x.blocks) + int(x.spare_held) >= 2:
            out.append(Score(x.gain, float(info[t]), subsets=subsets, selectable=False))
        else:
            out.append(None)
    return out
