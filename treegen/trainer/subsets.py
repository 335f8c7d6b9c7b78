"""Grouping nominal values into subsets (``--subsets``, Release 8's ``-s``; section 8).

The specification only outlines Release 8's ``subset.c`` (greedy merging,
MINOBJS temporarily 1 during the search, impossible branches removed after
pruning).  The c45 flavour's search below was worked out from Release 8's
``-s`` trees on the nine reference sets (tests/reference/test_golden_c45_options.py)
and Quinlan's description (C4.5, ch. 7, "Grouping attribute values"):

1. one block per value with more than :data:`SPARE_CASES` (0.5) of known
   weight at the node; the other values (those without cases, and those
   with at most 0.5) share one extra block, which takes no part in merging
   (it stays a branch of its own, printed last: ``A6 = r: + (0.0)``,
   soybean's ``area-damaged in {scattered,low-areas}: cyst-nematode (0.2)``);
2. hill climbing: merge the pair of blocks whose merger scores best, as
   long as that score is strictly better than the current grouping's and
   more than two blocks remain (step 1's extra block counted while it holds
   cases), a merger that loses no gain (within epsilon) before any that
   does (soybean-r8's ``date`` at ``roots = rotted``, section 8) and, of
   those, the one that keeps the most gain (crx's ``A6`` at ``A9 = f / ...
   / A10 = f``);
   a grouping scores as Release 8's ``Worth``: its gain ratio (or gain with
   ``--criterion gain``) when its gain is at least the node's average gain
   (the average of the *plain* multiway gains, ``AvGain``, section 1 step 5,
   with the binary attributes tested above at 0: :func:`search_zeros`)
   less epsilon, else -epsilon; step 1's extra block is an outcome like the
   others here, in gain and split information; candidates need two outcomes
   with weight (no MINOBJS), and a candidate that loses gain against the
   current grouping must also pass the real MINOBJS test: two blocks with
   at least MINOBJS, or with *more* than MINOBJS when one of the merged
   blocks is below it, and not at all next to an empty block of step 1 when
   one is below it (:func:`admissible_mergers`; measured, see section 8);
3. the grouping the search ends with must pass the real MINOBJS test (two
   outcomes with at least MINOBJS cases), else it is no test at the node,
   though its gain still counts in the selection's average
   (``Score.selectable``; soybean-r8's leaf at ``roots = galls-cysts``);
4. its split information leaves step 1's extra block out (soybean-r8's
   ``date`` at ``int-discolor = brown``, section 8), and it is the
   attribute's test even where it is worth -epsilon against the plain
   average: the selection (section 1 step 6) averages the gains of the
   tests it compares, groupings included, which is lower where groupings
   lose gain (soybean-r8's 303-case ``int-discolor`` test, gain 0.193
   against a plain average of 0.203, a final one of 0.172).

MINOBJS here is the one growth currently uses: Release 8 leaves it at 1 for
the rest of the growth after the first node (depth first) where an attribute
with more than two values has no case with a known value
(:func:`minobjs_leaks`; soybean-r8, section 8).

An attribute with more than two values may be tested again below a subset
test; one with at most two values is scored as an ordinary nominal
attribute.

The level-wise engine runs a bucket's c45 searches together, to the same
results (:mod:`treegen.trainer.levelwise.grouping`); the node-by-node engine
calls :func:`best_subsets` per search.

The j48 flavour keeps treegen's earlier grouping (Weka's J48 has no
``-s``): merge the best-scoring pair until two blocks remain, keep the best
grouping seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.groups import Blocks, FloatArray, freq_of, merge, merged_freqs, pairs_of
from treegen.trainer.splits import Score, score_nominal, score_outcomes

SPARE_CASES = 0.5
"""A value with at most this much known weight at a node is not a block of the
c45 search: it joins the values without cases (measured on soybean-r8,
docs/C45.md section 8)."""

LEAKED_MINOBJS = 1.0
"""MINOBJS for the rest of a ``--subsets`` (c45) growth once :func:`minobjs_leaks`
has fired: the value Release 8 sets for its subset search and, measured on
soybean-r8, leaves in place (docs/C45.md section 8)."""


def minobjs_leaks(freq: FloatArray) -> bool:
    """Whether scoring ``Freq[v][c]`` (v = 0 unknown) of an attribute with more than two
    values leaves MINOBJS at :data:`LEAKED_MINOBJS` for the rest of the growth (c45).

    Release 8's soybean-r8 ``-s`` tree tests nodes of 3 and 2.1 cases
    (fewer than 2 * MINOBJS = 4), binary attributes with a branch of 1.0
    or 1.23 cases (``plant-growth``, ``leaf-malf``) and groupings with one
    block of at least MINOBJS (``temp = gt-norm`` 1 case against ``norm``
    10), all from its 7th evaluated node on, the first (depth first) where
    an attribute of more than two values has only unknown values
    (``severity`` at ``leafspot-size = lt-1/8 / canker-lesion =
    dk-brown-blk``); on the other eight reference sets no node has such an
    attribute and MINOBJS 2 holds throughout (crx does not test ``A1`` with
    branches of 8 and 1 cases).  The subset search sets MINOBJS to 1 and an
    early return for such an attribute does not put it back.
    """
    return not float(freq[1:].sum()) > 0.0


def leaking_attribute(ctx: Context, multi: list[int], freq3: FloatArray) -> int | None:
    """The first of ``multi`` (the attributes with more than two values; ``freq3`` their
    ``Freq[v][c]`` at a node, as :func:`~treegen.trainer.splits.nominal_freq` gives
    them) whose scoring leaves MINOBJS at :data:`LEAKED_MINOBJS`, or None: none does,
    MINOBJS has leaked already, or the flavour is j48."""
    if ctx.j48 or ctx.min_cases == LEAKED_MINOBJS:
        return None
    leaks = (a for j, a in enumerate(multi) if minobjs_leaks(freq3[j, : ctx.n_values[a] + 1]))
    return next(leaks, None)


def search_zeros(ctx: Context, tested: Iterable[int]) -> list[int]:
    """The attributes that count with gain 0 in the average the c45 search compares
    groupings against: the binary (nominal, at most two values) ones of ``tested``,
    the attributes tested on the node's path.

    Release 8 divides the plain gains' sum by a count that includes them (the
    selection's average does not count them; docs/C45.md section 8, step 1).
    Measured: at soybean-r8's ``leafspot-size = dna / ... / area-damaged =
    low-areas / canker-lesion = dk-brown-blk`` (59.9 cases; ``leaves`` and
    ``stem`` tested above) Release 8 merges ``date``'s september and october,
    gain 0.1344 to 0.1236, which the plain gains' average of 0.1267 less
    epsilon refuses and 0.1161 admits; at crx's ``A9 = f / ... / A10 = f``
    (``A9`` and ``A10`` above) its ``A7`` grouping has gain 0.0016, below
    0.0030 - epsilon, above 0.0024 - epsilon; at crx's
    ``A9 = t / A15 <= 228`` (``A9`` above) ``A6``'s merger to gain 0.0336 stays
    refused (0.0377 - epsilon).  Counting every attribute with one value at
    the node instead breaks soybean-r8's ``dna / int-discolor = none / leaves =
    norm``, counting them in the selection too its ``date = august`` node.
    """
    return [a for a in tested if ctx.kinds[a] != "continuous" and ctx.n_values[a] <= 2]


def worths(
    gain: FloatArray,
    info: FloatArray,
    criterion: str,
    average: float | npt.NDArray[np.float64] | None,
) -> npt.NDArray[np.float64]:
    """Each grouping's worth by ``criterion`` (``gain`` and ``info`` per grouping);
    -EPSILON where it is no candidate.

    With ``average`` (c45; one per grouping, or one for all), a grouping whose
    gain falls below its node's average gain is worth -EPSILON, as Release 8's
    ``Worth`` rates a test.  Computed in double, as Python floats would be.
    """
    g = np.asarray(gain, dtype=np.float64)
    i = np.asarray(info, dtype=np.float64)
    out = np.full(g.shape, -EPSILON)
    keep = ~(g <= -EPSILON)
    if average is not None:
        keep &= ~(g < average - EPSILON)
    if criterion == "gain":
        out[keep] = g[keep]
        return out
    keep &= i > EPSILON
    out[keep] = g[keep] / i[keep]
    return out


def _worth(gain: float, info: float, criterion: str, average: float | None) -> float:
    """:func:`worths` of one grouping."""
    return float(worths(np.array([gain]), np.array([info]), criterion, average)[0])


def admissible_mergers(
    min_cases: float,
    pair_w: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
    weights: FloatArray,
    gains: FloatArray,
    current: float | npt.NDArray[np.float64],
    beside_empty: bool | npt.NDArray[np.bool_] = False,
) -> npt.NDArray[np.bool_]:
    """Whether the c45 search may take each merger beyond the MINOBJS-1 test (section 8).

    Merger p joins two blocks of weights ``pair_w[0][p]`` and ``pair_w[1][p]``
    of the grouping it would replace (whose gain is ``current``, one per
    merger or one for all); ``weights[p]`` are the blocks' weights after it
    (-inf past them) and ``gains[p]`` its gain.  A merger that loses no gain (within
    epsilon) is admissible; one that does must leave two blocks with at
    least ``min_cases`` -- with more than ``min_cases`` when one of the two
    merged blocks is below ``min_cases``.  Measured on Release 8's ``-s``
    trees, not derived: vote-r8 keeps ``duty free exports`` n (19 cases),
    y (2), u (1) apart, where putting u into n leaves blocks of 20 and 2
    and loses gain, and one level down merges ``education spending`` u (1)
    into n (5), which leaves 6 and 13, but not n with y, which leaves 18
    and 1; monk2 merges blocks of 3 and 5 next to one of 2; crx and
    soybean-r8 merge pure blocks below MINOBJS, which loses no gain.

    ``beside_empty``: the grouping has the block of step 1 and that block
    holds no case.  There a merger of a block below ``min_cases`` that loses
    gain is refused: crx's ``A7`` at ``A9 = t / A15 <= 228 / A6 in
    {aa,c,d,j,k,m} / A11 <= 5 / A4 = u`` keeps j (1 case) apart from {v,bb}
    (38), next to the empty values, although the merger raises the gain
    ratio 0.215 -> 0.236 (gain 0.154 -> 0.134) and leaves blocks of 39 and
    6; next to soybean-r8's may (0.46 cases) at ``int-discolor = brown``
    Release 8 merges ``date``'s april (0.77) and june (0.63) for a loss.
    """
    lossless = np.asarray(gains, dtype=np.float64) >= current - EPSILON
    small = np.minimum(pair_w[0], pair_w[1]) < min_cases
    small_ok = (np.count_nonzero(weights > min_cases, axis=1) >= 2) & ~np.asarray(beside_empty)
    large_ok = np.count_nonzero(weights >= min_cases, axis=1) >= 2
    out: npt.NDArray[np.bool_] = lossless | np.where(small, small_ok, large_ok)
    return out


def _admissible(
    min_cases: float,
    pair: tuple[float, float],
    weights: FloatArray,
    gain: float,
    current: float,
    beside_empty: bool = False,
) -> bool:
    """:func:`admissible_mergers` of one merger: of two blocks weighing ``pair``, leaving
    blocks of ``weights``, with gain ``gain``."""
    w = np.asarray(weights)[None]
    pair_w = (np.array([pair[0]], dtype=np.float64), np.array([pair[1]], dtype=np.float64))
    return bool(
        admissible_mergers(min_cases, pair_w, w, np.array([gain]), current, beside_empty)[0]
    )


def best_subsets(
    ctx: Context,
    freq: FloatArray,
    cases: float,
    criterion: str,
    average: float | None = None,
) -> Score | None:
    """The best grouping of one attribute's values, given its ``Freq[v][c]`` (v=0 unknown).

    ``average`` is the node's average plain gain (c45 flavour; required there),
    against which the search compares groupings.  None: no grouping with two
    outcomes holding cases; a score that is not ``selectable``: a grouping that
    fails MINOBJS (it counts in the selection's average only).
    """
    if ctx.j48:
        return _j48_subsets(ctx, freq, cases, criterion)
    assert average is not None, "the c45 grouping scores against the average gain"
    k = freq.shape[0] - 1
    val_freq = freq[1:].sum(axis=1)
    blocks: Blocks = [[v] for v in range(k) if val_freq[v] > SPARE_CASES]
    spare = [v for v in range(k) if not val_freq[v] > SPARE_CASES]
    tail: Blocks = [spare] if spare else []
    if len(blocks) + len(tail) < 2:
        return None
    spare_held = bool(spare) and float(val_freq[spare].sum()) > 0.0  # step 1's block holds cases

    def score(
        f: FloatArray, n: int
    ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_], FloatArray]:
        """Gain, split info, admissibility and block weights (``ValFreq``) of each
        grouping of ``n`` blocks (frequencies ``f``) as the search sees it: step
        1's block is an outcome like the others, and any two outcomes with
        weight make a test (section 8)."""
        g, s, _ = score_nominal(ctx, f, cases)
        out_w = np.cumsum(f, axis=2, dtype=f.dtype)[:, 1:, -1]
        ok = np.count_nonzero(out_w > 0, axis=1) >= 2
        return g, s, ok, out_w[:, :n]

    empty_tail = bool(tail) and not spare_held
    current = freq_of(blocks + tail, freq)[None]  # the grouping the search is at
    g, s, ok, w = score(current, len(blocks))
    gain, block_w = float(g[0]), w[0]
    val = _worth(gain, float(s[0]), criterion, average) if ok[0] else -EPSILON
    m = float(ctx.min_cases)
    # Step 1's block counts among the blocks the search runs on while it holds cases.
    while len(blocks) >= 2 and len(blocks) + int(spare_held) > 2:
        pairs = pairs_of(len(blocks))
        f = merged_freqs(freq, blocks, current[0])
        g, s, ok, w = score(f, len(blocks) - 1)
        bw = np.asarray(block_w, dtype=np.float64)
        pair_w = (bw[[i for i, _ in pairs]], bw[[j for _, j in pairs]])
        admit = ok & admissible_mergers(m, pair_w, w, g, gain, empty_tail)
        vals = np.where(admit, worths(g, s, criterion, average), -EPSILON)
        p = int(np.argmax(vals))  # the first best pair
        if not vals[p] > val:
            break  # no merger improves on the current grouping
        # Among the mergers that improve on it, one that loses no gain goes
        # first, and of those the one that keeps the most gain, then the one
        # worth most, then the first (docstring step 2).
        g64 = g.astype(np.float64)
        lossless = np.flatnonzero((vals > val) & (g64 >= gain - EPSILON))
        if lossless.size:
            lossless = lossless[g64[lossless] == g64[lossless].max()]
            lossless = lossless[vals[lossless] == vals[lossless].max()]
            p = int(lossless[0])
        current = f[p : p + 1].copy()
        blocks = merge(blocks, *pairs[p])
        val, gain, block_w = float(vals[p]), float(g[p]), w[p]
    tail_row = np.array([len(current[0]) - 1 if spare_held else -1], dtype=np.intp)
    subsets = tuple(tuple(b) for b in blocks + tail)
    return final_scores(
        ctx, current, np.array([cases]), tail_row, [gain], [subsets], [len(blocks)]
    )[0]


def final_scores(
    ctx: Context,
    current: FloatArray,
    cases: npt.NDArray[np.float64],
    tail_row: npt.NDArray[np.intp],
    gains: Sequence[float],
    subsets: Sequence[tuple[tuple[int, ...], ...]],
    n_blocks: Sequence[int],
) -> list[Score | None]:
    """The scores of searches from the groupings they end with: ``current[t]`` (the
    unknown row, the blocks' sums, step 1's block; ``cases[t]`` the node's weight),
    ``tail_row[t]`` the row of step 1's block where it holds cases (else -1).

    The grouping a search ends with is the attribute's test even when it is worth
    -epsilon against the plain average: the selection judges it against the
    average of the tests it compares.  Its split information leaves step 1's
    block out (docstring step 4); one that fails the real MINOBJS test is no test
    at the node, but its gain still counts in the selection's average where it has
    two outcomes with cases (step 3).  Shared by :func:`best_subsets` and the
    level-wise engine's searches (treegen.trainer.levelwise.grouping).
    """
    _, info, passes = score_nominal(ctx, current, cases)
    held = np.flatnonzero(tail_row >= 0)
    if held.size:
        f = current[held].copy()
        f[np.arange(held.size), tail_row[held]] = 0
        info = info.copy()
        info[held] = score_nominal(ctx, f, cases[held])[1]
    out: list[Score | None] = []
    for t, groups in enumerate(subsets):
        score = Score(float(gains[t]), float(info[t]), subsets=groups)
        if passes[t]:
            out.append(score)
        elif n_blocks[t] + int(tail_row[t] >= 0) >= 2:
            out.append(replace(score, selectable=False))
        else:
            out.append(None)
    return out


def is_grouping(ctx: Context, subsets: tuple[tuple[int, ...], ...], n_values: int) -> bool:
    """Whether a test with value groups ``subsets`` is a subset test, not a plain nominal one.

    c45: unless the groups are the values one by one in declaration order.
    Release 8 prints a grouping's branches in block order, the values
    without cases last (golf: ``outlook = sunny``, ``= rain``, then
    ``= overcast``), so only the plain order is a plain test.  j48: any
    grouping with fewer blocks than values.
    """
    if not subsets:
        return False
    if ctx.j48:
        return len(subsets) < n_values
    return subsets != tuple((v,) for v in range(n_values))


def _j48_subsets(ctx: Context, freq: FloatArray, cases: float, criterion: str) -> Score | None:
    """The j48 flavour's grouping: merge down to two blocks, keep the best seen."""
    k = freq.shape[0] - 1
    val_freq = freq[1:].sum(axis=1)
    blocks: Blocks = []
    spare: list[int] = []
    for v in range(k):
        if val_freq[v] > 0.5:
            blocks.append([v])
        else:
            spare.append(v)
    if spare:
        blocks.append(spare)
    if len(blocks) < 2:
        return None

    # MINOBJS is 1 during the subset search (section 8).
    f = freq_of(blocks, freq)[None]
    g, s, ok = score_outcomes(ctx, f, cases, 1.0)
    best_blocks = [list(b) for b in blocks]
    best_gain, best_info = float(g[0]), float(s[0])
    best_val = _worth(best_gain, best_info, criterion, None) if ok[0] else -EPSILON
    current = f[0]
    while len(blocks) > 2:
        pairs = pairs_of(len(blocks))
        f = merged_freqs(freq, blocks, current)
        g, s, ok = score_outcomes(ctx, f, cases, 1.0)
        vals = [
            _worth(float(g[q]), float(s[q]), criterion, None) if ok[q] else -EPSILON
            for q in range(len(pairs))
        ]
        p = int(np.argmax(vals))  # first best pair
        current = f[p]
        blocks = merge(blocks, *pairs[p])
        if vals[p] > best_val:
            best_val, best_blocks = vals[p], [list(b) for b in blocks]
            best_gain, best_info = float(g[p]), float(s[p])
    if best_val <= -EPSILON:
        return None
    groups = tuple(tuple(b) for b in best_blocks)
    return Score(best_gain, best_info, subsets=groups)
