"""An EnsembleIR's leaves and nodes laid out for the C: payloads, and the compact table.

**Payloads.**  A leaf is a number, its *payload*, standing for what it adds.  With
double rows a payload is a row of float64 values (deduplicated).  A forest's rows are
class fractions ``fl(w_c / W)`` of integer weights (bootstrap counts), so the table
style stores them as *count rows* instead: the smallest integers ``n_c`` with
``fl(n_c / N) == value_c`` for every class, ``N = sum(n_c)`` (checked here, exactly:
Python divides two ints correctly rounded, as the C divides two doubles).  A pure leaf
(``N == 1``) is its class alone: payloads ``0 .. K-1``; then the rows whose counts fit
8 bits, then the 16-bit ones; or, where that is smaller, all sorted by their width
and bit-packed (treegen.ensemble.count_pack).  Adding ``fl(n_c / N)`` is the same IEEE operation
as adding the stored value; a zero count is skipped, which is exact because the sums
start at +0 or above and every value is >= +0, so no sum is ever -0 (x + 0.0 == x for
every other x).  Count rows are used only when every row has them.  A one-tree
classifier whose classes are decided at export time (EnsembleIR.decided) has one-class
payloads only: each leaf's is its class, which the C returns.

**The compact table** (the table style).  Only splits have rows, in pre-order, tree
after tree.  A row is a threshold (or, for a categorical test, the offset of its
bitset) and a word: the feature, the categorical flag and the comparison when the
model needs them, the missing value's side (under ``--missing none`` only where a
categorical or zero-band test reads it), and ``kid``.  A walk follows *edges*: an
edge ``e < R`` (R rows) is row e; ``e >= R`` is the leaf with payload ``e - R``.  The
child that is a split comes next in pre-order, so ``kid`` names only the other one:

* ``kid < R + P``: left is row r + 1, right is edge ``kid`` (a row or a leaf);
* ``kid < R + 2P``: left is the leaf ``kid - P - R``, right is row r + 1;
* else both are leaves: pair ``kid - R - 2P`` of the pair table (deduplicated).

A tree's root is an edge (a one-leaf tree's is its leaf).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from treegen.codegen.ir import CompareOp
from treegen.ensemble import count_pack
from treegen.ensemble.ir import CatSplit, ENode, EnsembleIR, ETree, LeafRow, Split
from treegen.errors import EmitError

MAX_COUNT = 0xFFFF
"""The largest count a count row stores (and the largest sum of one)."""

OP_CODES: dict[CompareOp, int] = {"le": 0, "lt": 1, "left": 2, "right": 3}


@dataclass(frozen=True, slots=True)
class Payloads:
    """What each payload adds (module docstring).  ``counts``: the count rows, 8-bit
    ones first (``n_narrow`` of them), after the ``n_pure`` one-class payloads; or
    ``doubles``: value rows.  ``of_row[i]`` is the payload of the IR's value row i."""

    n_pure: int
    counts: tuple[tuple[int, ...], ...]
    n_narrow: int
    doubles: tuple[tuple[float, ...], ...]
    of_row: tuple[int, ...]
    # The count rows bit-packed (treegen.ensemble.count_pack), sorted by width; else
    # None: byte rows and 16-bit rows.
    packed: count_pack.Packed | None = None

    @property
    def fractions(self) -> bool:
        return not self.doubles

    @property
    def count(self) -> int:
        return len(self.doubles) if self.doubles else self.n_pure + len(self.counts)


def count_row(values: tuple[float, ...]) -> tuple[int, ...] | None:
    """The smallest counts whose fractions are ``values`` exactly, or None."""
    # A fraction is at most 1 (a regressor's row may hold 1e308, whose product with the
    # total below would be inf).
    if any(not 0 <= v <= 1 or math.copysign(1.0, v) < 0 for v in values):
        return None
    nonzero = [Fraction(v).limit_denominator(MAX_COUNT) for v in values if v != 0.0]
    if not nonzero:
        return None
    total = math.lcm(*(f.denominator for f in nonzero))
    if total > MAX_COUNT:
        return None
    counts = tuple(round(v * total) for v in values)
    if sum(counts) != total or any(c / total != v for c, v in zip(counts, values, strict=True)):
        return None
    return counts


