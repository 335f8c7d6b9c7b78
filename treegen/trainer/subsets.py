"""Grouping nominal values into subsets (``--subsets``, Release 8's ``-s``; section 8).

The specification only outlines Release 8's ``subset.c`` (greedy merging,
MINOBJS temporarily 1 during the search, impossible branches removed after
pruning).  The c45 flavour's search below was worked out from Release 8's
``-s`` trees on the nine reference sets (tests/test_golden_c45_options.py)
and Quinlan's description (C4.5, ch. 7, "Grouping attribute values"):

1. one block per value with more than :data:`SPARE_CASES` (0.5) of known
   weight at the node; the other values (those without cases, and those
   with at most 0.5) share one extra block, which takes no part in merging
   (it stays a branch of its own, printed last: ``A6 = r: + (0.0)``,
   soybean's ``area-damaged in {scattered,low-areas}: cyst-nematode (0.2)``);
2. hill climbing: merge the pair of blocks whose merger scores best, as
   long as that score is strictly better than the current grouping's;
   a grouping scores as Release 8's ``Worth``: its gain ratio (or gain with
   ``--criterion gain``) when its gain is at least the node's average gain
   (the average of the *plain* multiway gains, ``AvGain``, section 1 step 5)
   less epsilon, else -epsilon; candidates need two blocks with weight >= 1
   (MINOBJS is 1 during the search), and a candidate that loses gain against
   the current grouping must also pass the real MINOBJS test: two blocks
   with at least ``--min-cases``, or with *more* than ``--min-cases`` when
   one of the merged blocks is below it, and, next to the block of step 1,
   lose at most :data:`SPARE_LOSS` of the gain when one is below it
   (:func:`_admissible`; measured, see section 8);
3. the ungrouped test must pass the real MINOBJS test (two values with at
   least ``--min-cases``), else the attribute is not admissible; a grouping
   that fails it is replaced by the ungrouped test, unless it lost no gain
   (more than epsilon) against it: soybean's kept groupings merge values of
   one pure class (``date`` at an 18-case node: july to october, 17 cases,
   against may with 1), where monk1 needs the ungrouped test (its
   ``attribute#5`` at an 8-case node); where the block of step 1 holds some
   weight (values with at most 0.5 cases), a failing grouping leaves the
   attribute out instead (crx, section 8);
4. when no plain test is admissible at the node (there is no average), the
   groupings still compete, against an average of 0.

An attribute with more than two values may be tested again below a subset
test; one with at most two values is scored as an ordinary nominal
attribute, but admissible with two values of at least ``--min-cases`` - 0.5
(:func:`binary_min_cases`; measured, section 8).

The j48 flavour keeps treegen's earlier grouping (Weka's J48 has no
``-s``): merge the best-scoring pair until two blocks remain, keep the best
grouping seen.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.select import average_gain
from treegen.trainer.splits import Score, score_outcomes

Blocks = list[list[int]]
FloatArray = npt.NDArray[np.floating]

SPARE_CASES = 0.5
"""A value with at most this much known weight at a node is not a block of the
c45 search: it joins the values without cases (measured on soybean-r8,
docs/C45.md section 8)."""

SPARE_LOSS = 0.01
"""Next to the block of the values without cases (step 1), a merger of a block below
MINOBJS that loses more than this fraction of the current grouping's gain is refused
(measured on crx; the losses either side are 13 % refused and 0.2 % taken, and 0.003
and 0.12 give the same trees on the nine reference sets, docs/C45.md section 8)."""

BINARY_SLACK = 0.5
"""With ``--subsets`` (c45) a binary attribute is admissible with two values of at
least ``--min-cases`` minus this (measured at MINOBJS 2, docs/C45.md section 8)."""


def binary_min_cases(ctx: Context) -> float:
    """The MINOBJS test of an attribute with at most two values under ``--subsets`` (c45).

    Release 8 tests soybean-r8's ``leaf-malf`` with branches of 1.76 and
    1.9995 known cases (MINOBJS 2) but not hypo's ``TT4 measured`` with
    1.32: any threshold in (1.32, 1.76] gives the same trees on the nine
    reference sets; ``--min-cases`` - 0.5 is one of them.
    """
    return ctx.min_cases - BINARY_SLACK


def grouping_average(ctx: Context, plain: dict[int, Score]) -> float | None:
    """The average gain the value groupings compete against: Release 8's average of
    the ``plain`` (ungrouped) scores, or 0 where no plain test is admissible at all
    (soybean-r8's 4.8-case ``roots = rotted`` node); None where some are but none
    counts in the average (the node stays a leaf)."""
    average = average_gain(ctx, plain)
    return 0.0 if average is None and not plain else average


def _worth(gain: float, info: float, criterion: str, average: float | None) -> float:
    """A grouping's worth by ``criterion``; -EPSILON when it is no candidate.

    With ``average`` (c45), a grouping whose gain falls below the node's
    average gain is worth -EPSILON, as Release 8's ``Worth`` rates a test.
    """
    if gain <= -EPSILON:
        return -EPSILON
    if average is not None and gain < average - EPSILON:
        return -EPSILON
    if criterion == "gain":
        return gain
    return gain / info if info > EPSILON else -EPSILON


def _freq_of(blocks: Blocks, freq: FloatArray) -> FloatArray:
    """(blocks + 1, C) frequencies: row 0 unknown, then each block's summed values."""
    out = np.zeros((len(blocks) + 1, freq.shape[1]), dtype=freq.dtype)
    out[0] = freq[0]
    for b, vals in enumerate(blocks):
        for v in vals:
            out[b + 1] = (out[b + 1] + freq[v + 1]).astype(freq.dtype)
    return out


def _pairs(n: int) -> list[tuple[int, int]]:
    """The block pairs (i, j), i < j, in the order :func:`_merges` merges them."""
    return [(i, j) for i in range(n - 1) for j in range(i + 1, n)]


def _merges(blocks: Blocks) -> list[Blocks]:
    """Every grouping one merge away from ``blocks``, pairs in :func:`_pairs` order."""
    out = []
    for i, j in _pairs(len(blocks)):
        m = [list(b) for b in blocks]
        m[i] = sorted(m[i] + m[j])
        del m[j]
        out.append(m)
    return out


def _admissible(
    min_cases: float,
    pair: tuple[float, float],
    weights: FloatArray,
    gain: float,
    current: float,
    beside_spare: bool = False,
) -> bool:
    """Whether the c45 search may take a merger beyond the MINOBJS-1 test (section 8).

    ``pair`` is the weight of the two merged blocks, ``weights`` the blocks'
    weights after the merger, ``gain`` its gain and ``current`` the gain of
    the grouping it would replace.  A merger that loses no gain (within
    epsilon) is admissible; one that does must leave two blocks with at
    least ``min_cases`` -- with more than ``min_cases`` when one of the two
    merged blocks is below ``min_cases``.  Measured on Release 8's ``-s``
    trees, not derived: vote-r8 keeps ``duty free exports`` n (19 cases),
    y (2), u (1) apart, where putting u into n leaves blocks of 20 and 2
    and loses gain, and one level down merges ``education spending`` u (1)
    into n (5), which leaves 6 and 13, but not n with y, which leaves 18
    and 1; monk2 merges blocks of 3 and 5 next to one of 2; crx and
    soybean-r8 merge pure blocks below MINOBJS, which loses no gain.

    ``beside_spare``: the grouping has the block of the values without cases
    (step 1).  There a merger of a block below ``min_cases`` that loses more
    than :data:`SPARE_LOSS` of the gain is refused: crx's ``A7`` at ``A9 = t
    / A15 <= 228 / A6 in {aa,c,d,j,k,m} / A11 <= 5 / A4 = u`` keeps j (1
    case) apart from {v,bb} (38) although the merger raises the gain ratio
    0.215 -> 0.236 (gain 0.154 -> 0.134, 13 %), where soybean-r8's
    ``roots = rotted`` merges ``area-damaged`` scattered (1.1) into
    whole-field (3.7) for a loss of 0.2 %.
    """
    if gain >= current - EPSILON:
        return True
    if min(pair) < min_cases:
        if beside_spare and gain < current * (1.0 - SPARE_LOSS):
            return False
        return int(np.count_nonzero(weights > min_cases)) >= 2
    return int(np.count_nonzero(weights >= min_cases)) >= 2


def best_subsets(
    ctx: Context,
    freq: FloatArray,
    cases: float,
    criterion: str,
    average: float | None = None,
) -> Score | None:
    """The best grouping of one attribute's values, given its ``Freq[v][c]`` (v=0 unknown).

    ``average`` is the node's average plain gain (c45 flavour; required there).
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
    ungrouped = [list(b) for b in blocks]

    def score(
        parts: list[Blocks], min_cases: float
    ) -> tuple[FloatArray, FloatArray, list[bool], FloatArray]:
        """Gain, split info, admissibility and block weights (``ValFreq``) of each grouping."""
        f = np.stack([_freq_of(p + tail, freq) for p in parts])
        g, s, ok = score_outcomes(ctx, f, cases, min_cases)
        weights = np.cumsum(f, axis=2, dtype=f.dtype)[:, 1 : len(parts[0]) + 1, -1]
        return g, s, [bool(x) for x in ok], weights

    g, s, ok, w = score([blocks], 1.0)  # MINOBJS is 1 during the search (section 8)
    gain, info, block_w = float(g[0]), float(s[0]), w[0]
    val = _worth(gain, info, criterion, average) if ok[0] else -EPSILON
    m = float(ctx.min_cases)
    while len(blocks) > 2:
        merged = _merges(blocks)
        g, s, ok, w = score(merged, 1.0)
        vals = [
            _worth(float(g[p]), float(s[p]), criterion, average)
            if ok[p]
            and _admissible(
                m, (float(block_w[i]), float(block_w[j])), w[p], float(g[p]), gain, bool(tail)
            )
            else -EPSILON
            for p, (i, j) in enumerate(_pairs(len(blocks)))
        ]
        p = int(np.argmax(vals))  # the first best pair
        if not vals[p] > val:
            break  # no merger improves on the current grouping
        blocks, val, gain, info, block_w = merged[p], vals[p], float(g[p]), float(s[p]), w[p]
    if val <= -EPSILON:
        return None
    g, s, ok, _ = score([blocks], m)
    if not ok[0]:
        if float(val_freq[spare].sum()) > 0.0:
            # Measured (crx, docs/C45.md section 8): beside small values with
            # cases, a failing grouping leaves the attribute out.
            return None
        # The grouping fails the real MINOBJS test: the ungrouped split instead,
        # unless the grouping lost no gain.
        g, s, ok, _ = score([ungrouped], m)
        if not ok[0]:
            return None
        if gain < float(g[0]) - EPSILON:
            blocks, gain, info = ungrouped, float(g[0]), float(s[0])
    return Score(gain, info, subsets=tuple(tuple(b) for b in blocks + tail))


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

    def score(parts: list[Blocks]) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
        # MINOBJS is 1 during the subset search (section 8).
        return score_outcomes(ctx, np.stack([_freq_of(p, freq) for p in parts]), cases, 1.0)

    g, s, ok = score([blocks])
    best_blocks = [list(b) for b in blocks]
    best_gain, best_info = float(g[0]), float(s[0])
    best_val = _worth(best_gain, best_info, criterion, None) if ok[0] else -EPSILON
    while len(blocks) > 2:
        merged = _merges(blocks)
        g, s, ok = score(merged)
        vals = [
            _worth(float(g[p]), float(s[p]), criterion, None) if ok[p] else -EPSILON
            for p in range(len(merged))
        ]
        p = int(np.argmax(vals))  # first best pair
        blocks = merged[p]
        if vals[p] > best_val:
            best_val, best_blocks = vals[p], [list(b) for b in blocks]
            best_gain, best_info = float(g[p]), float(s[p])
    if best_val <= -EPSILON:
        return None
    groups = tuple(tuple(b) for b in best_blocks)
    return Score(best_gain, best_info, subsets=groups)
