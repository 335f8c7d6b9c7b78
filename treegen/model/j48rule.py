"""Where a j48 model answers as Weka's J48 does rather than as Release 8 (docs/C45.md,
section 11): one home for each of the three rules, read by every classifier of a model
(the float and fixed-point ones in Python, the C accelerator's tables, the exported C).

* **A continuous test** sends a known value v left when ``v - t < 1e-6`` in double (J48's
  ``C45Split.whichSubset``: ``Utils.smOrEq``), not only when ``v <= t``: training routes
  the cases so, and a value a hair above the threshold must go where training sent it.
  :func:`j48_cuts` turns the rule into a plain ``v <= cut``.
* **An empty leaf** (a branch no training weight reached, within :data:`J48_TOL`:
  ``m_isEmpty``) reached by a known value answers with its parent test's class
  frequencies (``getProbs``: ``localModel().classProb(c, x, branch)`` of an empty bag),
  where Release 8 gives all the weight to the leaf's class.  Its class is the leaf's
  own, which training set to J48's label (the parent's ``maxClass``).
* **A missing value** at a test goes down every branch but the empty ones: an empty
  branch's share is 0.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.model.core import ContinuousTest, Leaf, Model, Node

FloatArray = npt.NDArray[np.float64]


def is_j48(model: Model) -> bool:
    """Whether ``model`` answers by the rules of this module (the j48 flavour)."""
    return model.options.flavor == "j48"


def is_empty(items: float) -> bool:
    """Whether a j48 branch of this weight is empty (no more than ``J48_TOL``)."""
    return not items - 0.0 > J48_TOL


def empty_parents(model: Model) -> dict[int, int]:
    """A j48 model's empty leaves, each with its parent ({} for any other model)."""
    if not is_j48(model):
        return {}
    nodes = model.nodes
    return {
        c: i
        for i, node in enumerate(nodes)
        for c in node.children
        if isinstance(nodes[c], Leaf) and is_empty(nodes[c].items)
    }


def answering_node(model: Model, i: int, parents: dict[int, int]) -> Node:
    """The node whose class distribution leaf ``i`` adds when a case reaches it
    (``parents``: :func:`empty_parents` of ``model``)."""
    return model.nodes[parents.get(i, i)]


def branch_items(model: Model, i: int, parents: dict[int, int]) -> list[float]:
    """The weights of test ``i``'s branches that a missing value is shared by: each
    child's items, 0 for an empty j48 leaf."""
    nodes = model.nodes
    return [0.0 if c in parents else nodes[c].items for c in nodes[i].children]


def j48_cuts(thresholds: npt.ArrayLike) -> FloatArray:
    """Per threshold t, the largest double c with ``c - t < 1e-6`` (t itself where it is
    not finite): ``v <= c`` exactly when J48 sends v left (rounding is monotone, so every
    double up to c passes and none above it)."""
    t = np.asarray(thresholds, dtype=np.float64)
    fin = np.isfinite(t)
    c = np.where(fin, t + J48_TOL, t)
    with np.errstate(invalid="ignore", over="ignore"):  # nextafter(max, inf) is inf
        for _ in range(8):  # t + 1e-6 is within an ulp or two of the answer
            over = fin & ~(c - t < J48_TOL)
            if not over.any():
                break
            c = np.where(over, np.nextafter(c, -np.inf), c)
        for _ in range(8):
            up = np.nextafter(c, np.inf)
            more = fin & (up - t < J48_TOL)
            if not more.any():
                break
            c = np.where(more, up, c)
    return c


def test_cuts(model: Model) -> FloatArray:
    """:func:`test_cut` of every node's threshold at once (0 where a node has none)."""
    t = np.asarray(
        [n.threshold if isinstance(n, ContinuousTest) else 0.0 for n in model.nodes],
        dtype=np.float64,
    )
    return j48_cuts(t) if is_j48(model) else t


def test_cut(model: Model, threshold: float) -> float:
    """What a known value is compared with (``v <= cut``) at a continuous test of
    ``model`` with ``threshold``: the threshold, or for a j48 model its J48 cut."""
    if not is_j48(model):
        return threshold
    return float(j48_cuts(np.asarray([threshold]))[0])
