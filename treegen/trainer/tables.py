"""Building a :class:`~treegen.trainer.context.Context` from a Dataset.

The tables go into the layout growth reads: the continuous values in the flavour's
precision (float32 for c45, as Release 8 stores values as ``float``; float64 for j48),
refused where infinite, the nominal values as codes in the narrowest integer type, and
the classes; in blocks of rows, so that the data's float64 matrix can be given up as it
is copied (``spend``).  :func:`rows_of` rebuilds rows of the matrix from the
tables.  :func:`widen_to` gives a context built on some rows the whole
file's values, as J48 -R does.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.errors import TrainError
from treegen.trainer import context as _context  # CODE_BLOCK read at call time: tests shrink it
from treegen.trainer import native
from treegen.trainer.constants import MAX_CLASSES
from treegen.trainer.context import Context, few_values


def widen_to(ctx: Context, ds: Dataset) -> None:
    """Make ``ctx`` (built on some rows of ``ds``) use all of ``ds`` where J48 does.

    J48 -R grows on the training folds with a model selection that knows the
    whole file: a threshold is the largest value *in the file* not above the
    cut (``setSplitPoint(allData)``) and the many-valued rule counts the
    file's rows.  Treegen does the same in both flavours.
    """
    n = ds.n_rows
    for a in ctx.cont_pos:
        with np.errstate(over="ignore"):
            col = ds.X[:, a].astype(ctx.dtype)
        _check_finite(ds, a, col, ctx.j48)
        vals = np.sort(col[~np.isnan(col)])
        keep = np.ones(vals.size, dtype=np.bool_)
        keep[1:] = vals[1:] != vals[:-1]
        ctx.distinct[a] = vals[keep]
        ctx.file_values[a] = col
    ctx.n_total = n
    usable = list(ctx.cont_pos) + list(ctx.nom_pos)
    ctx.multi_val = bool(usable) and all(
        ctx.kinds[a] == "nominal" and not few_values(ctx.n_values[a], n) for a in usable
    )


def _check_finite(ds: Dataset, a: int, col: npt.NDArray[np.floating], j48: bool) -> None:
    """Continuous values must be finite in the flavor's precision (NaN is unknown): an
    infinite value has no midpoint to cut at.  The readers refuse such values with
    their file position; this catches a Dataset built in memory."""
    inf = np.isinf(col)
    if inf.any():
        r = int(np.argmax(inf))
        _refuse_infinite(ds, a, r, float(ds.X[r, a]), j48)


def _refuse_infinite(ds: Dataset, a: int, r: int, value: float, j48: bool) -> None:
    """:func:`_check_finite`'s error: ``value`` at row ``r`` of attribute ``a``."""
    kind = "a double" if j48 else "float32 (the c45 flavor stores values as float32)"
    raise TrainError(
        f"attribute '{ds.attributes[a].name}', row {r + 1}: {value!r} is out of range for {kind}",
        file=ds.source,
    )


def code_type(n_values: Iterable[int]) -> type[np.integer]:
    """The narrowest type of the nominal code table (codes 0..k, 0 unknown) for these
    value counts: int8 up to 126 values (the C kernels read one byte signed)."""
    top = max(n_values, default=0)
    return np.int8 if top < 127 else np.int16 if top < 32000 else np.int32


def build_context(
    ds: Dataset,
    min_cases: int,
    j48: bool,
    weights: npt.NDArray[np.floating] | None = None,
    *,
    presort: bool = True,
    spend: bool = False,
) -> Context:
    """The per-run state for training on ``ds`` (MINOBJS ``min_cases``, flavour j48 or c45),
    the cases starting at ``weights`` (rounded to the flavour's dtype; None: 1 each).
    ``presort=False`` leaves :meth:`Context.presort` for later: the context then holds
    nothing of ``ds``, which can go first.  ``spend``: ``ds.X`` is cut short block by
    block as its rows are copied, where nothing else holds it (:func:`_spendable`);
    nothing may read ``ds`` afterwards."""
    n = ds.n_rows
    dtype: type[np.floating] = np.float64 if j48 else np.float32
    kinds = tuple(a.kind for a in ds.attributes)
    n_values = tuple(len(a.values) for a in ds.attributes)
    cont = [a for a, k in enumerate(kinds) if k == "continuous"]
    nom = [a for a, k in enumerate(kinds) if k == "nominal"]
    # Unwritten until each block fills it (a mapping's pages come as they are first
    # written), but the pad column.
    cvals = np.empty((len(cont), n + 1), dtype=dtype)
    cvals[:, n] = np.inf
    ncodes = np.zeros((n + 1, len(nom)), dtype=code_type(n_values[a] for a in nom))
    X = ds.X
    spend = spend and _spendable(X)
    # In blocks of rows (the codes' float and int temporaries of a whole column were
    # 27 MB at 1M rows); spent, from the last block, each then cut off X (its pages
    # go back to the OS: at 1M rows the 160 MB matrix and the tables were held together).
    starts = range(0, n, _context.CODE_BLOCK)
    bad: dict[int, tuple[int, float]] = {}  # per column: its first infinite value
    for lo in reversed(starts) if spend else starts:
        block = X[lo : lo + _context.CODE_BLOCK]
        hi = lo + block.shape[0]
        for j, a in enumerate(cont):
            with np.errstate(over="ignore"):  # an overflow to inf is refused below
                cvals[j, lo:hi] = block[:, a]  # float32 for c45: Release 8 stores values as float
            inf = np.isinf(cvals[j, lo:hi])
            if inf.any() and (j not in bad or spend):
                r = int(np.argmax(inf))
                bad[j] = (lo + r, float(block[r, a]))
        for j, a in enumerate(nom):
            ncodes[lo:hi, j] = nominal_codes(block[:, a], n_values[a])
        del block
        if spend:
            X.resize((lo, X.shape[1]), refcheck=False)  # _spendable: no view of X is left
    if bad:
        j = min(bad)
        _refuse_infinite(ds, cont[j], *bad[j], j48)
    return context_of(
        kinds, n_values, len(ds.classes), cvals, ncodes, ds.y, min_cases, j48, weights, presort
    )


