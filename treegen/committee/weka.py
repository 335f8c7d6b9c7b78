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

treegen's own classifier (:mod:`treegen.model.classify`) answers as Release 8 and the
exported C do; the two differ only on near ties, on rows with missing values, and at
empty leaves (Release 8: the leaf's class; J48: its parent's class frequencies).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

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


def distribution(model: Model, X: npt.ArrayLike) -> FloatArray:
    """``distributionForInstance`` of every row of ``X`` (module docstring).

    :func:`reference_distribution`'s arithmetic, each node visited once: first, top
    down, every *arrival* at a node (a row, the weight it carries there, the parent's
    arrival it came from, and whether it came by its known branch or by a missing
    value's share); then, bottom up, each arrival's class probabilities, a parent's
    missing arrival adding its children's results in branch order from 0, as
    ``getProbs`` does.  Same operations on the same doubles in the same order: the same
    bits (tested against the recursion)."""
    x = np.asarray(X, dtype=np.float64)
    n_classes = len(model.schema.classes)
    nodes = model.nodes
    # Arrivals per node: rows, weights, and (children) the parent's arrival index.
    rows: list[IntArray] = [np.zeros(0, dtype=np.intp)] * len(nodes)
    wts: list[FloatArray] = [np.zeros(0)] * len(nodes)
    link: list[IntArray] = [np.zeros(0, dtype=np.intp)] * len(nodes)
    branch_of: list[IntArray] = [np.zeros(0, dtype=np.intp)] * len(nodes)
    rows[0] = np.arange(x.shape[0], dtype=np.intp)
    wts[0] = np.ones(x.shape[0])
    for i, node in enumerate(nodes):  # parents come before their children
        if isinstance(node, Leaf) or rows[i].size == 0:
            continue
        br = _branches(model, node, x[rows[i], node.attribute])
        branch_of[i] = br
        unk = np.flatnonzero(br < 0)
        for b, c in enumerate(node.children):
            if _is_empty(nodes[c]):
                continue
            known = np.flatnonzero(br == b)
            share = nodes[c].items / node.items
            idx = np.concatenate([known, unk])
            rows[c] = rows[i][idx]
            wts[c] = np.concatenate([wts[i][known], share * wts[i][unk]])
            link[c] = idx
    result: list[FloatArray] = [np.zeros((0, n_classes))] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        w = wts[i]
        if isinstance(node, Leaf):
            result[i] = w[:, None] * _prob(node)[None, :]
            continue
        br = branch_of[i]
        out = np.zeros((w.size, n_classes))
        for b, c in enumerate(node.children):
            known = br == b
            if _is_empty(nodes[c]):
                sel = np.flatnonzero(known)
                out[sel] = w[sel, None] * _prob(node)[None, :]
                continue
            r, back = result[c], link[c]
            came = known[back]  # this child's arrivals by their known branch ...
            out[back[came]] = r[came]
            out[back[~came]] = out[back[~came]] + r[~came]  # ... and by a missing value
            result[c] = np.zeros((0, n_classes))
        result[i] = out
    return result[0]


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
        for c in node.children:
            child = model.nodes[c]
            if _is_empty(child):
                continue
            share = child.items / node.items
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
