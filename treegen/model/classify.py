"""Release 8's probabilistic classifier over a :class:`~treegen.model.core.Model` (section 6).

A case starts with weight 1 at the root.  A known value follows its
branch; an unknown value (NaN, or a nominal code outside ``0..k-1``)
visits every branch with weight ``w * child.items / node.items``.  A leaf
with ``items > 0`` adds ``w * dist / items``; an empty leaf adds ``w`` to
its class.  The predicted class is the first with the largest sum.

Rows are processed together: each stack entry is one node with the rows
(and their weights) that reach it, so the work is one numpy pass per node
visited, with no recursion over tree depth.

Continuous comparisons: a ``c45`` model compares ``float32(x) <= threshold``
because Release 8 stores values as C ``float`` (the thresholds are float32
values); a ``j48`` model compares in double, and answers as J48 where J48 differs
(:mod:`treegen.model.j48rule`: a value within 1e-6 above a threshold goes left, an
empty leaf gives its parent's class frequencies, an unknown value skips empty branches).

One model, one answer: :func:`predict` gives a row that meets a missing value the
class the exported C gives it, the first largest of its fixed-point probabilities
(:mod:`treegen.model.fixedpoint`: 31-bit sums rounded once to 1/32768, as the C
computes them on every target).  The float sums of :func:`predict_proba` can
order two nearly (or exactly) tied classes the other way; on rows without a missing
value the two are the same class (the reached leaf's first largest
``dist / items``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from treegen.model import j48rule, native
from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL
from treegen.model.core import ContinuousTest, Leaf, Model, SubsetTest, Test
from treegen.model.fixedpoint import (
    DOUBLE,
    SUM_TO_PROBA,
    W_SHIFT,
    FixedPointClassifier,
    answer_class,
    leaf_proba_pairs,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]


def predict_proba(model: Model, X: npt.ArrayLike) -> FloatArray:
    """Summed class weights per row (shape ``(n, n_classes)``, float64).

    Each row sums to 1 up to rounding: every leaf reached adds exactly the
    weight that arrived there, and an empty leaf adds it to one class.
    """
    return _proba(model, X)[0]


def _proba(
    model: Model, X: npt.ArrayLike
) -> tuple[FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.intp]]:
    """:func:`predict_proba`, per row whether it met a missing value, and per row the
    label of the empty j48 leaf it reached (-1 if none): that leaf's class, where its
    probabilities are its parent's (:mod:`treegen.model.j48rule`)."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(model.schema.attributes):
        raise ValueError(f"X must have shape (n, {len(model.schema.attributes)}), got {x.shape}")
    n = x.shape[0]
    n_classes = len(model.schema.classes)
    out = np.zeros((n, n_classes), dtype=np.float64)
    met = np.zeros(n, dtype=bool)
    label = np.full(n, -1, dtype=np.intp)
    if n == 0:
        return out, met, label
    f32 = model.compares_float32
    nodes = model.nodes
    parents = j48rule.empty_parents(model)
    stack: list[tuple[int, npt.NDArray[np.intp], FloatArray]] = [
        (0, np.arange(n, dtype=np.intp), np.ones(n, dtype=np.float64))
    ]
    while stack:
        i, rows, wt = stack.pop()
        node = nodes[i]
        if isinstance(node, Leaf):
            answer = j48rule.answering_node(model, i, parents)
            if i in parents:
                label[rows] = answer_class(model, i, parents)
            if answer.items > 0:
                dist = np.asarray(answer.dist, dtype=np.float64) / answer.items
                out[rows] += wt[:, None] * dist[None, :]
            else:
                out[rows, node.cls] += wt
            continue
        col = x[rows, node.attribute]
        branch = _branches(col, node, f32, model)
        unknown = branch < 0
        unk_rows = rows[unknown]
        unk_wt = wt[unknown]
        met[unk_rows] = True
        shared = j48rule.branch_items(model, i, parents)
        for b, child in enumerate(node.children):
            sel = branch == b
            r = rows[sel]
            w = wt[sel]
            if unk_rows.size and node.items > 0:
                share = shared[b] / node.items
                if share > 0:
                    r = np.concatenate((r, unk_rows))
                    w = np.concatenate((w, unk_wt * share))
            if r.size:
                stack.append((child, r, w))
    return out, met, label


