"""The table style's view of an ensemble (templates/predict_ensemble_table.c.j2): every
tree's splits in one compact node table (treegen.ensemble.layout) as C columns, its pair
table packed to 9-bit entries where that fits, and the bytes the tables take
(``table_bytes``, what ``info`` reports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from treegen.codegen.ctype import TYPES, UINT32, CType, smallest_uint
from treegen.codegen.literals import c_rows
from treegen.codegen.parts import int_column, threshold_column
from treegen.codegen.views import Column
from treegen.ensemble import node_stream
from treegen.ensemble.ir import EnsembleIR, LeafRow, Split
from treegen.ensemble.layout import OP_CODES, NodeTable, Payloads, Word, node_table, payloads
from treegen.ensemble.node_stream import NodeStream
from treegen.ensemble.row_pack import PackedRows, pack_rows, worth_packing
from treegen.ensemble.splice import spliced
from treegen.ensemble.view_common import FLOAT_EXACT_INT, bitsets, common_view, init_zero, splits
from treegen.errors import EmitError

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, slots=True)
class OpCodes:
    le: int
    lt: int
    left: int
    right: int


@dataclass(frozen=True, slots=True)
class TableView:
    """The compact node table (treegen.ensemble.layout.NodeTable) as C columns."""

    n_rows: int
    n_payloads: int
    n_pairs: int
    word: Column
    feature: Column | None  # None: the feature is in the word
    thr: Column
    pairs: Column
    roots: Column
    edge_ctype: str
    feature_mask: int
    kid_ctype: str  # kid as the walk holds it: at least unsigned, so no compare is vacuous
    fields: Word
    ops: OpCodes
    zero_rows: tuple[str, ...] = ()  # the rows of zero-band tests, a bit each
    n_zero_bytes: int = 0
    pair_hi: Column | None = None  # 9-bit pair entries: their top bits (pairs holds the low 8)
    n_pair_hi: int = 0
    # The key walk's rows packed (treegen.ensemble.row_pack): word is then the uint32 rows,
    # tops the threshold tops, kids the kid stream.
    packed: PackedRows | None = None
    tops: Column | None = None
    kids: Column | None = None
    kid_at_ctype: str = "unsigned"  # a kid's bit offset (at most R * K + 24)
    # The tree shapes and leaves as one bit stream (treegen.ensemble.node_stream) in place
    # of the kids, pairs, roots and count rows; None: those.
    stream: NodeStream | None = None
    nodes: Column | None = None  # the stream's bytes
    starts: Column | None = None  # each tree's first bit in the stream
    first_rows: Column | None = None  # each tree's first split's row
    stream_at_ctype: str = "unsigned"  # a stream bit offset
    # False: every test is a constant (an integer input that no threshold divides), so
    # the walk reads no threshold and the C has no threshold column (an unused
    # constant is an error under -Werror).
    thr_read: bool = True
    # False: the value walk (no key walk) reads no x[f]: every numeric test is a
    # constant and none checks for a missing value (--missing none); its v would be
    # an unused variable, an error under -Werror.
    value_read: bool = True
    # False: no numeric test compares a value (each is a constant, or every test is
    # categorical), so the walk's numeric branch reads neither a value nor a threshold.
    compares: bool = True


def _uint_column(U: str, values: list[int] | tuple[int, ...], ctype: CType | None = None) -> Column:
    return int_column(U, list(values) or [0], ctype or smallest_uint(max(values, default=0)))


def pair_columns(table: NodeTable) -> tuple[list[int], list[int]]:
    """The pair table's entries (two a pair), and no more; or, where some entry needs 9
    bits (256 to 511 payloads), their low bytes and a bitmap of their top bits (entry q's
    is bit q % 8 of byte q / 8): 1.1 bytes an entry instead of 2 (an ExtraTrees forest of
    272 payloads: its 408 entries 816 -> 459 B)."""
    flat = [p for pair in table.pairs for p in pair]
    if not 0xFF < max(flat, default=0) <= 0x1FF:
        return flat, []
    hi = [
        sum(((flat[q + b] >> 8) & 1) << b for b in range(8) if q + b < len(flat))
        for q in range(0, len(flat), 8)
    ]
    return [p & 0xFF for p in flat], hi


def _stream(
    ir: EnsembleIR, table: NodeTable, pay: Payloads, packed: PackedRows
) -> NodeStream | None:
    """The node stream where it is smaller than the kids, pairs, roots and count rows."""
    if table.n_rows + table.n_payloads > 0xFFFF or not table.word.in_word:
        return None
    replaced = len(packed.kids) + _leaf_bytes(table, pay)
    stream = node_stream.encode(ir, pay)
    return stream if node_stream.worth(stream, replaced) else None


def _leaf_bytes(table: NodeTable, pay: Payloads) -> int:
    """Bytes of the pairs (and their ninth bits), the roots and the count rows: the
    columns :func:`table_view` makes of them (the node stream replaces these)."""
    flat, hi = pair_columns(table)
    n = len(flat) * _SIZES[smallest_uint(max(flat, default=0)).c_name] + len(hi)
    n += len(table.roots) * _SIZES[smallest_uint(table.n_rows + table.n_payloads).c_name]
    if pay.packed is not None:
        return n + pay.packed.table_bytes
    return n + sum(len(r) * (1 if i < pay.n_narrow else 2) for i, r in enumerate(pay.counts))


def table_view(ir: EnsembleIR, table: NodeTable, pay: Payloads | None = None) -> TableView:
    """The table as C columns; with ``pay`` (the table's payloads), the node stream in
    place of kids, pairs, roots and count rows where that is smaller."""
    U = ir.prefix.upper()
    w = table.word
    thresholds = list(table.threshold)
    if not ir.encoding.is_int and not ir.encoding.uses_keys:
        big = [
            t
            for t, c in zip(thresholds, table.categorical, strict=True)
            if c and t >= FLOAT_EXACT_INT
        ]
        if big:
            raise EmitError(
                f"the ensemble's categorical tests need {big[-1]} bitset bytes; at most "
                f"{FLOAT_EXACT_INT} are exported"
            )
    packed = None
    words = table.words()
    word_ctype = smallest_uint(max((1 << w.bits) - 1, 1))
    if ir.key_walk:  # no categorical test: every row is a Split
        thresholds = [ir.key_threshold(s) for s in splits(ir)]
        packed = pack_rows(words, w.kid_shift, [int(t) for t in thresholds])
        if not worth_packing(packed, _SIZES[word_ctype.c_name]):
            packed = None
    zero_bits = [
        isinstance(node, Split) and node.zero
        for tree in ir.trees
        for node in tree.nodes
        if not isinstance(node, LeafRow)
    ]
    zero_bytes = [
        sum(1 << b for b in range(8) if i + b < len(zero_bits) and zero_bits[i + b])
        for i in range(0, len(zero_bits), 8)
    ]
    flat, hi = pair_columns(table)
    kid_bits = packed.kid_bits if packed else w.bits - w.kid_shift
    stream = _stream(ir, table, pay, packed) if packed is not None and pay is not None else None
    # Whether some numeric row compares its value with a threshold (op le or lt), not
    # every one a constant branch: the one rule the two flags below read.
    compares = any(
        not c and o in (OP_CODES["le"], OP_CODES["lt"])
        for c, o in zip(table.categorical, table.op, strict=True)
    )
    return TableView(
        n_rows=table.n_rows,
        n_payloads=table.n_payloads,
        n_pairs=len(table.pairs),
        word=_uint_column(U, packed.rows, UINT32) if packed else _uint_column(U, words, word_ctype),
        feature=None if w.in_word else _uint_column(U, table.feature),
        thr=threshold_column(ir.frame.encoding, U, thresholds or [0]),
        pairs=_uint_column(U, flat),
        pair_hi=_uint_column(U, hi, TYPES["uint8"]) if hi else None,
        n_pair_hi=len(hi),
        roots=_uint_column(U, table.roots, smallest_uint(table.n_rows + table.n_payloads)),
        edge_ctype=smallest_uint(table.n_rows + table.n_payloads).c_name,
        feature_mask=(1 << w.feature_bits) - 1,
        # Packed, kid is decoded back to the layout's (row_pack): as wide as in the word.
        kid_ctype="unsigned"
        if (w.bits - w.kid_shift if packed else w.bits) <= 16
        else UINT32.c_name,
        fields=w,
        ops=OpCodes(**OP_CODES),
        zero_rows=c_rows([f"{b}u" for b in zero_bytes]) if any(zero_bits) else (),
        n_zero_bytes=len(zero_bytes) if any(zero_bits) else 0,
        packed=packed,
        tops=_uint_column(U, packed.tops, TYPES[f"uint{8 * packed.top_bytes}"]) if packed else None,
        kids=_uint_column(U, packed.kids, TYPES["uint8"]) if packed else None,
        kid_at_ctype="unsigned" if table.n_rows * kid_bits + 24 <= 0xFFFF else UINT32.c_name,
        stream=stream,
        nodes=_uint_column(U, stream.data, TYPES["uint8"]) if stream else None,
        starts=_uint_column(U, stream.starts, UINT32 if stream.bits > 0xFFFF else TYPES["uint16"])
        if stream
        else None,
        first_rows=_uint_column(U, stream.first_rows) if stream else None,
        stream_at_ctype="unsigned" if stream is None or stream.bits <= 0xFFFF else UINT32.c_name,
        # The key walk compares a key with every row's threshold; a categorical row's
        # threshold is its bitset's offset.
        thr_read=bool(ir.key_walk or any(table.categorical) or compares),
        # Under C4.5's rule every numeric row checks its value for missing.
        value_read=not ir.lean or compares,
        compares=compares,
    )


_SIZES = {"uint8_t": 1, "int8_t": 1, "uint16_t": 2, "int16_t": 2, "uint32_t": 4, "int32_t": 4}
_SIZES.update({"float": 4, "double": 8})


def table_bytes(ir: EnsembleIR) -> int:
    """The bytes of the table style's constant tables for ``ir`` (what ``info``
    reports; the code adds one to two kilobytes, the binary64 routines included, where
    the C sums: not for a one-tree classifier's class decided at export time)."""
    ir = spliced(ir)  # as emit writes it
    cat_bytes, cat_at = bitsets(ir)
    pay = payloads(ir, fractions=True)
    table = node_table(ir, pay, cat_at)
    view = table_view(ir, table, pay)
    row = _SIZES[view.feature.ctype] if view.feature else 0
    if view.stream is not None:  # the rows, the top table and the node stream
        assert view.packed is not None
        n = view.packed.table_bytes - len(view.packed.kids) + view.stream.table_bytes
    else:
        if view.packed is not None:  # the rows, their kid stream and the top table
            n = view.packed.table_bytes
        else:
            row += _SIZES[view.word.ctype] + _SIZES[view.thr.ctype] * view.thr_read
            n = 0
        n += table.n_rows * row + _leaf_bytes(table, pay)
    width = 4 if ir.float32_sums else 8  # a value, an initial score
    n += sum(len(r) for r in pay.doubles) * width if ir.vector else len(pay.doubles) * width
    if not ir.decided:  # a decided tree's C has no sums: no initial scores or divisor
        n += width * ir.n_outputs * (not init_zero(ir, pay)) + 8 * (ir.divisor is not None)
        n += 8 * (ir.decision == "gt" and not ir.float32_sums)  # the soft path's cut
    n += view.n_zero_bytes
    common = common_view(ir, pay, cat_bytes)
    if common.output is not None:
        n += len(ir.trees) * _SIZES[common.output.ctype]
    if cat_bytes:
        n += len(cat_bytes) + ir.n_features * _SIZES[common.ncode.ctype]
    n += 8 * sum(len(c) for c in ir.categories)
    return n
