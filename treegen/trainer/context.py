"""Per-run training state shared by growth and pruning.

Built once per :func:`treegen.trainer.train` call: the class labels, the
value arrays in the flavour's precision (float32 for c45 as Release 8 stores
values as ``float``, float64 for j48), integer codes for nominal values, the
global sorted distinct values of each continuous attribute (so "largest
training value not above the midpoint" is one binary search), each
continuous attribute's presorted known rows, and the global case-weight
array that growth and pruning scale in place as Release 8 does.

Cases start at weight 1 (C4.5), or at the weights given to
:func:`~treegen.trainer.tables.build_context` (boosting trains on weighted cases: a
case of weight w counts as w cases in every sum, MINOBJS test and error count, exactly
as J48 counts an instance's weight).
"""

from __future__ import annotations

import mmap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.options import Flavor
from treegen.trainer import native
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from
from treegen.trainer.stats import to_f32

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.floating]

SAMPLE = 64
"""Rows per block of a continuous attribute's presorted rows in
:func:`~treegen.trainer.thresholds.cuts_below`."""

DISTINCT_MAX_ROWS = 1 << 18
"""Up to this many rows the c45 flavour keeps each continuous attribute's distinct values
too (up to 4 bytes a row and attribute), which place thresholds in one binary search; on
more rows the thresholds are found through the presorted rows
(:func:`~treegen.trainer.thresholds.cuts_below`), a few numpy calls more per bucket and
attribute but no array of the values."""

CODE_BLOCK = 1 << 16
"""Rows of a nominal column coded at a time by :func:`~treegen.trainer.tables.build_context`
(and of a column scanned at a time by :func:`~treegen.trainer.thresholds.cuts_by_scan`'s
numpy path)."""

MANY_VALUES = 0.3
"""The many-valued rule's share: a nominal attribute with at least this many declared
values per row of the data is many-valued, and its gain counts in the average gain only
when every attribute in use is (docs/C45.md section 1 step 5)."""


def few_values(n_values: int, n_rows: int) -> bool:
    """Whether ``n_values`` declared values are fewer than :data:`MANY_VALUES` x ``n_rows``."""
    return n_values < MANY_VALUES * n_rows


class Workspace:
    """Scratch arrays reused from chunk to chunk.

    A fresh large array costs a page fault per 4 KB on first touch (more
    than the work done in it: np.log into a new 64 MB array takes six times
    as long as into a used one).  Requests above ``LIMIT`` bytes get a fresh
    array, so the kept buffers stay small.  A returned array is valid until
    the next request under the same name.
    """

    # 2 MB: sized for the log inputs of 2^15 cuts with 3 classes (the c45 scan's
    # window before scan_best; j48's chunks, nominal scores and scan_best's block now)
    LIMIT = 1 << 21

    def __init__(self) -> None:
        self._bufs: dict[str, npt.NDArray[Any]] = {}

    def get(self, name: str, n: int, dtype: type[np.generic]) -> npt.NDArray[Any]:
        """``n`` items of ``dtype`` (contents undefined), reusing buffer ``name``."""
        if n * np.dtype(dtype).itemsize > self.LIMIT:
            return np.empty(n, dtype=dtype)
        buf = self._bufs.get(name)
        if buf is None or buf.size < n or buf.dtype != np.dtype(dtype):
            buf = np.empty(max(n, 1024), dtype=dtype)
            self._bufs[name] = buf
        return buf[:n]


