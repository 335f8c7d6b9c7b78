"""The candidate rules' case lists, held narrow while the generalisation makes them.

Each candidate rule comes with its cases (ascending row numbers, int32): at 1M rows of
the scaling data, 139,200 rules and 103 MB of them.  The generalisation's memory peaks
at its end, with these lists beside the columns, bitsets and tree it works on, and the
subset search holds them with its own tables of one class's rules; held as the gaps
between consecutive rows, in uint8 or uint16 where every gap of a list fits, they take
a half to a quarter of that, and the search unpacks one class's lists at a time.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np
import numpy.typing as npt

from treegen.rules.native import crules

# The narrow types, narrowest first.
_NARROW = (np.uint8, np.uint16)
# A held list's type, by its number in CaseLists; the rows of its first item (the
# first row's parts: one item of int32, four of uint8, two of uint16).
_KINDS = (np.int32, np.uint8, np.uint16)
_DTYPES = tuple(np.dtype(k) for k in _KINDS)
_ITEMSIZE = tuple(d.itemsize for d in _DTYPES)
_FIRST = (1, 4, 2)

BLOCK = 1 << 20
"""Bytes in each of the blocks :class:`CaseLists` holds its lists in."""

SHARED_MOST = BLOCK // 4
"""The most bytes of a list that shares a block; a longer one is a block of its own."""

PACK_MIN = 64
"""Lists of fewer rows stay as they are: packing one costs a few numpy calls (at 100k rows
most lists are this short, and together they hold little)."""


def pack(rows: npt.NDArray[np.int32]) -> npt.NDArray[np.integer]:
    """``rows`` (ascending, distinct, not negative) as ``[first row in 4 bytes, gaps...]``
    in the narrowest of uint8 and uint16 that holds every gap; else (or under
    :data:`PACK_MIN` rows) ``rows`` itself."""
    if rows.size < PACK_MIN:
        return rows
    gaps = np.diff(rows)
    widest = int(gaps.max())
    if widest > 0xFFFF:
        return rows
    kind, bits = (np.uint8, 8) if widest <= 0xFF else (np.uint16, 16)
    parts = 32 // bits  # the first row, highest part first
    out: npt.NDArray[np.integer] = np.empty(rows.size - 1 + parts, dtype=kind)
    first = int(rows[0])
    for j in range(parts):
        out[j] = (first >> (bits * (parts - 1 - j))) & ((1 << bits) - 1)
    out[parts:] = gaps
    return out


def unpacked_size(packed: npt.NDArray[np.integer]) -> int:
    """How many rows :func:`unpack` gives for ``packed`` (without unpacking it)."""
    if packed.dtype not in _NARROW:
        return int(packed.size)
    return int(packed.size) - 32 // (8 * packed.dtype.itemsize) + 1


def unpack_into(packed: npt.NDArray[np.integer], out: npt.NDArray[np.int32]) -> None:
    """Write the rows :func:`pack` packed into ``out`` (int32, of
    :func:`unpacked_size` items), with no list of them made on the way."""
    if packed.dtype not in _NARROW:
        out[:] = packed
        return
    bits = 8 * packed.dtype.itemsize
    parts = 32 // bits
    first = 0
    for j in range(parts):
        first = (first << bits) | int(packed[j])
    out[0] = first
    out[1:] = packed[parts:]
    np.cumsum(out, out=out)


def unpack(packed: npt.NDArray[np.integer]) -> npt.NDArray[np.int32]:
    """The rows :func:`pack` packed, as int32."""
    if packed.dtype not in _NARROW:
        return packed.astype(np.int32, copy=False)
    rows = np.empty(unpacked_size(packed), dtype=np.int32)
    unpack_into(packed, rows)
    return rows


def concatenated(
    lists: Sequence[npt.NDArray[np.int32]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """``lists`` end to end, as (``ptr``, ``rows``): list ``k`` is ``rows[ptr[k]:ptr[k + 1]]``
    (int32).  Each list is written straight into ``rows``: from an :class:`Unpacking`
    unpacked there (its sizes read from the packed lists), so that no list of all the
    unpacked lists is held beside the result (at 1M rows that was 53 MB, a class's
    4 bytes a (rule, case) pair, at the subset search's peak)."""
    sized = lists.sizes() if isinstance(lists, Unpacking) else [len(r) for r in lists]
    ptr = np.zeros(len(sized) + 1, dtype=np.int64)
    np.cumsum(np.asarray(sized, dtype=np.int64), out=ptr[1:])
    rows = np.empty(int(ptr[-1]), dtype=np.int32)
    if isinstance(lists, Unpacking) and crules is not None:
        lists.unpack_all(ptr, rows)  # in one C call (a few numpy calls a list, else)
        return ptr, rows
    for k, (lo, hi) in enumerate(zip(ptr[:-1].tolist(), ptr[1:].tolist(), strict=True)):
        if hi == lo:
            continue
        if isinstance(lists, Unpacking):
            lists.unpack_into(k, rows[lo:hi])
        else:
            rows[lo:hi] = lists[k]
    return ptr, rows


class CaseLists:
    """The lists the generalisation appends each rule's cases to
    (:func:`treegen.rules.paths.candidates`' ``rows``, which only appends), held
    packed (:func:`pack`) end to end in blocks of :data:`BLOCK` bytes: an array of its
    own per list cost about 130 bytes beside its rows (18 MB for the 139,200 lists of
    1M rows, as much as the rows of the shortest 100,000 of them).  A list of more than
    a quarter of a block keeps its packed array.  Read them back with :meth:`rows`,
    :meth:`packed` or :meth:`unpacked`."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """No lists held."""
        self._blocks: list[npt.NDArray[np.uint8]] = []
        self._open = -1  # the block lists are added to (none yet), and its bytes used
        self._fill = 0
        # per list: its block, its first byte there, its items and their kind
        self._block = array("i")
        self._at = array("q")
        self._size = array("q")
        self._kind = array("b")
        # append_unsorted's bitmap for the C sort (a bit a row, all zero between calls)
        self._marks: npt.NDArray[np.uint64] = np.zeros(0, dtype=np.uint64)

    def __len__(self) -> int:
        return len(self._kind)

    def append(self, rows: npt.NDArray[np.int32]) -> None:
        """Hold ``rows`` (ascending, distinct, not negative) packed."""
        packed = pack(rows)
        if packed.dtype.type not in _KINDS:  # a short or wide list in another type
            packed = packed.astype(np.int32)
        kind = _KINDS.index(packed.dtype.type)
        if packed.nbytes > SHARED_MOST:
            # held as it is (a copy if it is a view: no caller's array is kept)
            own = packed if packed.base is None else packed.copy()
            self._blocks.append(own.view(np.uint8))
            self._add(len(self._blocks) - 1, 0, packed.size, kind)
            return
        at = self._next_at()
        if self._open < 0 or at + packed.nbytes > BLOCK:
            self._new_block()
            at = 0
        self._blocks[self._open][at : at + packed.nbytes] = packed.view(np.uint8)
        self._fill = at + packed.nbytes
        self._add(self._open, at, packed.size, kind)

    def append_unsorted(self, rows: npt.NDArray[np.int32], count: int) -> None:
        """Hold ``rows[:count]`` (distinct, not negative, below ``rows.size``) as
        :meth:`append` holds them sorted; ``rows[:count]`` is left sorted.  With the C
        accelerator the sort and :func:`pack` are one call, writing into the open
        block (a copy, a sort and pack's numpy calls were about 8 us a rule)."""
        if crules is None:
            rows[:count].sort()
            self.append(rows[:count].copy())
            return
        marks = self._marks_for(rows.size)
        at = self._next_at()
        # no block open yet: sorted only (most -1), then held by append
        most = SHARED_MOST if self._open >= 0 else -1
        block = self._blocks[self._open] if self._open >= 0 else marks[:0].view(np.uint8)
        kind, size, written = crules.pack_rows(rows, count, marks, block, at, most, PACK_MIN)
        if written:
            self._fill = at + size * _ITEMSIZE[kind]
            # _add, inline (once a rule)
            self._block.append(self._open)
            self._at.append(at)
            self._size.append(size)
            self._kind.append(kind)
        else:  # a new block, or a list of its own (rows[:count] is sorted now)
            self.append(rows[:count].copy())

    def open_block(self, rows: int) -> tuple[npt.NDArray[np.uint8], int, npt.NDArray[np.uint64]]:
        """For a kernel that packs lists into the open block itself (``crules.walk_many``,
        as :meth:`append_unsorted` packs one): the open block (one opened if none is),
        the bytes used in it, and a bitmap of ``rows`` bits for the sort, all zero."""
        if self._open < 0:
            self._new_block()
        return self._blocks[self._open], self._fill, self._marks_for(rows)

    def _new_block(self) -> None:
        """Open a new block, empty, for the lists added after."""
        self._blocks.append(np.empty(BLOCK, dtype=np.uint8))
        self._open, self._fill = len(self._blocks) - 1, 0

    def _next_at(self) -> int:
        """The next list's first byte in the open block: each list starts at a multiple
        of 4 bytes, so a view of any kind of list is aligned."""
        return -(-self._fill // 4) * 4

    def _marks_for(self, rows: int) -> npt.NDArray[np.uint64]:
        """The C sort's bitmap of at least ``rows`` bits, all zero: grown when too
        small, else the one kept (the C leaves it zero after each sort)."""
        if self._marks.size * 64 < rows:
            self._marks = np.zeros(-(-rows // 64), dtype=np.uint64)
        return self._marks

    def packed_into_block(self, lists: npt.NDArray[np.int64], fill: int) -> None:
        """Hold the lists a kernel packed into :meth:`open_block`'s block: ``lists``' rows
        (kind, first byte, items) in order; ``fill`` the bytes used after them."""
        self._block.extend([self._open] * len(lists))
        self._kind.extend(lists[:, 0].tolist())
        self._at.extend(lists[:, 1].tolist())
        self._size.extend(lists[:, 2].tolist())
        self._fill = fill

    def _add(self, block: int, at: int, size: int, kind: int) -> None:
        self._block.append(block)
        self._at.append(at)
        self._size.append(size)
        self._kind.append(kind)

    def size(self, i: int) -> int:
        """How many rows the ``i``-th list holds (:func:`unpacked_size` of it)."""
        return self._size[i] - _FIRST[self._kind[i]] + 1

    def packed(self, i: int) -> npt.NDArray[np.integer]:
        """The ``i``-th list as :func:`pack` packed it (a view of its block)."""
        kind = _DTYPES[self._kind[i]]
        at = self._at[i]
        raw = self._blocks[self._block[i]][at : at + self._size[i] * kind.itemsize]
        return raw.view(kind)

    def rows(self, i: int) -> npt.NDArray[np.int32]:
        """The rows appended ``i``-th (a copy: no block is held by them)."""
        packed = self.packed(i)
        out = np.empty(unpacked_size(packed), dtype=np.int32)
        unpack_into(packed, out)
        return out

    def unpack_lists(
        self, which: npt.NDArray[np.int64], ptr: npt.NDArray[np.int64], rows: npt.NDArray[np.int32]
    ) -> None:
        """The lists ``which[k]`` (none where it is negative) unpacked into ``rows``, list
        ``which[k]``'s at ``rows[ptr[k]:ptr[k + 1]]``, in one call of the C accelerator."""
        assert crules is not None
        crules.unpack_lists(
            self._blocks, self._block, self._at, self._size, self._kind, which, ptr, rows
        )

    def unpacked(self) -> list[npt.NDArray[np.int32]]:
        """The rows appended, in order; the lists are emptied."""
        out = [self.rows(i) for i in range(len(self))]
        self._reset()
        return out


class Unpacking(Sequence[npt.NDArray[np.int32]]):
    """The rows of some of ``lists``' entries (``which``), unpacked each time one is read
    and not kept: a reader that copies them into tables of its own (the subset search)
    holds each only while it copies it.  ``empty[k]``: entry ``k`` reads as no rows (a
    rule that fires on no case)."""

    def __init__(self, lists: CaseLists, which: list[int], empty: list[bool]) -> None:
        self._lists, self._which, self._empty = lists, which, empty

    def __len__(self) -> int:
        return len(self._which)

    @overload
    def __getitem__(self, k: int) -> npt.NDArray[np.int32]: ...

    @overload
    def __getitem__(self, k: slice) -> list[npt.NDArray[np.int32]]: ...

    def __getitem__(self, k: int | slice) -> npt.NDArray[np.int32] | list[npt.NDArray[np.int32]]:
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        if self._empty[k]:
            return np.zeros(0, dtype=np.int32)
        return self._lists.rows(self._which[k])

    def __iter__(self) -> Iterator[npt.NDArray[np.int32]]:
        for k in range(len(self)):
            yield self[k]

    def sizes(self) -> list[int]:
        """How many rows each entry reads as, from the packed lists."""
        return [
            0 if empty else self._lists.size(i)
            for i, empty in zip(self._which, self._empty, strict=True)
        ]

    def unpack_all(self, ptr: npt.NDArray[np.int64], rows: npt.NDArray[np.int32]) -> None:
        """Every entry's rows written into ``rows``, entry ``k``'s at
        ``rows[ptr[k]:ptr[k + 1]]`` (``ptr`` from :meth:`sizes`), by the C accelerator."""
        assert crules is not None
        which = np.asarray(
            [-1 if empty else i for i, empty in zip(self._which, self._empty, strict=True)],
            dtype=np.int64,
        )
        self._lists.unpack_lists(which, ptr, rows)

    def unpack_into(self, k: int, out: npt.NDArray[np.int32]) -> None:
        """Entry ``k``'s rows written into ``out`` (of its :meth:`sizes` items)."""
        if not self._empty[k]:
            unpack_into(self._lists.packed(self._which[k]), out)