def _branches(col: FloatArray, node: Test, f32: bool, model: Model) -> npt.NDArray[np.intp]:
    """Branch index per value (-1 = unknown) at one test node."""
    known = ~np.isnan(col)
    out = np.full(col.shape, -1, dtype=np.intp)
    if isinstance(node, ContinuousTest):
        v = col[known]
        if f32:
            # Beyond FLT_MAX a value is +-inf as a float (Release 8 stores values as
            # float); the readers refuse such values, so only callers with their own X
            # get here, and the overflow is the intended rule, not a warning.
            with np.errstate(over="ignore"):
                le = v.astype(np.float32) <= np.float32(node.threshold)
        else:
            le = v <= j48rule.test_cut(model, node.threshold)
        out[known] = np.where(le, 0, 1)
        return out
    k = len(model.schema.attributes[node.attribute].values)
    v = col[known]
    ok = (v >= 0) & (v < k) & (v == np.floor(v))
    idx = np.flatnonzero(known)[ok]
    codes = v[ok].astype(np.intp)
    if isinstance(node, SubsetTest):
        out[idx] = np.asarray(node.value_branches(k), dtype=np.intp)[codes]
    else:
        out[idx] = codes
    return out


def branches_of(model: Model, node: Test, col: FloatArray) -> npt.NDArray[np.intp]:
    """The branch each value of ``col`` takes at test ``node`` (-1: unknown), compared
    as ``model`` compares (float32 for a c45 model)."""
    return _branches(col, node, model.compares_float32, model)


