"""A J48 tree's answers as Weka computes them, in double: what boosting and the Weka
comparison need.

Weka's ``ClassifierTree.getProbs(c, x, weight)`` for one class ``c``: at a leaf,
``weight * perClass[c] / total`` (0 when the total is 0 within 1e-6); at a test with
the value known, the branch's subtree, or for a branch that was empty when the tree
was built, ``weight`` times the test's own class frequencies; at a test with the value
missing, ``0 + getProbs(branch 0, share_0 * weight) + getProbs(branch 1, ...) + ...``
over the non-empty branches, ``share_b = perBag(b) / total``.  Every operation here is
that one on the same doubles in the same order (a treegen j48 node's ``items`` and
``dist`` are J48's ``total`` and ``perClass``), so the probabilities are Weka's bit
for bit, up to the order of the training sums that made them.

* :func:`distribution` is ``J48.distributionForInstance``;
* :func:`classify` is ``J48.classifyInstance``: the first class whose probability
  beats the best so far by more than 1e-6 (``Utils.gr``), starting from -1;
* :func:`evaluation_class` is the class ``Evaluation`` counts: the first largest
  probability (``Utils.maxIndex``), or -1 (unclassified) when it is not positive.

treegen's own classifier (:mod:`treegen.model.classify`, and the exported C) answers a
j48 tree by the same rules (:mod:`treegen.model.j48rule`) in its own arithmetic: 15-bit
fixed point where a value is missing, so the two differ only on near ties there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.model import native as model_native
from treegen.model.core import ContinuousTest, Leaf, Model, Node, Test

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

WEKA_TOL = 1e-6
"""Weka's ``Utils.SMALL``: the tolerance of ``Utils.eq``, ``gr`` and ``sm``."""


def _is_empty(node: Node) -> bool:
    """Whether a node is a branch J48 built empty (``m_isEmpty``: no weight reached it)."""
    return isinstance(node, Leaf) and abs(node.items) < WEKA_TOL


def _prob(node: Node) -> FloatArray:
    """``Distribution.prob(c)`` for every class: ``perClass[c] / total``, 0 when the
    total is 0 (within 1e-6)."""
    dist = np.asarray(node.dist, dtype=np.float64)
    if abs(node.items) < WEKA_TOL:
        return np.zeros(dist.size)
    out: FloatArray = dist / node.items
    return out


def branch_share(nodes: tuple[Node, ...], node: Node, b: int) -> float:
    """``perBag(b) / total`` of test ``node``: its ``per_bag`` where the model keeps J48's
    (a tree trained in Weka's order), else branch ``b``'s own ``items``."""
    weight = (
        node.per_bag[b]
        if not isinstance(node, Leaf) and node.per_bag
        else nodes[node.children[b]].items
    )
    return weight / node.items


def _branches(model: Model, node: Test, col: FloatArray) -> IntArray:
    """``whichSubset`` per value: the branch, or -1 for a missing value (or a nominal
    code the test does not know)."""
    out = np.full(col.shape, -1, dtype=np.intp)
    known = ~np.isnan(col)
    if isinstance(node, ContinuousTest):
        # Utils.smOrEq(value, splitPoint): within 1e-6 above the threshold goes left.
        out[known] = np.where(col[known] - node.threshold < WEKA_TOL, 0, 1)
        return out
    k = len(model.schema.attributes[node.attribute].values)
    v = col[known]
    ok = (v >= 0) & (v < k) & (v == np.floor(v))
    idx = np.flatnonzero(known)[ok]
    out[idx] = np.asarray(node.value_branches(k), dtype=np.intp)[v[ok].astype(np.intp)]
    return out


@dataclass(frozen=True, slots=True)
class Table:
    """A J48 tree as arrays, for :func:`table_distribution`: per node whether it is a leaf,
    an empty branch (:func:`_is_empty`), a continuous test, its attribute, threshold,
    children (``start``, ``count`` into ``children``), its share of its parent's
    weight (``items / parent items``), ``Distribution.prob`` (:func:`_prob`) and, for a
    nominal or subset test, its value map (``vmap[moff + v]``, ``mk`` values).

    :func:`table` makes it from a model; a test may make it from Weka's own numbers
    (``share`` being ``perBag(b) / total`` there), to hold the arithmetic alone to
    Weka's (tests/committee/test_weka_getprobs_live.py)."""

    leaf: npt.NDArray[np.bool_]
    empty: npt.NDArray[np.bool_]
    cont: npt.NDArray[np.bool_]
    attr: IntArray
    thr: FloatArray
    start: IntArray
    count: IntArray
    children: IntArray
    share: FloatArray
    prob: FloatArray
    moff: IntArray
    mk: IntArray
    vmap: IntArray