def _spendable(X: npt.NDArray[np.float64]) -> bool:
    """Whether :func:`build_context` may cut ``X`` short in place: it owns its rows and
    nothing but its Dataset and :func:`build_context`'s name hold it (no view, no other
    name).  CPython's reference count, against a fresh array's held by one name here (so
    that it does not depend on how the interpreter counts an argument)."""
    fresh = np.empty(0)
    return (
        bool(X.flags.owndata and X.flags.c_contiguous)
        and sys.getrefcount(X) <= sys.getrefcount(fresh) + 2
    )


def nominal_codes(values: npt.NDArray[np.float64], k: int) -> npt.NDArray[np.intp]:
    """A nominal column's codes for the context: value index + 1, 0 unknown.  Codes
    outside 0..k-1 (or not integral) are unknown, as in classification."""
    # One pass over X's strided column, then the five below run on contiguous
    # values (about three times faster at 1M rows; the same codes).
    # (NaN fails every comparison; no masked indexing: it costs more.)
    col = np.ascontiguousarray(values)
    ok = (col >= 0) & (col < k) & (col == np.floor(col))
    codes: npt.NDArray[np.intp] = np.where(ok, col + 1, 0).astype(np.intp)
    return codes


def rows_of(ctx: Context, lo: int, hi: int, n_attributes: int) -> npt.NDArray[np.float64]:
    """Rows ``lo:hi`` of the data as a Dataset's matrix holds them, from ``ctx``'s
    tables: continuous values widened from the flavour's dtype, nominal values as value
    indices, unknown values NaN, attributes the context does not hold (ignored) NaN."""
    x = np.full((hi - lo, n_attributes), np.nan)
    for a, j in ctx.cont_pos.items():
        x[:, a] = ctx.cvals[j, lo:hi]
    for a, j in ctx.nom_pos.items():
        codes = ctx.ncodes[lo:hi, j]
        x[:, a] = np.where(codes > 0, codes.astype(np.float64) - 1.0, np.nan)
    return x


def context_of(
    kinds: tuple[str, ...],
    n_values: tuple[int, ...],
    n_classes: int,
    cvals: npt.NDArray[np.floating],
    ncodes: npt.NDArray[np.integer],
    y: npt.NDArray[np.integer],
    min_cases: int,
    j48: bool,
    weights: npt.NDArray[np.floating] | None = None,
    presort: bool = True,
) -> Context:
    """The :class:`Context` over tables already in its layout: ``cvals`` (continuous
    attributes x (rows + 1), the flavour's dtype, finite or NaN, the last column a pad),
    ``ncodes`` ((rows + 1) x nominal attributes, :func:`code_type`, the last row 0) and
    the classes ``y`` (rows); the context takes the tables as they are."""
    dtype: type[np.floating] = np.float64 if j48 else np.float32
    n = int(y.shape[0])
    assert cvals.shape == (sum(k == "continuous" for k in kinds), n + 1) and cvals.dtype == dtype
    assert ncodes.shape == (n + 1, sum(k == "nominal" for k in kinds))
    cont = [a for a, k in enumerate(kinds) if k == "continuous"]
    nom = [a for a, k in enumerate(kinds) if k == "nominal"]
    usable = cont + nom
    multi_val = bool(usable) and all(
        kinds[a] == "nominal" and not few_values(n_values[a], n) for a in usable
    )
    small: type[np.integer] = np.int8 if n_classes < 127 else np.int32
    y_small: npt.NDArray[np.integer] = np.zeros(n + 1, dtype=small)
    y_small[:n] = y
    ctx = Context(
        n_rows=n,
        n_classes=n_classes,
        y_small=y_small,
        kinds=kinds,
        n_values=n_values,
        cont_pos={a: j for j, a in enumerate(cont)},
        nom_pos={a: j for j, a in enumerate(nom)},
        cvals=cvals,
        ncodes=ncodes,
        distinct={},
        sorted_flat=np.zeros(0, dtype=np.int32),
        presorted_len=np.zeros(len(cont), dtype=np.intp),
        dtype=dtype,
        j48=j48,
        min_cases=float(min_cases),
        multi_val=multi_val,
        c_scan=native.cscan is not None and n_classes <= MAX_CLASSES,
        case_weights=None if weights is None else np.ascontiguousarray(weights, dtype=dtype),
    )
    if presort:
        ctx.presort()
    return ctx