def predict(model: Model, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Class index per row: the reached leaf's class for a row with no missing value
    (the first largest ``dist / items``), else the first class with the largest
    fixed-point sum, the class the exported C returns (module docstring).

    With the C accelerator the rows are classified in C (``model/native/classify.c``,
    the same classes as the numpy code below, which is the reference and the fallback).
    """
    x = np.asarray(X, dtype=np.float64)
    fast = _predict_native(model, x)
    return _predict_numpy(model, x) if fast is None else fast


def _predict_numpy(model: Model, x: FloatArray) -> npt.NDArray[np.intp]:
    """:func:`predict` without the C accelerator: the reference."""
    proba, met, label = _proba(model, x)
    best: npt.NDArray[np.intp] = np.argmax(proba, axis=1).astype(np.intp)
    best = np.where(label >= 0, label, best)
    if met.any():
        # The double encoding compares a value exactly as the model does
        # (bounds.model_bound), so only the missing-value arithmetic differs.
        fixed = FixedPointClassifier(model, DOUBLE)
        best[met] = fixed.predict(x[met])[0]
    return best


def classifier(model: Model) -> Callable[[npt.ArrayLike], npt.NDArray[np.intp]]:
    """:func:`predict` for many blocks of rows: the C accelerator's tables are made once
    (at 14,000 leaves they take longer than classifying a million rows), then each call
    classifies one block, as :func:`predict` would."""
    native_run = native_classifier(model)

    def classify(X: npt.ArrayLike) -> npt.NDArray[np.intp]:
        x = np.asarray(X, dtype=np.float64)
        fast = None if native_run is None else native_run(x)
        return _predict_numpy(model, x) if fast is None else fast

    return classify


def _predict_native(model: Model, x: FloatArray) -> npt.NDArray[np.intp] | None:
    """:func:`predict` by the C accelerator, or None where it does not apply (no
    accelerator, no rows, a shape :func:`_proba` refuses, tables it does not take)."""
    if x.ndim != 2 or x.shape[0] == 0:  # before the tables: they may take longer
        return None
    run = native_classifier(model)
    return None if run is None else run(x)


def native_classifier(
    model: Model, *, release8: bool = False
) -> Callable[[FloatArray], npt.NDArray[np.intp] | None] | None:
    """The C accelerator's classification of ``model``, its tables made: a function of
    the rows giving their classes, or None where the accelerator does not apply to
    these rows; None where it does not apply to the model.  ``release8`` (a c45
    model): the classes of :func:`treegen.model.classify_r8.predict_r8` instead, Release
    8's float sums for a row that meets an unknown value."""
    cscan = native.cclassify
    n_attr, n_classes = len(model.schema.attributes), len(model.schema.classes)
    if cscan is None or n_attr == 0 or n_classes == 0 or not model.nodes:
        return None
    assert model.compares_float32 or not release8, "Release 8's sums are a c45 model's"
    walk = _walk_tables(model)
    n, n_child = len(model.nodes), walk["child"].size
    if release8:
        # The fixed-point tables are not read; the C wants their lengths.
        bound, incl = np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.int8)
        share = np.zeros(n_child, dtype=np.uint32)
        leafcls, poff, pcls, sums = _release8_leaves(model)
        pval = np.zeros(pcls.size, dtype=np.uint32)
    else:
        bound, incl, share, leafcls, poff, pcls, pval = _fixed_point_tables(model, n_child)
        sums = ()
    tables = (
        *(walk[k] for k in ("kind", "attr", "thr32", "thr")),
        bound,
        incl,
        *(walk[k] for k in ("first", "nchild", "child")),
        share,
        *(walk[k] for k in ("boff", "bk", "btab")),
        leafcls,
        poff,
        pcls,
        pval,
    )
    flags = (n_attr, model.compares_float32, n_classes, W_SHIFT, SUM_TO_PROBA)

    def run(x: FloatArray) -> npt.NDArray[np.intp] | None:
        if x.ndim != 2 or x.shape[1] != n_attr or x.shape[0] == 0:
            return None
        out = np.empty(x.shape[0], dtype=np.int64)
        if not cscan.classify(np.ascontiguousarray(x), *flags, *tables, out, *sums):
            return None
        return out.astype(np.intp, copy=False)

    return run


def _walk_tables(model: Model) -> dict[str, npt.NDArray[np.generic]]:
    """The tree's shape and tests as both passes of the C read them: each node's kind,
    attribute, float32 and float64 threshold, its children's slots (first, nchild,
    child), and a nominal or subset test's branch table (boff, bk, btab)."""
    nodes = model.nodes
    cuts = j48rule.test_cuts(model)
    n = len(nodes)
    kind = np.zeros(n, dtype=np.int32)
    attr = np.zeros(n, dtype=np.int32)
    thr = np.zeros(n, dtype=np.float64)
    first = np.zeros(n, dtype=np.int64)
    nchild = np.zeros(n, dtype=np.int32)
    boff = np.zeros(n, dtype=np.int64)
    bk = np.zeros(n, dtype=np.int32)
    child: list[int] = []
    btab: list[int] = []
    for i, node in enumerate(nodes):
        if isinstance(node, Leaf):
            kind[i] = KIND_LEAF
            continue
        attr[i] = node.attribute
        first[i] = len(child)
        nchild[i] = len(node.children)
        child.extend(node.children)
        if isinstance(node, ContinuousTest):
            kind[i] = KIND_CONTINUOUS
            thr[i] = cuts[i]
        else:
            kind[i] = KIND_NOMINAL  # nominal and subset tests alike: by the branch table
            k = len(model.schema.attributes[node.attribute].values)
            boff[i], bk[i] = len(btab), k
            btab.extend(node.value_branches(k))
    # The float32 thresholds of a c45 model's float comparison, as _branches makes
    # them (beyond float32's range a threshold is +-inf, as in numpy).
    with np.errstate(over="ignore"):
        thr32 = thr.astype(np.float32)
    return {
        "kind": kind,
        "attr": attr,
        "thr32": thr32,
        "thr": thr,
        "first": first,
        "nchild": nchild,
        "child": np.asarray(child, dtype=np.int32),
        "boff": boff,
        "bk": bk,
        "btab": np.asarray(btab, dtype=np.int32),
    }