def table(model: Model) -> Table:
    """``model`` as a :class:`Table` (its own ``items`` and ``dist``)."""
    nodes = model.nodes
    n = len(nodes)
    attrs = model.schema.attributes
    start = np.zeros(n, dtype=np.intp)
    count = np.zeros(n, dtype=np.intp)
    share = np.zeros(n)
    moff = np.zeros(n, dtype=np.intp)
    mk = np.zeros(n, dtype=np.intp)
    attr = np.zeros(n, dtype=np.intp)
    thr = np.full(n, np.nan)
    children: list[int] = []
    vmap: list[int] = []
    for i, node in enumerate(nodes):
        start[i], count[i] = len(children), len(node.children)
        children += node.children
        for b, c in enumerate(node.children):
            share[c] = branch_share(nodes, node, b)
        if isinstance(node, Leaf):
            continue
        attr[i] = node.attribute
        if isinstance(node, ContinuousTest):
            thr[i] = node.threshold
        else:
            k = len(attrs[node.attribute].values)
            moff[i], mk[i] = len(vmap), k
            vmap += node.value_branches(k)
    items = np.array([nd.items for nd in nodes], dtype=np.float64)
    dist = np.array([nd.dist for nd in nodes], dtype=np.float64).reshape(n, -1)
    weighed = np.abs(items) >= WEKA_TOL  # _prob and _is_empty, for all nodes at once
    prob = np.zeros(dist.shape)
    prob[weighed] = dist[weighed] / items[weighed, None]
    leaf = np.array([isinstance(nd, Leaf) for nd in nodes])
    return Table(
        leaf=leaf,
        empty=leaf & ~weighed,
        cont=np.array([isinstance(nd, ContinuousTest) for nd in nodes]),
        attr=attr,
        thr=thr,
        start=start,
        count=count,
        children=np.array(children or [0], dtype=np.intp),
        share=share,
        prob=prob,
        moff=moff,
        mk=mk,
        vmap=np.array(vmap or [-1], dtype=np.intp),
    )


def _flat_branches(t: Table, node: IntArray, v: FloatArray) -> IntArray:
    """:func:`_branches` for arrivals at the test ``node[j]`` with value ``v[j]``."""
    out = np.full(node.shape, -1, dtype=np.intp)
    known = ~np.isnan(v)
    cont = known & t.cont[node]
    out[cont] = np.where(v[cont] - t.thr[node[cont]] < WEKA_TOL, 0, 1)
    nom = np.flatnonzero(known & ~t.cont[node])
    vn, kn = v[nom], t.mk[node[nom]]
    ok = (vn >= 0) & (vn < kn) & (vn == np.floor(vn))
    idx = nom[ok]
    out[idx] = t.vmap[t.moff[node[idx]] + vn[ok].astype(np.intp)]
    return out


@dataclass(slots=True, eq=False)
class _Level:
    """The arrivals at one depth: node, row, weight, the parent's arrival (an index
    into the level above), the parent's branch, whether it came by a known value;
    ``empty_hit``: the arrivals whose known value leads to an empty branch."""

    node: IntArray
    row: IntArray
    w: FloatArray
    parent: IntArray
    branch: IntArray
    known: npt.NDArray[np.bool_]
    empty_hit: IntArray


def distribution(model: Model, X: npt.ArrayLike) -> FloatArray:
    """``distributionForInstance`` of every row of ``X`` (module docstring).

    :func:`reference_distribution`'s arithmetic, a depth at a time for every row at
    once.  A row whose values are known all the way down carries weight 1.0 and its
    answer is its leaf's ``prob`` (times 1.0, exactly).  At its first missing value a
    row becomes a *root* arrival; from there, first, top down, every arrival at a node
    (a row, the weight it carries there, the parent's arrival it came from, and whether
    it came by its known branch or by a missing value's share); then, bottom up, each
    arrival's class probabilities, a parent's missing arrival adding its children's
    results to 0 in branch order from 0, as ``getProbs`` does.  Same operations on the
    same doubles in the same order: the same bits (tested against the recursion)."""
    return table_distribution(table(model), X)


