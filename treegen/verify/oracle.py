"""The numpy oracle: evaluate an IR on rows of C input values, as the C does.

Rows are given in the C input domain (float32 for ``float``, float64 for ``double``,
integers for the integer types).  Nodes are visited in pre-order (parents before
children), carrying per row the fixed-point weight and whether the node is reached on
the known-value path; arrays live only until their node is processed, so memory is
O(depth x rows) for any tree size.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.codegen.ir import IR, Compare, Encoding, Leaf, Member, Switch
from treegen.codegen.keys import float_keys
from treegen.codegen.options import MissingRule
from treegen.model.fixedpoint import Q15_SHIFT, SUM_TO_PROBA, W_ONE, W_SHIFT

U64 = npt.NDArray[np.uint64]
Bool = npt.NDArray[np.bool_]
# uint64 shift counts keep the weights uint64 (a Q31 weight times a Q31 share fits).
_LEAF = np.uint64(Q15_SHIFT)
_SHARE = np.uint64(W_SHIFT)
_PROBA = np.uint64(SUM_TO_PROBA)


def missing_mask(col: npt.NDArray[np.generic], enc: Encoding) -> Bool:
    if enc.is_int:
        return np.asarray(col.astype(np.int64) == enc.missing)
    return np.asarray(np.isnan(col))


def codes(col: npt.NDArray[np.generic], k: int, enc: Encoding) -> npt.NDArray[np.int64]:
    """Nominal codes 0..k-1, -1 for missing / non-integral / out of range."""
    if enc.is_int:
        v = col.astype(np.int64)
        ok = (v >= 0) & (v < k) & (v != enc.missing)
        return np.where(ok, v, -1)
    f = col.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (f >= 0) & (f < k) & (f == np.floor(f))
        return np.where(ok, np.nan_to_num(f), -1).astype(np.int64)


def none_keys(x: npt.NDArray[np.float32]) -> npt.NDArray[np.uint64]:
    """Order keys as the ``--missing none`` C computes them: NaN above every threshold."""
    return np.where(np.isnan(x), 0xFFFFFFFF, float_keys(x)).astype(np.uint64)


def chain_branch(
    node: Switch, col: npt.NDArray[np.generic], enc: Encoding
) -> npt.NDArray[np.int64]:
    """The none rule's branch of a nominal test (treegen.codegen.lean): the branch of
    the smallest code c with x <= c, else of code k-1; a code in no subset takes 0."""
    code = none_code(len(node.branch_of), col, enc)
    return np.maximum(np.asarray(node.branch_of, dtype=np.int64)[code], 0)


def none_code(k: int, col: npt.NDArray[np.generic], enc: Encoding) -> npt.NDArray[np.int64]:
    """The none rule's code of each value: the smallest c with x <= c, else k-1."""
    code = np.full(col.shape, k - 1, dtype=np.int64)
    limits: npt.NDArray[np.generic]
    if enc.uses_keys:
        v: npt.NDArray[np.generic] = none_keys(col.astype(np.float32))
        limits = float_keys(np.arange(k, dtype=np.float32))
    elif enc.is_int:
        v, limits = col.astype(np.int64), np.arange(k, dtype=np.int64)
    else:
        v, limits = col, np.arange(k).astype(col.dtype)
    with np.errstate(invalid="ignore"):
        for c in range(k - 2, -1, -1):
            code = np.where(v <= limits[c], c, code)
    return code


def goes_left(
    node: Compare, col: npt.NDArray[np.generic], enc: Encoding, rule: MissingRule = "c45"
) -> Bool:
    if node.op == "left":
        return np.ones(col.shape, dtype=bool)
    if node.op == "right":
        return np.zeros(col.shape, dtype=bool)
    if enc.uses_keys:
        keys = none_keys if rule == "none" else float_keys
        v: npt.NDArray[np.generic] = keys(col.astype(np.float32))
        t: object = np.uint64(node.threshold)
    elif enc.is_int:
        v, t = col.astype(np.int64), int(node.threshold)
    else:
        v, t = col, col.dtype.type(node.threshold)
    with np.errstate(invalid="ignore"):
        return np.asarray(v <= t if node.op == "le" else v < t)  # type: ignore[operator]


def evaluate(
    ir: IR,
    X: npt.ArrayLike,
    rule: MissingRule | None = None,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
    """Predicted classes and fixed-point probabilities (Q15) for every row, under
    ``rule`` (default: the IR's own).  Under ``none`` no value is missing: each row
    reaches one leaf by the none rule (treegen.codegen.lean) and gets its distribution."""
    cls, acc, _ = _walk(ir, X, rule or ir.missing)
    return cls, acc


def meets_missing(ir: IR, X: npt.ArrayLike) -> Bool:
    """Rows whose C4.5 walk meets a test on a missing value (a missing continuous value,
    or a nominal value that is no code or in no subset of the test)."""
    return _walk(ir, X, "c45")[2]


def _walk(
    ir: IR,
    X: npt.ArrayLike,
    rule: MissingRule,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16], Bool]:
    rows = np.asarray(X)
    n = rows.shape[0]
    enc = ir.encoding
    acc = np.zeros((n, ir.n_classes), dtype=np.uint64)
    met = np.zeros(n, dtype=bool)
    known_cls = np.zeros(n, dtype=np.int32)
    pending: dict[int, tuple[U64, Bool]] = {
        0: (np.full(n, W_ONE, dtype=np.uint64), np.ones(n, dtype=bool))
    }
    for i, node in enumerate(ir.nodes):
        w, reached = pending.pop(i)
        if isinstance(node, Leaf):
            out = ir.outcomes[node.outcome]
            acc += (w[:, None] * np.asarray(out.proba, dtype=np.uint64)[None, :]) >> _LEAF
            known_cls[reached] = out.cls
            continue
        col = rows[:, node.feature]
        if isinstance(node, Member):  # a lean IR's member test (none rule only)
            branch = np.where(np.isin(none_code(node.n_codes, col, enc), node.codes), 0, 1)
            miss = np.zeros(n, dtype=bool)
        elif rule == "none":
            left = goes_left(node, col, enc, rule) if isinstance(node, Compare) else None
            branch = np.where(left, 0, 1) if left is not None else chain_branch(node, col, enc)  # type: ignore[arg-type]
            miss = np.zeros(n, dtype=bool)
        elif isinstance(node, Compare):
            miss = missing_mask(col, enc)
            left = goes_left(node, col, enc)
            branch = np.where(miss, -1, np.where(left, 0, 1))
        else:
            assert isinstance(node, Switch)
            k = len(node.branch_of)
            c = codes(col, k, enc)
            bmap = np.asarray((*node.branch_of, -1), dtype=np.int64)
            branch = bmap[np.where(c >= 0, c, k)]
            miss = branch < 0
        met |= reached & miss
        for b, (child, share) in enumerate(zip(node.children, node.shares, strict=True)):
            take = branch == b
            wb = np.where(miss, (w * np.uint64(share)) >> _SHARE, np.where(take, w, 0))
            pending[child] = (wb.astype(np.uint64), reached & (take | miss))
    assert not pending
    assert int(acc.max(initial=0)) <= W_ONE
    proba = (acc >> _PROBA).astype(np.uint16)
    cls = np.where(met, np.argmax(proba, axis=1), known_cls).astype(np.int32)
    return cls, proba, met