def _never_minus_zero(ir: EnsembleIR) -> bool:
    """No sum can be -0: the start values and every value are >= +0."""
    return all(v >= 0 and math.copysign(1.0, v) > 0 for v in ir.init)


def payloads(ir: EnsembleIR, fractions: bool) -> Payloads:
    """The payloads of ``ir``'s value rows: count rows when ``fractions`` is asked for
    and every row has one (a whole-row ensemble whose sums cannot be -0), else the
    rows themselves; where the class is decided at export time (EnsembleIR.decided),
    every leaf's payload is its class, a one-class payload with nothing to add."""
    if ir.decided:
        return Payloads(ir.n_classes, (), 0, (), ir.decided)
    rows = [count_row(r) for r in ir.values] if fractions and ir.vector else []
    if rows and all(r is not None for r in rows) and _never_minus_zero(ir):
        k = ir.n_outputs
        mixed = {r for r in rows if r is not None and sum(r) > 1}
        pack = count_pack.worth_packing(list(mixed), k)
        order = (lambda r: (count_pack.width(r), r)) if pack else (lambda r: (max(r) > 0xFF, r))
        distinct = sorted(mixed, key=order)
        index = {r: k + i for i, r in enumerate(distinct)}
        of_row = tuple(
            r.index(1) if sum(r) == 1 else index[r] for r in rows if r is not None
        )  # fmt: skip
        narrow = sum(1 for r in distinct if max(r) <= 0xFF)
        packed = count_pack.pack(distinct, k) if pack else None
        return Payloads(k, tuple(distinct), narrow, (), of_row, packed)
    return Payloads(0, (), 0, ir.values, tuple(range(len(ir.values))))


@dataclass(frozen=True, slots=True)
class Word:
    """Where each field sits in a row's word (bit offsets; a width of 0: not stored,
    and a feature not in the word is in its own column).  ``op`` is the comparison
    every numeric row has when ``op_bits`` is 0."""

    feature_bits: int
    in_word: bool  # the feature is in the word (else its own column)
    cat_shift: int
    cat_bits: int
    op_shift: int
    op_bits: int
    op: int
    nan_shift: int
    kid_shift: int
    bits: int  # the word's width in use
    nan_bits: int = 1  # 0: no row reads a missing value's side (--missing none)


@dataclass(frozen=True, slots=True)
class NodeTable:
    """The compact table (module docstring); every tuple is one entry per row."""

    n_rows: int
    n_payloads: int
    feature: tuple[int, ...]
    threshold: tuple[int | float, ...]
    op: tuple[int, ...]
    nan_left: tuple[bool, ...]
    categorical: tuple[bool, ...]
    kid: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    roots: tuple[int, ...]
    word: Word

    def words(self) -> tuple[int, ...]:
        w = self.word
        out = []
        for i in range(self.n_rows):
            v = self.kid[i] << w.kid_shift
            if w.nan_bits:
                v |= int(self.nan_left[i]) << w.nan_shift
            if w.op_bits:
                v |= self.op[i] << w.op_shift
            if w.cat_bits:
                v |= int(self.categorical[i]) << w.cat_shift
            if w.in_word:
                v |= self.feature[i]
            out.append(v)
        return tuple(out)


def _bits(n: int) -> int:
    """Bits to hold 0 .. n."""
    return max(n, 0).bit_length()


def _bytes(bits: int) -> int:
    return 1 if bits <= 8 else 2 if bits <= 16 else 4 if bits <= 32 else 8


def _word(n_features: int, kid_max: int, ops: set[int], cat: bool, nan: bool = True) -> Word:
    fbits = _bits(n_features - 1)
    op_bits = 2 if len(ops) > 1 else 0
    rest = _bits(kid_max) + int(nan) + op_bits + int(cat)
    if rest > 32:
        raise EmitError(
            f"the ensemble's node table needs {rest}-bit words; at most 32 are exported"
        )
    # The feature goes in the word unless a column of its own is smaller.
    in_word = fbits == 0 or _bytes(rest + fbits) <= _bytes(rest) + _bytes(fbits)
    if rest + fbits > 32:
        in_word = False
    low = fbits if in_word else 0
    op_shift = low + int(cat)
    nan_shift = op_shift + op_bits
    return Word(
        feature_bits=fbits,
        in_word=in_word,
        cat_shift=low,
        cat_bits=int(cat),
        op_shift=op_shift,
        op_bits=op_bits,
        op=min(ops) if ops else 0,
        nan_shift=nan_shift,
        kid_shift=nan_shift + int(nan),
        bits=nan_shift + int(nan) + _bits(kid_max),
        nan_bits=int(nan),
    )


