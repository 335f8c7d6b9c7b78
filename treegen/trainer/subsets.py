"""Grouping a nominal attribute's values into subsets (``--subsets``, Release 8's ``-s``).

docs/C45.md section 8 describes the search; :func:`eval_subset` runs it on one
attribute's ``Freq[v][c]`` table at a node (v = 0 unknown), as Release 8's
``EvalSubset`` does (c45 flavour, every engine):

1. MINOBJS is 1 while the groupings are scored.  With no known case (less
   than ``Epsilon`` of known weight) the attribute is not admissible, and
   Release 8 returns without setting MINOBJS back: from then on growth runs
   with MINOBJS 1 (docs/RELEASE8_BUGS.md item 3; ``Grouping.leaked`` tells the caller).
2. The gain, split information and worth of the plain multiway test are
   computed (the worth against a minimum gain of ``Epsilon``); the base
   information stays that of all the values.
3. Each value with more than 0.5 cases becomes a block, in value order; the
   others are left out of the blocks (their cases are in no block, so they add
   nothing to the gain) and become one extra branch at the end.
4. Blocks whose cases are (within 0.1) of one class are merged with the later
   blocks of that same class.
5. While more than two blocks remain, every pair is merged on trial (leaving out
   the largest block when fewer than three blocks hold MINOBJS cases); the best
   trial is the last of equal worth, except that one reaching half the plain
   test's gain beats any that does not.  With gain ratio the search stops when
   the best worth is not 1e-5 above the current one (or there is no trial).
   Merged blocks' weights are float sums of the two blocks' weights, and a
   merger moves the last block into the place of the block merged away.
6. The result is admissible when its worth is above 0 and its gain, computed
   again with the real MINOBJS (two blocks need MINOBJS cases), above
   ``-Epsilon``; its split information is the grouping's without the extra branch.

Weka's J48 has no ``-s``, so the j48 flavour has no grouping: ``TrainOptions`` and
each growth function (on its context's flavour) refuse ``--subsets`` with ``--flavor j48``
(:func:`treegen.model.options.refuse_subsets_with`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer.constants import EPSILON, GROUPING_MIN_RISE
from treegen.trainer.context import Context
from treegen.trainer.nominal import nominal_freq, score_outcomes
from treegen.trainer.select import worth
from treegen.trainer.splits import Score
from treegen.trainer.stats import base_info_many

F32 = np.float32
FloatArray = npt.NDArray[np.floating]
SMALL_VALUE = 0.5  # a value with no more cases than this is no block (step 3)
ONE_CLASS = 0.1  # a block is of one class when all but this much is (step 4)


LEAKED_MINOBJS = 1.0
"""MINOBJS for the rest of a c45 ``--subsets`` growth once a grouping has met an
attribute with no known case at a node (step 1)."""


def leaking_attribute(
    ctx: Context, rows: npt.NDArray[np.intp], w: FloatArray, cases: float
) -> int | None:
    """The first attribute (in attribute order) whose grouping at the node of ``rows``
    (weights ``w``, total ``cases``) finds no known case and so leaves MINOBJS at 1
    (step 1), or None: none does, or MINOBJS is 1 already."""
    if ctx.min_cases == LEAKED_MINOBJS:
        return None
    multi = [a for a in ctx.nom_pos if ctx.n_values[a] > 2]
    if not multi:
        return None
    unknown = nominal_freq(ctx, multi, rows, w)[:, 0, :]
    val0 = np.cumsum(unknown, axis=1, dtype=F32)[:, -1]
    known = (F32(cases) - val0).astype(F32)
    leaks = [a for j, a in enumerate(multi) if known[j] < EPSILON]
    return leaks[0] if leaks else None


def is_grouping(subsets: tuple[tuple[int, ...], ...]) -> bool:
    """Whether a test with value groups ``subsets`` is a subset test, not a plain nominal
    one: every grouping is (Release 8 makes a subset test of every attribute of more
    than two values with ``-s``, even one whose values stay apart)."""
    return bool(subsets)


@dataclass(frozen=True)
class Grouping:
    """What :func:`eval_subset` found: the score (None: not admissible) and whether the
    attribute had no known case (then MINOBJS stays 1, step 1)."""

    score: Score | None
    leaked: bool


class Table:
    """One attribute's blocks at a node as Release 8 keeps them while merging: the
    ``Freq`` rows and ``ValFreq`` of the unknown row (0) and blocks ``1..``, and the
    values of each block; with what scoring them needs (the node's ``Cases``, the
    ``CountItems`` the unknown rate divides by, the base information)."""

    def __init__(
        self,
        ctx: Context,
        freq: npt.NDArray[np.float32],
        items: float,
        count_now: float,
        base: npt.NDArray[np.float32],
    ) -> None:
        self.ctx = ctx
        self.freq = freq.copy()
        self.val = np.cumsum(freq, axis=1, dtype=F32)[:, -1]
        self.sets: list[set[int]] = [set() for _ in range(freq.shape[0])]
        self.items = items
        self.count_now = count_now
        self.base = base

    def combine(self, x: int, y: int, last: int) -> None:
        """Merge block y into x (float sums), block ``last`` moving to y."""
        self.freq[x] = self.freq[x] + self.freq[y]
        self.freq[y] = self.freq[last]
        self.val[x] = F32(self.val[x] + self.val[y])
        self.val[y] = self.val[last]
        self.sets[x] |= self.sets[y]
        self.sets[y] = self.sets[last]

    def _score(
        self, freq: FloatArray, val: FloatArray, minobjs: float
    ) -> tuple[list[float], list[float]]:
        n = freq.shape[0]
        g, i, ok = score_outcomes(
            self.ctx,
            freq,
            np.full(n, self.items, dtype=F32),
            minobjs,
            unknown_of=np.full(n, self.count_now, dtype=F32),
            val_freq=val,
            base=np.repeat(self.base, n),
        )
        return np.where(ok, g, -EPSILON).tolist(), i.tolist()

    def gain_info(self, blocks: int, minobjs: float) -> tuple[float, float]:
        """``ComputeGain`` (``-EPSILON`` when not admissible) and the split information
        of the unknown row and the first ``blocks`` blocks."""
        g, i = self._score(self.freq[None, : blocks + 1], self.val[None, : blocks + 1], minobjs)
        return g[0], i[0]

    def trials(self, blocks: int, pairs: list[tuple[int, int]]) -> tuple[list[float], list[float]]:
        """:meth:`gain_info` (MINOBJS 1) of every merger in ``pairs``, all at once: each
        trial's table is the current one with block y merged into x and the last block
        moved to y, as :meth:`combine` leaves it."""
        if not pairs:
            return [], []
        xs = np.asarray([p[0] for p in pairs], dtype=np.intp)
        ys = np.asarray([p[1] for p in pairs], dtype=np.intp)
        rows = np.arange(len(pairs))
        freq_p = np.repeat(self.freq[None, :blocks], len(pairs), axis=0)
        val_p = np.repeat(self.val[None, :blocks], len(pairs), axis=0)
        keep_y = ys < blocks  # y the last block: it just goes
        freq_p[rows[keep_y], ys[keep_y]] = self.freq[blocks]
        val_p[rows[keep_y], ys[keep_y]] = self.val[blocks]
        freq_p[rows, xs] = self.freq[xs] + self.freq[ys]
        val_p[rows, xs] = (self.val[xs] + self.val[ys]).astype(F32)
        return self._score(freq_p, val_p, 1.0)


def eval_subset(
    ctx: Context,
    freq: npt.NDArray[np.float32],
    items: float,
    count_now: float,
    min_cases: float,
    gainratio: bool,
) -> Grouping:
    """Release 8's grouping of one attribute at a node.

    ``freq``: ``Freq[v][c]`` (values + 1, classes), summed in the node's case order;
    ``items``: the node's ``Cases``; ``count_now``: ``CountItems`` of the node's cases
    in their order when the attribute is evaluated (the unknown rate's denominator);
    ``min_cases``: MINOBJS in force.
    """
    k = freq.shape[0] - 1
    val0 = np.cumsum(freq[0], dtype=F32)[-1]
    known = F32(F32(items) - val0)
    if known < EPSILON:
        return Grouping(None, True)
    class_known = np.cumsum(freq[1:], axis=0, dtype=F32)[-1][None, :]
    base = base_info_many(class_known, np.asarray([known], dtype=F32), F32)
    t = Table(ctx, freq, items, count_now, base)
    prev_gain, prev_info = t.gain_info(k, 1.0)
    prev_val = worth(prev_info, prev_gain, EPSILON, gainratio)
    blocks, spare = 0, set()
    for v in range(1, k + 1):
        if t.val[v] > SMALL_VALUE:
            blocks += 1
            t.freq[blocks], t.val[blocks] = t.freq[v], t.val[v]
            t.sets[blocks] = {v - 1}
        else:
            spare.add(v - 1)
    merged = False
    v1 = 1
    while v1 <= blocks - 1:
        c = int(np.argmax(t.freq[v1] >= ONE_CLASS))
        if not t.freq[v1][c] < t.val[v1] - ONE_CLASS:
            v2 = v1 + 1
            while v2 <= blocks:
                if t.freq[v2][c] < t.val[v2] - ONE_CLASS:
                    v2 += 1
                    continue
                t.combine(v1, v2, blocks)
                blocks -= 1
                merged = True
        v1 += 1
    if merged:
        prev_gain, prev_info = t.gain_info(blocks, 1.0)
        prev_val = worth(prev_info, prev_gain, EPSILON, gainratio)
    min_gain = float(F32(prev_gain) / F32(2))
    while blocks > 2:
        reasonable = int(np.count_nonzero(t.val[1 : blocks + 1] >= min_cases))
        barred = 1
        for v in range(1, blocks + 1):
            if t.val[v] > t.val[barred]:
                barred = v
        if reasonable >= 3:
            barred = 0
        pairs = [
            (x, y)
            for x in range(1, blocks)
            for y in range(x + 1, blocks + 1)
            if barred not in (x, y)
        ]
        best_val, best_gain, best_info, best_pair = 0.0, -EPSILON, 0.0, (0, 0)
        for (x, y), g, i in zip(pairs, *t.trials(blocks, pairs), strict=True):
            val = worth(i, g, EPSILON, gainratio)
            if (
                (g >= min_gain and best_gain < min_gain)
                or val >= best_val
                or (best_pair[0] == 0 and (not gainratio or reasonable < 2))
            ):
                best_val, best_gain, best_info, best_pair = val, g, i, (x, y)
        if (
            gainratio
            and reasonable >= 2
            and (
                best_pair[0] == 0
                or best_val < prev_val + GROUPING_MIN_RISE
                or (best_val == prev_val and best_gain < prev_gain)
            )
        ):
            break
        prev_gain, prev_info, prev_val = best_gain, best_info, best_val
        t.combine(*best_pair, blocks)
        blocks -= 1
    if prev_val <= 0:
        return Grouping(None, False)
    gain, _ = t.gain_info(blocks, min_cases)
    if not np.float32(gain) > -EPSILON:
        return Grouping(None, False)
    groups = [tuple(sorted(t.sets[b])) for b in range(1, blocks + 1)]
    if spare:
        groups.append(tuple(sorted(spare)))
    return Grouping(Score(gain, prev_info, subsets=tuple(groups)), False)