def _fixed_point_tables(
    model: Model, n_child: int
) -> tuple[
    FloatArray,
    npt.NDArray[np.int8],
    npt.NDArray[np.uint32],
    IntArray,
    npt.NDArray[np.int64],
    IntArray,
    npt.NDArray[np.uint32],
]:
    """The fixed-point pass's tables: each continuous test's exact boundary and
    whether it is inclusive, each child slot's Q31 share, each leaf's class, and
    the leaves' probabilities as their classes of nonzero probability (poff: each
    node's start in pcls and pval), not a nodes x classes table."""
    fixed = FixedPointClassifier(model, DOUBLE)
    parents = j48rule.empty_parents(model)
    n = len(model.nodes)
    bound = np.zeros(n, dtype=np.float64)
    incl = np.zeros(n, dtype=np.int8)
    leafcls = np.zeros(n, dtype=np.int32)
    poff = np.zeros(n + 1, dtype=np.int64)
    share: list[int] = []
    pcls: list[int] = []
    pval: list[int] = []
    for i, node in enumerate(model.nodes):
        if isinstance(node, Leaf):
            leafcls[i] = fixed.cls[i]
            at, probs = leaf_proba_pairs(j48rule.answering_node(model, i, parents))
            pcls.extend(at)
            pval.extend(probs)
        else:
            share.extend(fixed.shares[i])
            if isinstance(node, ContinuousTest):
                fb = fixed.fbound[i]
                if fb is None:
                    # An infinite threshold sends every known value left (+inf) or right
                    # (-inf), FixedPointClassifier._goes_left: "x <= +inf", "x < -inf".
                    bound[i], incl[i] = node.threshold, node.threshold > 0
                else:
                    bound[i], incl[i] = fb[0], fb[1]
        poff[i + 1] = len(pcls)
    assert len(share) == n_child, "a share for every child slot"
    return (
        bound,
        incl,
        np.asarray(share, dtype=np.uint32),
        leafcls,
        poff,
        np.asarray(pcls, dtype=np.int32),
        # The kernel shifts a leaf's product by the weights' W_SHIFT: the Q15
        # probabilities scaled to Q31 make that the fixed-point (w * p) >> 15.
        np.asarray(pval, dtype=np.uint32) << np.uint32(SUM_TO_PROBA),
    )


def _release8_leaves(
    model: Model,
) -> tuple[IntArray, npt.NDArray[np.int64], IntArray, tuple[npt.NDArray[np.generic], ...]]:
    """Release 8's leaves as the float pass reads them: each leaf's own class (an
    empty leaf adds to it; the C works out the class its sums give), each class of
    nonzero weight (poff, pcls), and the sums' inputs (every node's items above
    zero, its items as a float, each listed class's weight as a float)."""
    n = len(model.nodes)
    leafcls = np.zeros(n, dtype=np.int32)
    poff = np.zeros(n + 1, dtype=np.int64)
    nonempty = np.zeros(n, dtype=np.int8)
    items32 = np.zeros(n, dtype=np.float32)
    pcls: list[int] = []
    dist32: list[float] = []
    for i, node in enumerate(model.nodes):
        items32[i] = node.items
        if isinstance(node, Leaf):
            leafcls[i] = node.cls
            nonempty[i] = node.items > 0
            weighed = [c for c, d in enumerate(node.dist) if d] if node.items > 0 else []
            pcls.extend(weighed)
            dist32.extend(node.dist[c] for c in weighed)
        poff[i + 1] = len(pcls)
    sums = (nonempty, items32, np.asarray(dist32, dtype=np.float32))
    return leafcls, poff, np.asarray(pcls, dtype=np.int32), sums