def split_rows(tree: ETree, start: int = 0) -> dict[int, int]:
    """Node index -> row of each split of ``tree``, whose first split is row ``start``:
    the splits in pre-order (a table walk started at a split's row, as the inline top's
    cut edges are, goes on from that split)."""
    row_of: dict[int, int] = {}
    for i, node in enumerate(tree.nodes):
        if not isinstance(node, LeafRow):
            row_of[i] = start + len(row_of)
    return row_of


def node_table(ir: EnsembleIR, pay: Payloads, cat_at: dict[tuple[int, int], int]) -> NodeTable:
    """The compact table of ``ir`` with leaves as ``pay``'s payloads; a categorical
    test's threshold is the offset ``cat_at[(tree, node)]`` of its bitset."""
    starts: list[int] = []  # each tree's first row
    n_rows = 0
    for tree in ir.trees:
        starts.append(n_rows)
        n_rows += sum(1 for node in tree.nodes if not isinstance(node, LeafRow))
    R, P = n_rows, pay.count
    feature: list[int] = []
    threshold: list[int | float] = []
    op: list[int] = []
    nan_left: list[bool] = []
    cat: list[bool] = []
    kid: list[int] = []
    pairs: dict[tuple[int, int], int] = {}
    roots: list[int] = []
    pending: list[tuple[int, int, int]] = []  # (row, left edge, right edge) for kid
    for t, (tree, start) in enumerate(zip(ir.trees, starts, strict=True)):
        row_of = split_rows(tree, start)

        def edge(
            i: int, row_of: dict[int, int] = row_of, nodes: tuple[ENode, ...] = tree.nodes
        ) -> int:
            node = nodes[i]
            return R + pay.of_row[node.row] if isinstance(node, LeafRow) else row_of[i]

        roots.append(edge(0))
        for i, node in enumerate(tree.nodes):
            if isinstance(node, LeafRow):
                continue
            left = edge(i + 1)
            right = edge(node.right)
            feature.append(node.feature)
            nan_left.append(node.nan_left)
            if isinstance(node, CatSplit):
                cat.append(True)
                threshold.append(cat_at[(t, i)])
                op.append(-1)
            else:
                assert isinstance(node, Split)
                cat.append(False)
                threshold.append(node.threshold if node.op in ("le", "lt") else 0)
                op.append(OP_CODES[node.op])
            pending.append((row_of[i], left, right))
    for r, left, right in pending:
        if left < R:
            assert left == r + 1  # the left child of a split comes next in pre-order
            kid.append(right)
        elif right < R:
            assert right == r + 1
            kid.append(left + P)
        else:
            q = pairs.setdefault((left - R, right - R), len(pairs))
            kid.append(R + 2 * P + q)
    ops = {o for o in op if o >= 0}
    op = [o if o >= 0 else (min(ops) if ops else 0) for o in op]
    kid_max = R + 2 * P + len(pairs) - 1
    return NodeTable(
        n_rows=R,
        n_payloads=P,
        feature=tuple(feature),
        threshold=tuple(threshold),
        op=tuple(op),
        nan_left=tuple(nan_left),
        categorical=tuple(cat),
        kid=tuple(kid),
        pairs=tuple(pairs),
        roots=tuple(roots),
        # Under --missing none only categorical and zero-band rows read the side.
        word=_word(ir.n_features, kid_max, ops, any(cat), not ir.lean or any(cat) or ir.has_zero),
    )


def walk(table: NodeTable, root: int, go_left: Sequence[bool]) -> int:
    """The payload the table reaches from ``root`` when each row's test answers
    ``go_left[row]``: the C's walk, for the tests of the layout itself."""
    R, P = table.n_rows, table.n_payloads
    e = root
    while e < R:
        k = table.kid[e]
        left = go_left[e]
        if k < R + P:
            e = e + 1 if left else k
        elif k < R + 2 * P:
            e = k - P if left else e + 1
        else:
            pair = table.pairs[k - R - 2 * P]
            e = R + (pair[0] if left else pair[1])
    return e - R