def table_distribution(t: Table, X: npt.ArrayLike) -> FloatArray:
    """:func:`distribution` of the tree ``t`` describes (:class:`Table`): the C
    accelerator's getProbs row by row where it is built, else the numpy code below."""
    x = np.asarray(X, dtype=np.float64)
    n_classes = t.prob.shape[1]
    n = x.shape[0]
    out = np.zeros((n, n_classes))
    if _native_distribution(t, x, out):
        return out
    pure_node = np.zeros(n, dtype=np.intp)  # rows with every value so far known
    pure_row = np.arange(n, dtype=np.intp)
    none = np.zeros(0, dtype=np.intp)
    level = _Level(none, none, np.zeros(0), none, none, np.zeros(0, dtype=bool), none)
    levels: list[_Level] = []
    while pure_node.size or level.node.size:
        leafy = t.leaf[pure_node]
        out[pure_row[leafy]] = 1.0 * t.prob[pure_node[leafy]]
        pure_node, pure_row = pure_node[~leafy], pure_row[~leafy]
        br = _flat_branches(t, pure_node, x[pure_row, t.attr[pure_node]])
        kc = t.children[t.start[pure_node] + np.maximum(br, 0)]
        hit = (br >= 0) & t.empty[kc]
        out[pure_row[hit]] = 1.0 * t.prob[pure_node[hit]]
        roots = br < 0  # a missing value: the row's root arrival, at weight 1.0
        level = _Level(
            np.concatenate([level.node, pure_node[roots]]),
            np.concatenate([level.row, pure_row[roots]]),
            np.concatenate([level.w, np.ones(np.count_nonzero(roots))]),
            np.concatenate([level.parent, np.full(np.count_nonzero(roots), -1, dtype=np.intp)]),
            np.concatenate([level.branch, np.zeros(np.count_nonzero(roots), dtype=np.intp)]),
            np.concatenate([level.known, np.ones(np.count_nonzero(roots), dtype=bool)]),
            none,
        )
        go = (br >= 0) & ~hit
        pure_node, pure_row = kc[go], pure_row[go]
        levels.append(level)
        level = _next_level(t, x, level)
    below: FloatArray | None = None
    for depth in range(len(levels) - 1, -1, -1):
        lv = levels[depth]
        res = np.zeros((lv.node.size, n_classes))
        at = np.flatnonzero(t.leaf[lv.node])
        res[at] = lv.w[at, None] * t.prob[lv.node[at]]
        at = lv.empty_hit
        res[at] = lv.w[at, None] * t.prob[lv.node[at]]
        if below is not None:
            ch = levels[depth + 1]
            came = ch.known & (ch.parent >= 0)  # not the rows' root arrivals
            res[ch.parent[came]] = below[came]
            miss = np.flatnonzero(~ch.known)
            # Each parent arrival has at most one child arrival per branch: adding a
            # branch at a time, in branch order, is getProbs's order of the sums.
            for b in np.unique(ch.branch[miss]):
                sel = miss[ch.branch[miss] == b]
                res[ch.parent[sel]] = res[ch.parent[sel]] + below[sel]
        roots = lv.parent < 0
        out[lv.row[roots]] = res[roots]
        below = res
    return out


def _native_distribution(t: Table, x: FloatArray, out: FloatArray) -> bool:
    """:func:`distribution` by the C accelerator (model/native/wekaprobs.c: getProbs
    row by row, the same operations in the same order) into ``out``; False when it
    is not built or the tables do not qualify (the numpy code runs instead)."""
    lib = model_native.cclassify
    if lib is None or x.ndim != 2 or x.shape[1] == 0 or x.shape[0] == 0:
        return False
    i64 = np.int64
    done: bool = lib.j48_distribution(
        np.ascontiguousarray(x),
        x.shape[1],
        out.shape[1],
        WEKA_TOL,
        t.leaf.astype(np.uint8),
        t.empty.astype(np.uint8),
        t.cont.astype(np.uint8),
        t.attr.astype(i64),
        np.ascontiguousarray(t.thr),
        t.start.astype(i64),
        t.count.astype(i64),
        t.children.astype(i64),
        np.ascontiguousarray(t.share),
        np.ascontiguousarray(t.prob.reshape(t.leaf.size, out.shape[1])),
        t.moff.astype(i64),
        t.mk.astype(i64),
        t.vmap.astype(i64),
        out,
    )
    return done


