"""Per-run training state shared by growth and pruning.

Built once per :func:`treegen.trainer.train` call: the class labels, the
value arrays in the flavour's precision (float32 for c45 as Release 8 stores
values as ``float``, float64 for j48), integer codes for nominal values, the
global sorted distinct values of each continuous attribute (so "largest
training value not above the midpoint" is one binary search), each
continuous attribute's presorted known rows, and the global case-weight
array that growth and pruning scale in place as Release 8 does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.dataset import Dataset

IntArray = npt.NDArray[np.intp]


@dataclass
class Context:
    """Everything about the training set that does not change during growth."""

    n_rows: int
    n_classes: int
    y: IntArray
    kinds: tuple[str, ...]
    n_values: tuple[int, ...]
    values: dict[int, npt.NDArray[np.floating]]
    codes: dict[int, npt.NDArray[np.intp]]
    distinct: dict[int, npt.NDArray[np.floating]]
    presorted: dict[int, IntArray]
    has_unknown: dict[int, bool]
    weights: npt.NDArray[np.floating]
    dtype: type[np.floating]
    j48: bool
    min_cases: float
    multi_val: bool
    scratch: IntArray

    def fl(self, x: float) -> float:
        """Store ``x`` the way the flavour stores it (float32 for c45)."""
        return float(self.dtype(x))

    def reset_weights(self) -> None:
        self.weights[:] = 1.0

    def cut_for(self, att: int, bar: float) -> float:
        """Largest training value of ``att`` not above ``bar`` (section 1.8).

        J48's ``setSplitPoint`` accepts values up to ``bar`` within 1e-6.
        """
        d = self.distinct[att]
        limit = bar + 1e-6 if self.j48 else bar
        i = int(np.searchsorted(d, limit, side="right")) - 1
        if self.j48:
            while i >= 0 and not (float(d[i]) - bar < 1e-6):
                i -= 1
        assert i >= 0, "midpoint lies above a training value by construction"
        return float(d[i])


def build_context(ds: Dataset, min_cases: int, j48: bool) -> Context:
    n = ds.n_rows
    dtype: type[np.floating] = np.float64 if j48 else np.float32
    x = ds.X if j48 else ds.x32
    kinds = tuple(a.kind for a in ds.attributes)
    n_values = tuple(len(a.values) for a in ds.attributes)
    values: dict[int, npt.NDArray[np.floating]] = {}
    codes: dict[int, npt.NDArray[np.intp]] = {}
    distinct: dict[int, npt.NDArray[np.floating]] = {}
    presorted: dict[int, IntArray] = {}
    has_unknown: dict[int, bool] = {}
    for a, kind in enumerate(kinds):
        col = np.ascontiguousarray(x[:, a])
        if kind == "continuous":
            # Only NaN is unknown: Release 8's -999 sentinel is a storage
            # artefact of its reader, not a rule a user would expect.
            known = ~np.isnan(col)
            vals = np.where(known, col, np.nan).astype(dtype)
            values[a] = vals
            rows = np.flatnonzero(known)
            presorted[a] = rows[np.argsort(vals[rows], kind="stable")]
            distinct[a] = np.unique(vals[rows])
            has_unknown[a] = bool(rows.size < n)
        elif kind == "nominal":
            k = n_values[a]
            # 0 = unknown, 1..k = declared values; codes outside 0..k-1 are unknown.
            ok = ~np.isnan(col)
            ok[ok] = (col[ok] >= 0) & (col[ok] < k) & (col[ok] == np.floor(col[ok]))
            c = np.zeros(n, dtype=np.intp)
            c[ok] = col[ok].astype(np.intp) + 1
            codes[a] = c
            has_unknown[a] = bool(not ok.all())
    usable = [a for a, k in enumerate(kinds) if k != "ignore"]
    multi_val = bool(usable) and all(
        kinds[a] == "nominal" and n_values[a] >= 0.3 * n for a in usable
    )
    return Context(
        n_rows=n,
        n_classes=len(ds.classes),
        y=ds.y.astype(np.intp),
        kinds=kinds,
        n_values=n_values,
        values=values,
        codes=codes,
        distinct=distinct,
        presorted=presorted,
        has_unknown=has_unknown,
        weights=np.ones(n, dtype=dtype),
        dtype=dtype,
        j48=j48,
        min_cases=float(min_cases),
        multi_val=multi_val,
        scratch=np.full(n, -2, dtype=np.intp),
    )


def class_sums(
    y: IntArray, w: npt.NDArray[np.floating], n_classes: int, dtype: type[np.floating]
) -> npt.NDArray[np.floating]:
    """Per-class summed weights, accumulated one case at a time in ``dtype``.

    ``np.add.at`` adds sequentially in the output's precision, like
    Release 8's ``ClassFreq[c] += Weight``; bincount (double) is exact for
    the all-integer weights of nodes without unknowns and much faster.
    """
    if dtype is np.float64:
        return np.bincount(y, weights=w, minlength=n_classes)
    out = np.zeros(n_classes, dtype=dtype)
    np.add.at(out, y, w)
    return out


def seq_sum(w: npt.NDArray[np.floating], dtype: type[np.floating]) -> float:
    """Sum in array order, rounding after every addition (``CountItems``)."""
    if w.size == 0:
        return 0.0
    if dtype is np.float64:
        return float(np.add.reduce(w.astype(np.float64)))
    return float(np.cumsum(w, dtype=dtype)[-1])
