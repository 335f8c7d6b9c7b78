"""A forest's tree shapes and leaves as one pre-order bit stream (the table style).

The compact table (treegen.ensemble.layout) names each split's other child by a kid
(a row's distance, a payload or a pair of payloads), and a leaf's counts sit in a
table of count rows.  Where the rows are packed (treegen.ensemble.row_pack) and every
leaf is a count row, this form stores instead, for every node of every tree in
pre-order, tree after tree, one bit stream (bit ``b`` is bit ``b % 8`` of byte
``b / 8``; a field's most significant bit first, so that the C builds it by constant
shifts, which an 8-bit AVR does in one instruction, not a loop):

* a split: a 0 bit (its test is the next row of the packed rows);
* a leaf: a 1 bit, then a ``K``-bit class mask (K classes); where more than one
  class is in it, the ``W``-bit width ``w`` of the leaf's largest count, then the
  leaf's nonzero counts in class order, ``w`` bits each.  A one-class leaf adds
  ``1 / 1`` to its class: the 1.0 a pure leaf adds.

A tree starts at its entry of a table of tree starts (its first bit and its first
split's row).  The C reads a tree's nodes from there up to the path's leaf: the path's
splits test their rows, and a right turn passes the left subtree, counting the subtrees
still to pass (a split adds one, a leaf takes one away; a leaf passed is not read past
its mask and width).  No kid, pair or count row table remains: the ExtraTrees forest of
bench/ensemble_models.py (609 splits, 619 leaves) 2,012 -> 1,177 B (its 40 B of tree
starts included).  Chosen where the stream, its tree starts and :data:`CODE_BYTES` take fewer
bytes than the kid stream, pairs, roots and count rows they replace.  The counts are
the count rows' (the same divisions): only where they are stored changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from treegen.ensemble.ir import EnsembleIR, LeafRow
from treegen.ensemble.layout import Payloads

CODE_BYTES = 0
"""The Cortex-M0+ code the stream's reader adds over the kid walk and count rows'
reader it replaces (the ExtraTrees forest's link, -Os): it is smaller."""

MAX_FIELD_BITS = 16
"""The C reads a field into an ``unsigned`` (16 bits on AVR)."""


@dataclass(frozen=True, slots=True)
class NodeStream:
    """The stream's bytes and its field widths: ``classes`` (K) bits of mask,
    ``width_bits`` (W) of a count width."""

    data: tuple[int, ...]
    bits: int
    classes: int
    width_bits: int
    starts: tuple[int, ...]  # each tree's first bit
    first_rows: tuple[int, ...]  # each tree's first split's row

    @property
    def start_bytes(self) -> int:
        """Bytes of a tree start's bit (16 or 32-bit) and of its row (8 or 16-bit)."""
        return (2 if self.bits <= 0xFFFF else 4) + (1 if max(self.first_rows) <= 0xFF else 2)

    @property
    def table_bytes(self) -> int:
        return len(self.data) + len(self.starts) * self.start_bytes

    def field(self, at: int, w: int) -> int:
        """The ``w``-bit field from bit ``at``, as the C reads it (a bit at a time, the
        most significant first)."""
        v = 0
        for b in range(at, at + w):
            v = (v << 1) | ((self.data[b >> 3] >> (b & 7)) & 1)
        return v


def _counts(pay: Payloads, p: int, k: int) -> tuple[int, ...]:
    """The counts a payload adds: a one-class payload's as a 1."""
    return tuple(int(c == p) for c in range(k)) if p < pay.n_pure else pay.counts[p - pay.n_pure]


def encode(ir: EnsembleIR, pay: Payloads) -> NodeStream | None:
    """``ir``'s trees as the module docstring's stream, or None where a leaf is not a
    count row or the mask would not fit the C's 16-bit field."""
    k = ir.n_outputs
    if not pay.fractions or not ir.vector or k > MAX_FIELD_BITS or ir.decided:
        return None  # a decided leaf (EnsembleIR.decided) is returned, not added
    widest = max((max(r).bit_length() for r in pay.counts), default=1)
    wbits = widest.bit_length()
    value = 0
    bit = 0

    def put(v: int, w: int) -> None:
        nonlocal value, bit
        assert 0 <= v < 1 << w
        for b in range(w - 1, -1, -1):  # the most significant bit first
            value |= ((v >> b) & 1) << bit
            bit += 1

    starts: list[int] = []
    first_rows: list[int] = []
    row = 0
    for tree in ir.trees:
        starts.append(bit)
        first_rows.append(row)
        for node in tree.nodes:
            if not isinstance(node, LeafRow):
                put(0, 1)
                row += 1
                continue
            counts = _counts(pay, pay.of_row[node.row], k)
            put(1, 1)
            put(sum(1 << c for c, n in enumerate(counts) if n), k)
            if sum(1 for n in counts if n) > 1:
                w = max(counts).bit_length()
                put(w, wbits)
                for n in counts:
                    if n:
                        put(n, w)
    n_bytes = (bit + 7) >> 3
    data = tuple((value >> (8 * b)) & 0xFF for b in range(n_bytes))
    return NodeStream(data, bit, k, wbits, tuple(starts), tuple(first_rows))


def walk(stream: NodeStream, go_left: Sequence[bool]) -> list[tuple[int, ...]]:
    """The counts each tree's reached leaf adds when row r's test answers
    ``go_left[r]``: the C's reading, for the tests of the stream itself."""
    out: list[tuple[int, ...]] = []
    k, wb = stream.classes, stream.width_bits
    for at, r in zip(stream.starts, stream.first_rows, strict=True):
        skip = 0  # the subtrees to pass before the path's next node
        while True:
            split = stream.field(at, 1) == 0
            at += 1
            if split:
                if skip:
                    skip += 1
                elif not go_left[r]:
                    skip = 1  # right: pass the left subtree
                r += 1
                continue
            mask = stream.field(at, k)
            at += k
            w = 0
            if mask & (mask - 1):
                w = stream.field(at, wb)
                at += wb
            n = []
            for c in range(k):
                v = 0
                if (mask >> c) & 1:
                    if not skip:
                        v = stream.field(at, w) if w else 1
                    at += w
                n.append(v)
            if not skip:
                out.append(tuple(n))
                break
            skip -= 1
    return out


def worth(stream: NodeStream | None, replaced: int) -> bool:
    """Whether ``stream`` and its code take fewer bytes than what it replaces
    (``replaced``: the kid stream, the pairs and their ninth bits, the roots and the
    count rows with their group table)."""
    return stream is not None and stream.table_bytes + CODE_BYTES < replaced
