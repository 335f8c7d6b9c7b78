"""The candidate rules' case lists, held narrow while the generalisation makes them.

Each candidate rule comes with its cases (ascending row numbers, int32): at 1M rows of
the scaling data, 139,200 rules and 103 MB of them.  The generalisation's memory peaks
at its end, with these lists beside the columns, bitsets and tree it works on; held as
the gaps between consecutive rows in uint16 (the first row in two of them), where every
gap fits, they take about half of that until the generalisation has ended.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

_WIDEST = np.iinfo(np.uint16).max


def pack(rows: npt.NDArray[np.int32]) -> npt.NDArray[np.integer]:
    """``rows`` (ascending, distinct, not negative) as uint16 ``[high, low, gaps...]`` of
    its first row and the gaps after it, where every gap fits in 16 bits; else
    ``rows`` itself (int32)."""
    if rows.size < 3:
        return rows
    gaps = np.diff(rows)
    if int(gaps.max()) > _WIDEST:
        return rows
    out = np.empty(rows.size + 1, dtype=np.uint16)
    first = int(rows[0])
    out[0], out[1] = first >> 16, first & _WIDEST
    out[2:] = gaps
    return out


def unpack(packed: npt.NDArray[np.integer]) -> npt.NDArray[np.int32]:
    """The rows :func:`pack` packed, as int32."""
    if packed.dtype != np.uint16:
        return packed.astype(np.int32, copy=False)
    rows = np.empty(packed.size - 1, dtype=np.int32)
    rows[0] = (int(packed[0]) << 16) | int(packed[1])
    rows[1:] = packed[2:]
    np.cumsum(rows, out=rows)
    return rows


class CaseLists(list[npt.NDArray[np.int32]]):
    """A list that the generalisation appends each rule's cases to
    (:func:`treegen.rules.paths.candidates`' ``rows``), which holds them packed
    (:func:`pack`): read them back with :meth:`unpacked`, not as the list's items."""

    def append(self, rows: npt.NDArray[np.int32]) -> None:
        # Held packed: the list's items are not the rows (see the class docstring).
        super().append(pack(rows))  # type: ignore[arg-type]

    def unpacked(self) -> list[npt.NDArray[np.int32]]:
        """The rows appended, in order; the list is emptied."""
        out = [unpack(p) for p in self]
        self.clear()
        return out