def _next_level(t: Table, x: FloatArray, level: _Level) -> _Level:
    """The arrivals one depth below ``level``'s (:func:`distribution`); sets
    ``level.empty_hit``."""
    idx = np.flatnonzero(~t.leaf[level.node])
    node = level.node[idx]
    br = _flat_branches(t, node, x[level.row[idx], t.attr[node]])
    # A known value: the branch's child, or (an empty branch) the test's own
    # class frequencies.
    has = br >= 0
    kn, kb = idx[has], br[has]
    kc = t.children[t.start[level.node[kn]] + kb]
    hit = t.empty[kc]
    level.empty_hit = kn[hit]
    go, gb, gc = kn[~hit], kb[~hit], kc[~hit]
    # A missing value: every non-empty branch, with its share of the weight.
    ms = idx[~has]
    reps = t.count[level.node[ms]]
    mr = np.repeat(ms, reps)
    mb = np.arange(mr.size, dtype=np.intp) - np.repeat(np.cumsum(reps) - reps, reps)
    mc = t.children[t.start[level.node[mr]] + mb]
    keep = ~t.empty[mc]
    mr, mb, mc = mr[keep], mb[keep], mc[keep]
    return _Level(
        np.concatenate([gc, mc]),
        level.row[np.concatenate([go, mr])],
        np.concatenate([level.w[go], t.share[mc] * level.w[mr]]),
        np.concatenate([go, mr]),
        np.concatenate([gb, mb]),
        np.concatenate([np.ones(go.size, dtype=bool), np.zeros(mr.size, dtype=bool)]),
        np.zeros(0, dtype=np.intp),
    )


def reference_distribution(model: Model, X: npt.ArrayLike) -> FloatArray:
    """``distributionForInstance`` by Weka's recursion (:func:`_probs`), node by node for
    the rows that reach it: the yardstick of :func:`distribution`."""
    x = np.asarray(X, dtype=np.float64)
    n = x.shape[0]
    return _probs(model, x, 0, np.arange(n, dtype=np.intp), np.ones(n), len(model.schema.classes))


def _probs(
    model: Model, x: FloatArray, i: int, rows: IntArray, w: FloatArray, n_classes: int
) -> FloatArray:
    """``getProbs`` of node ``i`` for ``rows`` arriving with weights ``w``: (rows, classes).

    Recursive over the tree's depth, like Weka's (J48 trees are shallow next to
    Python's recursion limit)."""
    node = model.nodes[i]
    if isinstance(node, Leaf):
        out: FloatArray = w[:, None] * _prob(node)[None, :]
        return out
    br = _branches(model, node, x[rows, node.attribute])
    out = np.zeros((rows.size, n_classes))
    for b, c in enumerate(node.children):
        sel = np.flatnonzero(br == b)
        if sel.size == 0:
            continue
        child = model.nodes[c]
        if _is_empty(child):
            out[sel] = w[sel, None] * _prob(node)[None, :]
        else:
            out[sel] = _probs(model, x, c, rows[sel], w[sel], n_classes)
    unk = np.flatnonzero(br < 0)
    if unk.size:
        acc = np.zeros((unk.size, n_classes))
        for b, c in enumerate(node.children):
            child = model.nodes[c]
            if _is_empty(child):
                continue
            share = branch_share(model.nodes, node, b)
            acc += _probs(model, x, c, rows[unk], share * w[unk], n_classes)
        out[unk] = acc
    return out


def classify(model: Model, X: npt.ArrayLike) -> IntArray:
    """``J48.classifyInstance`` of every row (module docstring)."""
    return gr_scan(distribution(model, X))


def gr_scan(dist: FloatArray) -> IntArray:
    """The class ``classifyInstance`` picks from per-class probabilities: scanning the
    classes in order from a best of -1, a class replaces the best when it is larger by
    more than 1e-6."""
    best = np.zeros(dist.shape[0], dtype=np.intp)
    top = np.full(dist.shape[0], -1.0)
    for c in range(dist.shape[1]):
        take = dist[:, c] - top > WEKA_TOL
        best[take] = c
        top[take] = dist[take, c]
    return best


def evaluation_class(dist: FloatArray) -> IntArray:
    """The class ``Evaluation`` counts: the first largest probability, -1 when it is
    not positive (unclassified)."""
    best: IntArray = np.argmax(dist, axis=1).astype(np.intp)
    best[dist[np.arange(dist.shape[0]), best] <= 0] = -1
    return best
