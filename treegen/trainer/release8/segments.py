"""A node's continuous attributes in Release 8's case order, scored in C (c45, accelerator).

:mod:`treegen.trainer.release8.evaluate` walks a node's attributes in order; each
continuous one sets its unknown values aside and sorts the rest, and its scores are
:func:`treegen.trainer.sparse.eval_segments`'s on that sorted segment.  With one
class per row most nodes hold a few cases, and the two dozen numpy calls per
attribute (``_continuous``) and per node (``eval_segments``) cost far more than
their work.  Here ``native/r8prep.c`` and ``r8score.c`` do both: :meth:`NodeSegments.add` reorders
the case array for one attribute and copies its segment out (one call), and
:meth:`NodeSegments.scores` scores every segment of the node with the same float
operations in the same order, numpy taking the logs between its two passes (three
calls); a chosen cut's bar is :func:`~treegen.trainer.splits.cut_midpoint`'s rule in C
(that numpy call per node cost more than the scoring).  The scores are the numpy
path's bit for bit (tests/trainer/test_release8_segments.py, edge values included).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from treegen.trainer import native
from treegen.trainer.context import Context
from treegen.trainer.release8.cases import F32, Cases
from treegen.trainer.splits import Score

# Log inputs a segment of L cases can give: per class present (at most L), per case
# two, per candidate cut (at most L - 1) five, and three more.
LOGS_PER_CASE = 8
LOGS_PER_SEGMENT = 3


def available(ctx: Context) -> bool:
    """Whether :class:`NodeSegments` can score for ``ctx`` (c45 with float32 values,
    the accelerator built with r8prep.c and r8score.c)."""
    lib = native.cscan
    return (
        lib is not None
        and hasattr(lib, "r8_cont_score")
        and not ctx.j48
        and ctx.cvals.dtype == np.float32
    )


@dataclass
class Scratch:
    """Per-class buffers that stay from node to node of one growth (their values are
    restored after each call): a float per class (zero) and an int32 per class (-1)."""

    acc: npt.NDArray[np.float32]
    cmap: npt.NDArray[np.int32]
    cvals: npt.NDArray[np.float32]

    @classmethod
    def of(cls, ctx: Context) -> Scratch:
        """The buffers for growing on ``ctx`` (its values as one float32 array)."""
        return cls(
            np.zeros(ctx.n_classes, dtype=F32),
            np.full(ctx.n_classes, -1, dtype=np.int32),
            np.ascontiguousarray(ctx.cvals, dtype=F32),
        )


@dataclass
class NodeSegments:
    """The continuous attributes of the node ``fp..lp``, as the walk meets them."""

    cases: Cases
    scratch: Scratch
    fp: int
    lp: int
    n_cont: int
    atts: list[int] = field(default_factory=list)
    segs: list[tuple[float, float, float, float, float]] = field(default_factory=list)
    used: int = 0
    rows: npt.NDArray[np.intp] = field(init=False)
    w: npt.NDArray[np.float32] = field(init=False)

    def __post_init__(self) -> None:
        size = max(self.lp - self.fp + 1, 0) * self.n_cont
        self.rows = np.empty(size, dtype=np.intp)
        self.w = np.empty(size, dtype=F32)

    def add(self, att: int, min_cases: float) -> None:
        """``_continuous`` for ``att``: the case array reordered, the sorted segment kept
        with MINOBJS ``min_cases`` (the node's at this point of the walk)."""
        cases, ctx = self.cases, self.cases.ctx
        lib = native.cscan
        assert lib is not None
        items, val0, n = lib.r8_cont_prep(
            ctx.value_col(att), cases.y_index, cases.order, cases.weight, self.fp, self.lp,
            cases.all_known, 2 * min_cases, self.scratch.acc, self.rows, self.w, self.used,
        )  # fmt: skip
        self.atts.append(att)
        self.segs.append((float(ctx.cont_pos[att]), float(n), items, val0, min_cases))
        self.used += n

    def scores(self) -> dict[int, Score]:
        """Every added attribute's score, where it has a cut worth taking."""
        if not self.atts:
            return {}
        lib = native.cscan
        assert lib is not None
        sc, cases = self.scratch, self.cases
        segs = np.asarray(self.segs, dtype=np.float64)
        rows, w = self.rows[: self.used], self.w[: self.used]
        cap = LOGS_PER_CASE * self.used + LOGS_PER_SEGMENT * len(self.atts)
        x = np.empty(cap)
        out = np.empty(4 * len(self.atts))
        ncol = sc.cvals.shape[1]
        k = lib.r8_cont_score(0, rows, w, segs, sc.cvals, ncol, cases.y_index, sc.cmap, x, x, out)
        lx = np.log(x[:k])
        lib.r8_cont_score(1, rows, w, segs, sc.cvals, ncol, cases.y_index, sc.cmap, x, lx, out)
        res = out.tolist()
        got: dict[int, Score] = {}
        for r, att in enumerate(self.atts):
            if res[4 * r]:
                got[att] = Score(res[4 * r + 1], res[4 * r + 2], res[4 * r + 3])
        return got
