"""The trainer's context read as the rules' table of values, without a copy of it.

The generalisation (:mod:`treegen.rules.paths`, :mod:`treegen.rules.roworder`,
:class:`treegen.rules.core.CaseColumns`, :class:`treegen.rules.mdl.AttributeCodes`)
reads its data's table ``X`` (rows x attributes, float32 values for c45) in three
forms only: a column (``X[:, a]``), a column's rows in an order (``X[rows, a]``), and
one cell per row (``X[rows, attributes]``, the tree's walk).  :class:`ContextTable`
answers those forms from the context's own tables: the continuous values as the context
holds them and the nominal codes in their narrow type (one byte a cell for up to 255
values), where a float32 table of the same values took 4 bytes a cell (80 MB at 1M rows
of 20 attributes, against 50 MB for the context's 10 continuous and 10 nominal columns).
Other forms raise TypeError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context

_IGNORED, _CONTINUOUS, _NOMINAL = 0, 1, 2

Rows = slice | npt.NDArray[np.integer]


class ContextTable:
    """``ctx``'s values as a read-only float32 table of ``n_attributes`` columns: a
    continuous attribute's values as the context holds them (NaN unknown), a nominal
    one's value index (NaN for the unknown code 0), NaN for any other attribute."""

    ndim = 2
    dtype = np.dtype(np.float32)

    def __init__(self, ctx: Context, n_attributes: int) -> None:
        assert ctx.cvals.dtype == np.float32, "a c45 context (float32 values)"
        self.shape = (ctx.n_rows, n_attributes)
        self._cvals = ctx.cvals  # (continuous attributes, rows + 1)
        self._ncodes = ctx.ncodes  # (rows + 1, nominal attributes)
        self._kind = np.zeros(n_attributes, dtype=np.intp)
        self._pos = np.zeros(n_attributes, dtype=np.intp)
        for a, j in ctx.cont_pos.items():
            self._kind[a], self._pos[a] = _CONTINUOUS, j
        for a, j in ctx.nom_pos.items():
            self._kind[a], self._pos[a] = _NOMINAL, j

    def __getitem__(self, key: tuple[Rows, Any]) -> npt.NDArray[np.float32]:
        rows, att = key
        if isinstance(att, int | np.integer):
            return self._column(rows, int(att))
        if isinstance(rows, np.ndarray) and isinstance(att, np.ndarray):
            return self._cells(rows, att)
        raise TypeError(f"ContextTable answers X[rows, a] and X[rows, attributes], not {key!r}")

    def _column(self, rows: Rows, a: int) -> npt.NDArray[np.float32]:
        """Attribute ``a``'s values of ``rows`` (a slice: a view where the context has
        the column as it is)."""
        n = self.shape[0]
        kind, j = int(self._kind[a]), int(self._pos[a])
        if kind == _CONTINUOUS:
            col: npt.NDArray[np.float32] = self._cvals[j, :n][rows]
            return col
        if kind == _NOMINAL:
            return _decoded(self._ncodes[:n, j][rows])
        size = len(range(n)[rows]) if isinstance(rows, slice) else rows.shape[0]
        return np.full(size, np.nan, dtype=np.float32)

    def _cells(
        self, rows: npt.NDArray[np.integer], att: npt.NDArray[np.integer]
    ) -> npt.NDArray[np.float32]:
        """The value of attribute ``att[i]`` in row ``rows[i]``, for every ``i``."""
        # index lists, not masks, and take, the flat indices made in place: each level
        # of the rules' walk down the tree (14 at 100k rows) took 1.2 ms, now 0.7
        out = np.empty(rows.shape, dtype=np.float32)
        kind, pos = self._kind[att], self._pos[att]
        cont = np.flatnonzero(kind == _CONTINUOUS)
        at = pos[cont]
        at *= self._cvals.shape[1]
        at += rows[cont]
        out[cont] = self._cvals.reshape(-1).take(at)
        nom = np.flatnonzero(kind == _NOMINAL)
        if nom.size:
            at = rows[nom] * self._ncodes.shape[1]
            at += pos[nom]
            out[nom] = _decoded(self._ncodes.reshape(-1).take(at))
        if cont.size + nom.size < rows.size:
            out[kind == _IGNORED] = np.nan
        return out


def _decoded(codes: npt.NDArray[np.integer]) -> npt.NDArray[np.float32]:
    """Nominal codes (value index + 1, 0 unknown) as float32 value indices, NaN unknown."""
    out = codes.astype(np.float32)
    out -= 1
    out[codes == 0] = np.nan
    return out
