"""Release 8's case array: which case sits at each position, and its weight there.

Growth and pruning work on segments ``fp..lp`` (inclusive, as Release 8 numbers
them) of one array of cases.  :class:`Cases` keeps that array as row numbers
(``order``) with a float32 weight per position (``weight``), moves a segment's
cases the way Release 8 swaps them (:mod:`treegen.trainer.release8.order`), and sums
weights in position order, rounding to float32 after every addition
(docs/C45.md section 0): ``CountItems`` and the class and value counts.
``all_known`` is Release 8's ``AllKnown``: while no test above has met an unknown
value every weight is 1, and ``CountItems`` is the number of cases.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer import native
from treegen.trainer.context import Context
from treegen.trainer.release8.order import front, sort_permutation

IntArray = npt.NDArray[np.intp]
F32 = np.float32
# A segment's class, its weight, and its classes present with their weights.
Pairs = tuple[int, float, tuple[int, ...], tuple[float, ...]]


def add_at(out: npt.NDArray[np.float32], index: IntArray, w: npt.NDArray[np.float32]) -> None:
    """``out[index[i]] += w[i]`` for i in order, each addition rounded to float32."""
    if native.cscan is not None:
        native.cscan.add_at(
            out, np.ascontiguousarray(index, dtype=np.intp), np.ascontiguousarray(w, dtype=F32)
        )
    else:
        np.add.at(out, index, w)


def running_sum(w: npt.NDArray[np.float32]) -> float:
    """The float32 sum of ``w`` in order (0 when empty)."""
    return float(np.cumsum(w, dtype=F32)[-1]) if w.size else 0.0


class Cases:
    """The case array of one training run (c45 flavour).

    ``order[p]`` is the row at position ``p``, ``weight[p]`` its weight.
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.order: IntArray = np.arange(ctx.n_rows, dtype=np.intp)
        self.weight = np.ones(ctx.n_rows, dtype=F32)
        self.all_known = True
        # The classes as the accelerator reads them (class_pairs, segments.py).
        self.y_index: IntArray = np.ascontiguousarray(ctx.y, dtype=np.intp)
        # class_pairs' scratch (zero between calls), one entry per class.
        self._acc = np.zeros(0, dtype=F32)
        self._seen = np.zeros(0, dtype=np.uint8)
        self._cls: IntArray = np.zeros(0, dtype=np.intp)

    def reset_weights(self) -> None:
        """Every weight back to 1 and ``AllKnown`` set (pruning's start); the order stays."""
        self.weight[:] = 1
        self.all_known = True

    def rows(self, fp: int, lp: int) -> IntArray:
        """The rows at positions ``fp..lp`` (a view)."""
        return self.order[fp : lp + 1]

    def count(self, fp: int, lp: int) -> float:
        """``CountItems(fp, lp)``: the number of cases while all are known, else the
        float32 sum of their weights in position order."""
        if self.all_known:
            return float(max(lp - fp + 1, 0))
        return running_sum(self.weight[fp : lp + 1])

    def class_freq(self, fp: int, lp: int) -> npt.NDArray[np.float32]:
        """Per class, the float32 sum of the segment's weights in position order."""
        out = np.zeros(self.ctx.n_classes, dtype=F32)
        add_at(out, self.ctx.y[self.rows(fp, lp)], self.weight[fp : lp + 1])
        return out

    def class_pairs(self, fp: int, lp: int) -> Pairs | None:
        """:meth:`class_freq` over the classes present (the same float32 additions in
        position order) as a node keeps them, in one accelerator call: the first
        class of the largest sum, that sum, and the classes whose sum is not +0.0 with
        their sums (a :class:`~treegen.model.dist.SparseDist`'s pairs); None where
        they make no SparseDist (more than a quarter of the classes present, nothing
        above 0) or without the accelerator."""
        lib = native.cscan
        if lib is None or not hasattr(lib, "r8_class_pairs"):
            return None
        c = self.ctx.n_classes
        if self._acc.size != c:
            self._acc, self._seen = np.zeros(c, dtype=F32), np.zeros(c, dtype=np.uint8)
            self._cls = np.zeros(c, dtype=np.intp)
        got: Pairs | None = lib.r8_class_pairs(
            self.y_index, self.order, self.weight, fp, lp, self._acc, self._seen, self._cls
        )
        return got

    def value_freq(self, att: int, fp: int, lp: int) -> npt.NDArray[np.float32]:
        """``Freq[v][c]`` of nominal ``att`` over the segment (v = 0 unknown), shape
        (values + 1, classes), summed in position order."""
        c = self.ctx.n_classes
        out = np.zeros((self.ctx.n_values[att] + 1) * c, dtype=F32)
        rows = self.rows(fp, lp)
        add_at(out, self.ctx.codes_at(att, rows) * c + self.ctx.y[rows], self.weight[fp : lp + 1])
        return out.reshape(-1, c)

    def permute(self, fp: int, perm: IntArray) -> None:
        """Reorder the positions ``fp .. fp + len(perm) - 1`` by ``perm``."""
        end = fp + perm.size
        self.order[fp:end] = self.order[fp:end][perm]
        self.weight[fp:end] = self.weight[fp:end][perm]

    def to_front(self, passes: npt.NDArray[np.bool_], fp: int) -> int:
        """Swap the segment's passing cases (``passes``, one per position from ``fp``) to
        its front one by one, as Release 8 does; returns the position after them.
        (The accelerator makes the swaps in place; numpy applies :func:`front`'s
        permutation, the same order.)"""
        if native.cscan is not None:
            k = native.cscan.r8_front(np.ascontiguousarray(passes), self.order, self.weight, fp)
            return fp + int(k)
        self.permute(fp, front(passes))
        return fp + int(np.count_nonzero(passes))

    def sort(self, values: npt.NDArray[np.float32], fp: int) -> None:
        """Release 8's quicksort of the positions from ``fp`` by ``values`` (known)."""
        self.permute(fp, sort_permutation(values))

    def scale(self, fp: int, kp: int, factor: np.float32, divide: bool = False) -> None:
        """Weights at ``fp .. kp - 1`` multiplied (or divided) by ``factor`` in float32."""
        if kp <= fp:
            return  # no unknown value at the node (most nodes): no call on an empty slice
        seg = self.weight[fp:kp]
        if divide:
            np.divide(seg, factor, out=seg)
        else:
            np.multiply(seg, factor, out=seg)