@dataclass
class Context:
    """Everything about the training set that does not change during growth.

    Row index ``n_rows`` is a dummy (weight 0, class 0) used to pad the
    per-attribute sorted row arrays to a common length.
    """

    n_rows: int
    n_classes: int
    # The classes (n_rows + 1, the dummy row's 0) in the narrowest integer type; y
    # gives them as intp, made on first use.
    y_small: npt.NDArray[np.integer]
    kinds: tuple[str, ...]
    n_values: tuple[int, ...]
    cont_pos: dict[int, int]  # attribute -> row of cvals / presorted
    nom_pos: dict[int, int]  # attribute -> column of ncodes
    cvals: npt.NDArray[np.floating]  # (n_cont, n_rows + 1) values, NaN unknown
    ncodes: npt.NDArray[np.integer]  # (n_rows + 1, n_nom): 0 unknown, 1..k declared values
    # Each continuous attribute's distinct known values, ascending (j48, c45 up to
    # DISTINCT_MAX_ROWS rows, and where widen_to sets them); c45 on more rows finds its
    # thresholds through the presorted rows instead (cuts_below), which saves a float
    # per known value (38 MB at 1M rows).
    distinct: dict[int, npt.NDArray[np.floating]]
    # Each continuous attribute's known rows by value, one attribute after
    # another (presorted_len[k] rows for attribute k); made by presort().
    sorted_flat: npt.NDArray[np.int32]
    presorted_len: IntArray
    dtype: type[np.floating]
    j48: bool
    min_cases: float
    multi_val: bool
    # Whether growth scores continuous attributes in C (native.cscan, at most
    # MAX_CLASSES classes): it gathers the values from cvals by column (from cvals_rows
    # by row below the root, where growth holds them so).
    c_scan: bool = False
    work: Workspace = field(default_factory=Workspace)  # the C path's scratch arrays
    # The row count of "all the data" in the many-valued rule (0.3 x rows):
    # ``n_rows``, except when reduced-error pruning grows on some folds of a
    # file (J48 counts the whole file there; :func:`widen_to`).
    n_total: int = 0
    # Per continuous attribute, the values in file order that J48's
    # setSplitPoint scans when it is not ``value_col`` (set by widen_to).
    file_values: dict[int, npt.NDArray[np.floating]] = field(default_factory=dict)
    # The cases' starting weights (n_rows, the flavour's dtype); None: all 1.
    case_weights: npt.NDArray[np.floating] | None = None
    # presort()'s state: whether it ran, and for cuts_below every SAMPLE-th value of
    # each attribute's presorted rows (the first of each block).
    sorted_done: bool = False
    samples: list[npt.NDArray[np.floating]] = field(default_factory=list)
    # The values row by row ((n_rows + 1, n_cont), C order) in place of cvals (then
    # empty) while growth runs below the root (levelwise/rowvalues.py); else None.
    cvals_rows: npt.NDArray[np.floating] | None = None
    rows_map: mmap.mmap | None = None  # the mapping cvals_rows lies in, where it has one
    _scratch: IntArray | None = None
    _weights: npt.NDArray[np.floating] | None = None
    _y: IntArray | None = None

    @property
    def y(self) -> IntArray:
        """The classes as intp (n_rows + 1), made from :attr:`y_small` on first use: the
        level-wise engine reads the narrow ones (at 1M rows 8 MB less while the
        context is built and during growth)."""
        if self._y is None:
            self._y = self.y_small.astype(np.intp)
        return self._y

    @y.setter
    def y(self, value: IntArray) -> None:
        """Replace the intp classes (the C pruner lets them go while it walks)."""
        self._y = value

    @property
    def weights(self) -> npt.NDArray[np.floating]:
        """The global case-weight array (n_rows + 1; the dummy row 0) that the
        depth-first engines and the Python pruner scale in place, made on first use at
        the starting weights (the level-wise engine and the C pruner never read it:
        4 MB less while ``treegen --quiet train`` holds its data and the context)."""
        if self._weights is None:
            self._weights = np.empty(self.n_rows + 1, dtype=self.dtype)
            self._reset(self._weights)
        return self._weights

    def drop_weights(self) -> None:
        """Let the weight array go (made again, at the starting weights, on next use)."""
        self._weights = None

    @property
    def scratch(self) -> IntArray:
        """A row-sized int array the depth-first reference engine partitions with
        (made on first use: the level-wise engine never reads it)."""
        if self._scratch is None:
            self._scratch = np.full(self.n_rows + 1, -3, dtype=np.intp)
        return self._scratch

    def presort(self) -> None:
        """Each continuous attribute's known rows by value (:attr:`sorted_flat`), and for
        j48 its distinct values: what growth reads besides the values.  Separate from
        building the context so that a caller can let the data go in between
        (:func:`treegen.trainer.prepare.prepare`); idempotent."""
        if self.sorted_done:
            return
        n = self.n_rows
        cont = list(self.cont_pos)
        # Every attribute's sorted rows written in place, one after another (a list of
        # them concatenated, then cast, held the 40 MB of a 1M-row table three times).
        sorted_flat = np.empty(n * len(cont), dtype=np.int32)
        presorted_len = np.zeros(len(cont), dtype=np.intp)
        samples: list[npt.NDArray[np.floating]] = []
        # The radix sort's keys and rows, the same pages for every column (below), in
        # a mapping of its own: from the heap, its 16 MB at 1M rows stayed resident
        # under growth's arrays (growth's peak 12 MB higher).
        scratch = None
        # (Rows are int32 there: a larger table takes the numpy sort.)
        if (
            native.cscan is not None
            and self.cvals.dtype == np.float32
            and cont
            and n < (1 << 31) - 1
        ):
            with blocks_mapped_from(STEP_BLOCK):
                scratch = np.empty(4 * n, dtype=np.uint32)
        at = 0
        for j, a in enumerate(cont):
            col = self.cvals[j, :n]
            # Only NaN is unknown: Release 8's -999 sentinel is a storage artefact
            # of its reader, not a rule a user would expect.
            if native.cscan is not None and scratch is not None:
                # The same order by a radix sort in C, written in place (at 1M rows
                # 0.02 s a column, not 0.05-0.2 s).
                k = native.cscan.stable_order(np.ascontiguousarray(col), sorted_flat[at:], scratch)
                order: npt.NDArray[np.integer] = sorted_flat[at : at + k]
            else:
                rows = np.flatnonzero(~np.isnan(col))
                order = _stable_order(col, rows)
                del rows
                sorted_flat[at : at + order.size] = order
            presorted_len[j] = order.size
            at += order.size
            if self.j48 or n <= DISTINCT_MAX_ROWS:
                vals = col[order]  # ascending: the distinct values without sorting again
                keep = np.ones(vals.size, dtype=np.bool_)
                keep[1:] = vals[1:] != vals[:-1]
                self.distinct[a] = vals[keep]
            else:
                samples.append(col[order[::SAMPLE]])
            del order  # (a view of sorted_flat, resized below)
        del scratch
        if at < sorted_flat.size:
            sorted_flat.resize(at, refcheck=False)  # the unknown values' tail, given back in place
        self.sorted_flat, self.presorted_len, self.samples = sorted_flat, presorted_len, samples
        self.sorted_done = True

    @property
    def flavor(self) -> Flavor:
        """The flavour this context was built for (``j48``: J48's double arithmetic)."""
        return "j48" if self.j48 else "c45"

    @property
    def unit_weights(self) -> bool:
        """Whether every case starts at weight 1 (then a node's weight is its row count)."""
        return self.case_weights is None

    def start_weights(self) -> npt.NDArray[np.floating]:
        """A fresh array of the cases' starting weights (growth and pruning scale it)."""
        if self.case_weights is None:
            return np.ones(self.n_rows, dtype=self.dtype)
        return self.case_weights.copy()

    @property
    def rows_for_rules(self) -> int:
        """The row count the many-valued rule uses (see :attr:`n_total`)."""
        return self.n_total or self.n_rows

    def counts_in_average(self, a: int) -> bool:
        """Whether attribute ``a``'s gain counts in the average gain (section 1 step 5):
        continuous, or with few values (:func:`few_values`), or every attribute many-valued."""
        return (
            self.multi_val
            or self.kinds[a] == "continuous"
            or few_values(self.n_values[a], self.rows_for_rules)
        )

    @property
    def presorted(self) -> npt.NDArray[np.int32]:
        """:attr:`sorted_flat` as (n_cont, widest) rows padded with ``n_rows``."""
        lens = self.presorted_len
        width = int(lens.max()) if lens.size else 0
        out = np.full((lens.size, width), self.n_rows, dtype=np.int32)
        at = 0
        for j, k in enumerate(lens.tolist()):
            out[j, :k] = self.sorted_flat[at : at + k]
            at += k
        return out

    def fl(self, x: float) -> float:
        """Store ``x`` the way the flavour stores it (float32 for c45)."""
        return float(x) if self.j48 else to_f32(float(x))

    def add_all(self, values: Iterable[float]) -> float:
        """``acc = fl(acc + fl(v))`` over ``values`` from 0, on Python floats.

        The same numbers as summing numpy scalars of the flavour's dtype (a
        float + float sum rounded once from double is the float sum), without
        their per-operation cost.
        """
        acc = 0.0
        if self.j48:
            for v in values:
                acc += float(v)
            return acc
        for v in values:
            acc = to_f32(acc + to_f32(float(v)))
        return acc

    def drop_presorted(self) -> None:
        """Let the presorted rows go (40 MB at 1M rows): level-wise growth reads them
        only for the root's sorted arrays once its thresholds are placed by
        :func:`~treegen.trainer.thresholds.cuts_by_scan`; :meth:`presort` makes them again."""
        self.sorted_flat = np.zeros(0, dtype=np.int32)
        self.samples = []
        self.sorted_done = False

    def release_growth_arrays(self) -> None:
        """Drop what only growth reads (the presorted rows, the row-major values, each
        attribute's distinct values, which only place thresholds, and scratch buffers),
        so that pruning's peak does not hold them."""
        self.sorted_flat = np.zeros(0, dtype=np.int32)
        self.presorted_len = np.zeros_like(self.presorted_len)
        self.samples = []
        self.distinct = {}
        self.work = Workspace()

    def sums(self, index: IntArray, w: npt.NDArray[np.floating], size: int) -> FloatArray:
        """:func:`cell_sums` in the flavour's precision."""
        return cell_sums(index, w, size, self.dtype)

    def reset_weights(self) -> None:
        """Every case's weight back to its starting weight (the dummy row's to 0)."""
        self._reset(self.weights)

    def _reset(self, weights: npt.NDArray[np.floating]) -> None:
        weights[: self.n_rows] = self.start_weights()
        weights[self.n_rows] = 0.0

    def value_col(self, att: int) -> npt.NDArray[np.floating]:
        """Continuous ``att``'s values, one per row (NaN unknown), in the flavour's dtype."""
        col: npt.NDArray[np.floating] = self.cvals[self.cont_pos[att]]
        return col

    def codes_at(self, att: int, rows: IntArray) -> IntArray:
        """Value codes (0 unknown, 1..k) of nominal ``att`` for ``rows``."""
        codes: IntArray = self.ncodes[rows, self.nom_pos[att]].astype(np.intp)
        return codes


