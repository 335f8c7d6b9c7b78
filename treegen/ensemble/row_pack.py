"""A key walk's node rows in one 32-bit word each and their kids bit-packed (the table style).

The compact table (treegen.ensemble.layout) gives each row a word (its fields, then
``kid``) and a 32-bit threshold key.  A key of a float threshold uses all 32 bits, but a
model's thresholds share few *tops* (the bits above the low ``L``; for float keys
with ``L`` 23, the sign and exponent: 28 in a 10-tree ExtraTrees forest of 609 splits,
whose keys span 22 to 31 bits within one feature, so no per-feature base and 16 or
24-bit offset holds them).  Packed, a row is one ``uint32_t``::

    bits 0 .. F-1      the word's fields below kid (feature, missing side), as before
    bits F .. F+L-1    the threshold key's low L bits
    bits F+L .. 31     the index of its top in the top table (top[i] << L | low)

and ``kid`` moves to a stream of ``K``-bit fields (row r's from bit ``r * K``, bit b
being bit ``b % 8`` of byte ``b / 8``), a right child that is a row as its distance:
field ``f < D`` is row ``r + 2 + f`` (a right child row is at least two rows on, and at
most a left subtree's rows plus one: 128 in a tree of depth 8), and ``f >= D`` is kid
``f - D + R`` (R rows), a leaf or a pair.  ``K`` is the bits of the largest field: 11 ->
10 for the ExtraTrees forest below.  ``L`` is the
largest that leaves enough index bits for the distinct tops (the smallest top table).
Every key is the same number, rebuilt by an OR: the tests' answers cannot change.
Chosen where the rows, the stream, the top table and :data:`CODE_BYTES` take fewer
bytes than the words and thresholds (ExtraTrees above: 3,654 -> 3,229 B of tables)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CODE_BYTES = 76
"""The Cortex-M0+ code the kid and top reads add over the plain word and threshold reads
(the ExtraTrees forest's predict.o, -Os)."""

MAX_KID_BITS = 17
"""A kid field at any bit offset then lies in the three bytes the C reads."""


@dataclass(frozen=True, slots=True)
class PackedRows:
    """The rows, the top table and the kid stream (module docstring)."""

    rows: tuple[int, ...]
    tops: tuple[int, ...]
    field_bits: int  # F
    low_bits: int  # L
    kid_bits: int  # K
    kids: tuple[int, ...]  # the stream's bytes
    near: int  # D: the fields that are a right child row's distance

    @property
    def kid_mask(self) -> int:
        return (1 << self.kid_bits) - 1

    @property
    def low_mask(self) -> int:
        return (1 << self.low_bits) - 1

    @property
    def top_bytes(self) -> int:
        """Bytes of a top table entry: the tops hold ``32 - L`` bits."""
        return 2 if 32 - self.low_bits <= 16 else 4

    @property
    def table_bytes(self) -> int:
        return 4 * len(self.rows) + len(self.kids) + self.top_bytes * len(self.tops)

    def threshold(self, r: int) -> int:
        """Row r's threshold key as the C rebuilds it."""
        v, low = self.rows[r], self.low_bits
        return (self.tops[v >> (self.field_bits + low)] << low) | (
            (v >> self.field_bits) & ((1 << low) - 1)
        )

    def top_index(self, w: str) -> str:
        """C for the top table index in row ``w`` (bits F+L to 31): a shift by whole bytes
        and a short rest, because avr-gcc at -Os makes any other constant shift of a
        32-bit value a loop of one bit a pass (a float key's top: 26 passes of 6
        cycles a row)."""
        s = self.field_bits + self.low_bits
        for whole, ctype in ((24, "uint8_t"), (16, "uint16_t")):
            if s >= whole:
                part = f"(unsigned)({ctype})({w} >> {whole})"
                return part if s == whole else f"({part} >> {s - whole})"
        return f"(unsigned)({w} >> {s})"

    def high(self, top: str) -> str:
        """C for ``top << L`` as a ``uint32_t`` (``top`` a read of the top table), by the
        same rule as :meth:`top_index`: a 16-bit top shifted within 16 bits, then by two
        whole bytes (it holds 32 - L bits, so its shift by L - 16 still fits 16)."""
        if self.top_bytes == 2 and self.low_bits >= 16:
            rest = self.low_bits - 16
            part = top if rest == 0 else f"(uint16_t)({top} << {rest})"
            return f"((uint32_t){part} << 16)"
        return f"((uint32_t){top} << {self.low_bits})"

    def kid(self, r: int) -> int:
        """Row r's kid as the C reads it (three bytes from the field's first)."""
        at = r * self.kid_bits
        three = sum(self.kids[(at >> 3) + j] << (8 * j) for j in range(3))
        f = (three >> (at & 7)) & ((1 << self.kid_bits) - 1)
        return r + 2 + f if f < self.near else f - self.near + len(self.rows)


def _low_bits(keys: Sequence[int], free: int) -> int | None:
    """The largest L whose distinct tops ``key >> L`` fit a ``free - L``-bit index."""
    for low in range(free - 1, -1, -1):
        if len({k >> low for k in keys}) <= 1 << (free - low):
            return low
    return None


def pack_rows(words: Sequence[int], kid_shift: int, keys: Sequence[int]) -> PackedRows | None:
    """``words`` (fields below bit ``kid_shift``, kid above) and their threshold
    ``keys`` packed, or None where they do not fit the module docstring's form."""
    if not words or kid_shift >= 31:
        return None
    fields = [w & ((1 << kid_shift) - 1) for w in words]
    R = len(words)
    near = max((k - r - 1 for r, k in enumerate(w >> kid_shift for w in words) if k < R), default=0)
    kid = [
        k - r - 2 if k < R else k - R + near for r, k in enumerate(w >> kid_shift for w in words)
    ]
    assert min(kid) >= 0, "a right child row right after its parent"
    kid_bits = max(max(kid).bit_length(), 1)
    low = _low_bits(keys, 32 - kid_shift)
    if low is None or kid_bits > MAX_KID_BITS:
        return None
    tops = sorted({k >> low for k in keys})
    index = {t: i for i, t in enumerate(tops)}
    rows = tuple(
        f | ((k & ((1 << low) - 1)) << kid_shift) | (index[k >> low] << (kid_shift + low))
        for f, k in zip(fields, keys, strict=True)
    )
    value = sum(v << (r * kid_bits) for r, v in enumerate(kid))
    # The C reads three bytes from a field's first: the last field's two more exist.
    n_bytes = ((len(kid) - 1) * kid_bits >> 3) + 3
    stream = tuple((value >> (8 * b)) & 0xFF for b in range(n_bytes))
    return PackedRows(rows, tuple(tops), kid_shift, low, kid_bits, stream, near)


def worth_packing(packed: PackedRows | None, word_bytes: int) -> bool:
    """Whether ``packed`` takes fewer bytes, its code included, than the rows as words
    of ``word_bytes`` and 32-bit thresholds."""
    if packed is None:
        return False
    return packed.table_bytes + CODE_BYTES < len(packed.rows) * (word_bytes + 4)
