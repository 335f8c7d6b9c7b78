"""Grouping nominal values into subsets (``--subsets``, Release 8's ``-s``; section 8).

The specification only outlines Release 8's ``subset.c`` (greedy merging,
MINOBJS temporarily 1 during the search), and no reference output uses
``-s``, so this follows the published description of C4.5's method:

1. start with one block per value that has known cases (weight > 0.5);
   the remaining values share one extra block, which stays empty;
2. repeatedly merge the pair of blocks whose merger scores best (gain
   ratio, or gain with ``--criterion gain``), until two blocks remain;
3. keep the best-scoring partition seen (ties keep the earlier, finer one).

Scores use :func:`score_outcomes` (the same gain and split-info formulas as
a plain nominal split), with MINOBJS = 1 for admissibility.  An attribute
with more than two values may be tested again below a subset test; one with
at most two values is scored as an ordinary nominal attribute.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON
from treegen.trainer.context import Context
from treegen.trainer.splits import Score, score_outcomes

Blocks = list[list[int]]


def _worth(gain: float, info: float, criterion: str) -> float:
    """A partition's worth by ``criterion`` (gain ratio or gain); -EPSILON when none."""
    if gain <= -EPSILON:
        return -EPSILON
    if criterion == "gain":
        return gain
    return gain / info if info > EPSILON else -EPSILON


def _freq_of(blocks: Blocks, freq: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """(blocks + 1, C) frequencies: row 0 unknown, then each block's summed values."""
    out = np.zeros((len(blocks) + 1, freq.shape[1]), dtype=freq.dtype)
    out[0] = freq[0]
    for b, vals in enumerate(blocks):
        for v in vals:
            out[b + 1] = (out[b + 1] + freq[v + 1]).astype(freq.dtype)
    return out


def best_subsets(
    ctx: Context, freq: npt.NDArray[np.floating], cases: float, criterion: str
) -> Score | None:
    """The best grouping of one attribute's values, given its ``Freq[v][c]`` (v=0 unknown)."""
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

    def score(
        parts: list[Blocks],
    ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating], npt.NDArray[np.bool_]]:
        # MINOBJS is 1 during the subset search (section 8).
        return score_outcomes(ctx, np.stack([_freq_of(p, freq) for p in parts]), cases, 1.0)

    g, s, ok = score([blocks])
    best_blocks = [list(b) for b in blocks]
    best_gain, best_info = float(g[0]), float(s[0])
    best_val = _worth(best_gain, best_info, criterion) if ok[0] else -EPSILON
    while len(blocks) > 2:
        pairs = [(i, j) for i in range(len(blocks) - 1) for j in range(i + 1, len(blocks))]
        merged = []
        for i, j in pairs:
            m = [list(b) for b in blocks]
            m[i] = sorted(m[i] + m[j])
            del m[j]
            merged.append(m)
        g, s, ok = score(merged)
        vals = [
            _worth(float(g[p]), float(s[p]), criterion) if ok[p] else -EPSILON
            for p in range(len(pairs))
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
