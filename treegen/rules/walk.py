"""The inputs of the C walk over the unpruned tree's paths (``native/rwalk.c``), for
:func:`treegen.rules.paths.candidates`.

The Python loop over the leaves (a generator's paths, each tree edge's satisfied cases
looked up or packed, a fold call a tree edge and three kernel calls a leaf) was about
half of the generalisation's CPU at 100k rows, most of it the interpreter's.  The walk
does that loop in C, one call a leaf that gives a rule; it reads what every edge's
satisfied cases are made of, worked out here once: each nominal attribute's value sets
and each continuous attribute's float32 column and known cases (packed, in the cases'
order of :func:`treegen.rules.roworder.leaf_order`), each class's cases of other
classes, and per tree edge the integer its test has in Release 8's ``SameRule`` keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL, KIND_SUBSET
from treegen.rules.core import CaseColumns
from treegen.rules.native import crules
from treegen.rules.shape import TreeShape
from treegen.trainer.stats import ErrorBound

# Release 8's test kinds by node kind, in the order its condition sort ranks them (a
# PathTest's rank, treegen.rules.pathtests).
RANK = {KIND_NOMINAL: 1, KIND_CONTINUOUS: 2, KIND_SUBSET: 3}

# The ints of PruneRule's states the walk keeps to stop a leaf that meets one (its rule
# is then an earlier one again: rwalk.h), emptied past this: 1 MB of keys. A leaf meets
# its neighbours' states, so at 1M rows this meets 99.6% of what 2^22 ints do.
STATE_INTS = 1 << 18


def pack(flags: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    """``flags`` as ceil(n / 64) little-endian-bit words (case i at bit i)."""
    words = (flags.size + 63) // 64
    raw = np.zeros(words * 8, dtype=np.uint8)
    raw[: (flags.size + 7) // 8] = np.packbits(flags, bitorder="little")
    return raw.view("<u8").astype(np.uint64, copy=False)


@dataclass
class Walk:
    """A walk over ``shape``'s paths (``capsule``, for ``crules.walk_next``) and the
    buffers it writes a rule's conditions into: ``edges[:count]`` their tree edges
    (indices into ``shape.kids``) in Release 8's order; ``owner[e]``: edge e's node."""

    capsule: Any
    edges: npt.NDArray[np.int64]
    owner: npt.NDArray[np.int32]


def start(
    ds: Dataset,
    shape: TreeShape,
    order: npt.NDArray[np.int32] | None,
    bound: ErrorBound,
    default_errors: list[float],
    min_items: float,
) -> Walk:
    """The walk over ``shape``'s leaves of at least ``min_items`` cases, on ``ds``'s cases
    in ``order`` (None: the file's; ``default_errors``: each class's default error
    rate)."""
    assert crules is not None
    kind = shape.array("kind").astype(np.int8, copy=False)
    attr = shape.array("attribute").astype(np.int32, copy=False)
    thr = shape.array("threshold").astype(np.float64)
    kid_at = shape.array("kid_at").astype(np.int32, copy=False)
    kids = shape.array("kids").astype(np.int32, copy=False)
    m = kind.size
    leaf = kind == KIND_LEAF
    ok = (~leaf | (shape.array("items") >= min_items)).astype(np.uint8)
    n_kids = np.diff(kid_at)
    owner = np.repeat(np.arange(m, dtype=np.int32), n_kids)
    ekey = _edge_keys(kind, attr, thr, kid_at, owner)
    xkey = _exact_keys(ekey, kid_at, owner)
    sub_tab, sub_at, sub_n = _subset_tables(shape, m)
    n = ds.n_rows
    cols = CaseColumns(ds.X, order=order)
    eq, eq_at = _value_sets(cols, ds, shape)
    # (sorted(set()), not np.unique: that imports numpy.ma, 0.02 s of a run)
    cont = sorted(set(attr[kind == KIND_CONTINUOUS].tolist()))
    col_at = np.full(max(len(ds.attributes), 1), -1, dtype=np.int32)
    columns = []
    known = np.zeros((len(cont), (n + 63) // 64), dtype=np.uint64)
    for j, a in enumerate(cont):
        col = cols.column(a, True)  # float32, as a c45 tree compares
        col_at[a] = j
        columns.append(col)
        known[j] = pack(~np.isnan(col))
    y = ds.y if order is None else ds.y[order]
    classes = sorted(set(shape.array("cls")[leaf].tolist()))
    wrong_at = np.zeros(max(len(ds.classes), 1), dtype=np.int32)
    wrong = np.zeros((max(len(classes), 1), (n + 63) // 64), dtype=np.uint64)
    for j, c in enumerate(classes):
        wrong_at[c] = j
        wrong[j] = pack(y != c)
    depth = _depth(kid_at, kids, m)
    cap = (depth + 1) * max(int(n_kids.max(initial=0)), 1) + 1
    edges = np.zeros(max(depth, 1), dtype=np.int64)
    capsule = crules.walk_new(
        kind,
        attr,
        thr,
        kid_at,
        kids,
        ok,
        shape.array("cls").astype(np.int32, copy=False),
        ekey,
        xkey,
        sub_tab,
        sub_at,
        sub_n,
        eq,
        eq_at,
        tuple(columns),
        col_at,
        known,
        wrong,
        wrong_at,
        np.asarray(default_errors, dtype=np.float64),
        np.zeros(max(depth, 1), dtype=np.int64),
        edges,
        n,
        max(depth, 1),
        cap,
        bound.log_cf,
        bound.coeff,
        STATE_INTS,
    )
    return Walk(capsule, edges, owner)


def _edge_keys(
    kind: npt.NDArray[np.int8],
    attr: npt.NDArray[np.int32],
    thr: npt.NDArray[np.float64],
    kid_at: npt.NDArray[np.int32],
    owner: npt.NDArray[np.int32],
) -> npt.NDArray[np.int32]:
    """Per tree edge, a number equal for two edges exactly when Release 8's ``SameRule``
    takes their tests for the same: the kind, the attribute, and the value (nominal),
    the cut (threshold: not the side; 0.0 and -0.0 one cut) or the node (subset)."""
    if owner.size == 0:
        return np.zeros(0, dtype=np.int32)
    k = kind[owner]
    branch = np.arange(owner.size) - kid_at[owner]
    value = np.where(
        k == KIND_CONTINUOUS,
        thr[owner] + 0.0,  # -0.0 + 0.0 is 0.0
        np.where(k == KIND_NOMINAL, branch, owner),
    ).astype(np.float64)
    rank = np.zeros(owner.size, dtype=np.float64)
    for kind_code, r in RANK.items():
        rank[k == kind_code] = r
    return _numbered(rank, attr[owner], value)


def _exact_keys(
    ekey: npt.NDArray[np.int32], kid_at: npt.NDArray[np.int32], owner: npt.NDArray[np.int32]
) -> npt.NDArray[np.int32]:
    """Per tree edge, a number equal for two edges exactly when their conditions hold for
    the same cases: the SameRule key (:func:`_edge_keys`) and the branch, which tells a
    threshold's sides and a subset test's branches apart (a nominal test's key has it)."""
    if owner.size == 0:
        return np.zeros(0, dtype=np.int32)
    return _numbered(ekey, np.arange(owner.size) - kid_at[owner])


def _numbered(*keys: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """A number per item, equal for two items exactly when every one of ``keys`` is (the
    numbers in the keys' lexicographic order, the first key first)."""
    by = np.lexsort(keys[::-1])  # lexsort sorts by its last key first
    # equal items are neighbours in that order: a new number at each change
    step = np.zeros(by.size, dtype=bool)
    step[:1] = True
    for key in keys:
        step[1:] |= np.diff(key[by]) != 0
    out = np.empty(by.size, dtype=np.int32)
    out[by] = np.cumsum(step) - 1
    return out


def _subset_tables(
    shape: TreeShape, m: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """Each subset test's value -> branch table (-1: no branch), one after another: the
    table of node i at ``at[i]``, ``count[i]`` values."""
    table: list[int] = []
    at = np.zeros(m, dtype=np.int64)
    count = np.zeros(m, dtype=np.int32)
    for i, groups in shape.subsets.items():
        of_value = [-1] * (1 + max((v for sub in groups for v in sub), default=-1))
        for b, values in enumerate(groups):
            for v in values:
                of_value[v] = b
        at[i], count[i] = len(table), len(of_value)
        table.extend(of_value)
    return np.asarray(table or [-1], dtype=np.int32), at, count


def _value_sets(
    cols: CaseColumns, ds: Dataset, shape: TreeShape
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int32]]:
    """Each value's cases of every attribute a nominal or subset test reads, packed: the
    rows of attribute a from ``at[a]``, one a value up to the most its tests read (an
    unknown value, NaN, is none of them).  Each column is read out and let go: packed,
    a value's set is a bit a case."""
    width = np.zeros(max(len(ds.attributes), 1), dtype=np.int64)
    attr = shape.array("attribute")
    n_kids = np.diff(shape.array("kid_at"))
    nominal = shape.array("kind") == KIND_NOMINAL
    for a, k in zip(attr[nominal].tolist(), n_kids[nominal].tolist(), strict=True):
        width[a] = max(width[a], k, len(ds.attributes[a].values))
    for i, groups in shape.subsets.items():
        a = int(attr[i])
        top = max((v for sub in groups for v in sub), default=-1)
        width[a] = max(width[a], top + 1, len(ds.attributes[a].values))
    at = np.zeros(width.size, dtype=np.int32)
    at[1:] = np.cumsum(width[:-1])
    words = (ds.n_rows + 63) // 64
    eq = np.zeros((max(int(width.sum()), 1), words), dtype=np.uint64)
    for a in np.flatnonzero(width).tolist():
        col = cols.X[cols.order, a] if cols.order is not None else cols.X[:, a]
        for v in range(int(width[a])):
            eq[at[a] + v] = pack(np.equal(col, v))
    return eq, at


def _depth(kid_at: npt.NDArray[np.int32], kids: npt.NDArray[np.int32], m: int) -> int:
    """The most tree edges from the root to a node."""
    frontier = np.zeros(1, dtype=np.int64)
    depth = 0
    while True:
        counts = (kid_at[frontier + 1] - kid_at[frontier]).astype(np.int64)
        total = int(counts.sum())
        if total == 0:
            return depth
        starts = np.repeat(kid_at[frontier].astype(np.int64) - np.cumsum(counts) + counts, counts)
        frontier = kids[starts + np.arange(total)].astype(np.int64)
        depth += 1
        assert depth <= m, "a cycle in the tree's children"