def _stable_order(col: npt.NDArray[np.floating], rows: IntArray) -> IntArray:
    """``rows`` sorted by ``col`` value, equal values in row order (a stable argsort).

    For float32 values one plain sort of 64-bit keys does it faster: the
    value's bits made order-preserving in the high half, the row in the low
    half, so no two keys tie.  -0.0 is keyed as +0.0 (they compare equal).
    """
    if col.dtype != np.float32 or rows.size >= 1 << 32:
        return rows[np.argsort(col[rows], kind="stable")]
    bits = (col[rows] + np.float32(0.0)).view(np.uint32).astype(np.uint64)  # -0.0 -> +0.0
    neg = (bits >> np.uint64(31)) == 1
    keys = np.where(neg, ~bits & np.uint64(0xFFFFFFFF), bits | np.uint64(0x80000000))
    keys = (keys << np.uint64(32)) | rows.astype(np.uint64)
    keys.sort()
    out: IntArray = (keys & np.uint64(0xFFFFFFFF)).astype(np.intp)
    return out


def cell_sums(
    index: IntArray, w: npt.NDArray[np.floating], size: int, dtype: type[np.floating]
) -> npt.NDArray[np.floating]:
    """Weights summed per cell ``index[i]``, one case at a time in ``dtype``.

    Release 8's ``ClassFreq[c] += Weight``: each cell's additions in case
    order, each rounded to ``dtype``.  ``np.add.at`` (or the accelerator's
    ``add_at``, the same additions) does that in float32; for double (j48)
    ``bincount`` does the same sequential sum, faster.
    """
    if dtype is np.float64:
        dbl: npt.NDArray[np.floating] = np.bincount(index, weights=w, minlength=size).astype(
            np.float64, copy=False
        )
        return dbl
    out = np.zeros(size, dtype=dtype)
    if native.cscan is not None:
        native.cscan.add_at(
            out, np.ascontiguousarray(index, dtype=np.intp), np.ascontiguousarray(w, dtype=dtype)
        )
    else:
        np.add.at(out, index, w)
    return out


def seq_sum(w: npt.NDArray[np.floating], dtype: type[np.floating]) -> float:
    """Sum in array order, rounding after every addition (``CountItems``)."""
    if w.size == 0:
        return 0.0
    return float(np.cumsum(w, dtype=dtype)[-1])  # sequential, unlike np.sum
