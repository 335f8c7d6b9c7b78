"""A forest's count rows bit-packed (treegen.ensemble.layout's payloads, the table style).

Count rows are stored as bytes (every count of the row <= 255) or 16-bit words
otherwise.  Most rows need far fewer bits: a depth-8 ExtraTrees forest's 268 rows
have a largest count of 1 to 11 bits.  Packed, the rows are sorted by their *width*
(the bits of their largest count) and each group of one width is a run of
``width``-bit fields, one per class, in one bit stream: field ``c`` of the group's
``i``-th row starts at bit ``base + (i * K + c) * width`` (K classes; ``base`` the bits
of the groups before it), bit ``b`` of the stream being bit ``b % 8`` of byte
``b / 8``.  A group is its end (the first payload after it) and its width; the C
finds a payload's group by walking the group table, summing the bits before it.

The ExtraTrees forest above: 1,184 bytes of rows -> 736 bytes of stream, 11 groups.
The counts, and so every fraction the C divides, are the same: only where they are
stored changes.  Packing is chosen where it saves more than :data:`CODE_BYTES` (the
C that reads the fields, measured on the Cortex-M0+)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CODE_BYTES = 64
"""The Cortex-M0+ code the bit reader adds over the byte rows' reader (bench/ensemble_bench)."""

PAD = 2
"""Bytes after a field's first byte that the C reads (a field of up to 16 bits at any
bit offset spans at most three bytes)."""


def width(row: Sequence[int]) -> int:
    """The bits of ``row``'s largest count (at least 1)."""
    return max(max(row), 1).bit_length()


@dataclass(frozen=True, slots=True)
class Packed:
    """The stream (its bytes) and the groups: each group's end payload and width."""

    stream: tuple[int, ...]
    ends: tuple[int, ...]
    widths: tuple[int, ...]
    bits: int  # the stream's bits in use

    @property
    def table_bytes(self) -> int:
        """Bytes of the stream and the group table (the ends as 8 or 16-bit numbers)."""
        end_size = 1 if max(self.ends, default=0) <= 0xFF else 2
        return len(self.stream) + len(self.ends) * (end_size + 1)


def pack(rows: Sequence[Sequence[int]], first: int) -> Packed:
    """``rows`` (already sorted by :func:`width`, payloads ``first``, ``first + 1``, ...)
    packed as the module docstring says."""
    ends: list[int] = []
    widths: list[int] = []
    value = 0
    bit = 0
    for i, row in enumerate(rows):
        w = width(row)
        if widths and widths[-1] == w:
            ends[-1] = first + i + 1
        else:
            assert not widths or w > widths[-1], "rows not sorted by width"
            widths.append(w)
            ends.append(first + i + 1)
        for c in row:
            value |= c << bit
            bit += w
    last = bit - (widths[-1] if widths else 0)
    n_bytes = max((bit + 7) // 8, (last >> 3) + 1 + PAD) if rows else 0
    stream = tuple((value >> (8 * b)) & 0xFF for b in range(n_bytes))
    return Packed(stream, tuple(ends), tuple(widths), bit)


def byte_rows_size(rows: Sequence[Sequence[int]]) -> int:
    """Bytes of ``rows`` stored as 8-bit rows and 16-bit rows."""
    return sum(len(r) * (1 if max(r) <= 0xFF else 2) for r in rows)


def worth_packing(rows: Sequence[Sequence[int]], first: int) -> bool:
    """Whether the packed rows, their group table and their reader take fewer bytes
    than the byte rows."""
    ordered = sorted(rows, key=lambda r: (width(r), tuple(r)))
    return pack(ordered, first).table_bytes + CODE_BYTES < byte_rows_size(rows)
