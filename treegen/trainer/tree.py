"""The trainer's mutable tree and its conversion to :class:`treegen.model.core.Model` nodes.

Growth and pruning edit nodes in place (turning a test into a leaf, copying
a raised branch over its parent), which the frozen model nodes do not
allow; :func:`flatten` writes the final pre-order tuple with an explicit
stack so deep trees cannot hit Python's recursion limit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.model.core import Node, NodeKind, make_node
from treegen.model.dist import SPARSE_MIN_CLASSES, SparseDist, make_dist


@dataclass(slots=True, eq=False)
class TNode:
    """A node under construction; ``dist`` is per-class weight in the flavour's dtype
    (or, for many classes, the classes present: :func:`held_dist`)."""

    kind: NodeKind
    cls: int
    items: float
    errors: float
    dist: npt.NDArray[np.floating] | SparseDist
    attribute: int = -1
    threshold: float = math.nan
    subsets: tuple[tuple[int, ...], ...] = ()
    children: list[TNode] = field(default_factory=list)
    # Set by growth on a test: its non-empty branches and each branch's
    # Factor (known_v / KnownCases) for the cases growth sent here, exactly as
    # pruning's first pass would compute them (it skips recomputing them).
    nonempty: tuple[int, ...] = ()
    factors: tuple[float, ...] = ()

    def make_leaf(self) -> None:
        """Turn this node into a leaf (its class and records stay)."""
        self.kind = "leaf"
        self.attribute = -1
        self.threshold = math.nan
        self.subsets = ()
        self.children = []
        self.nonempty = ()
        self.factors = ()

    def copy_from(self, other: TNode) -> None:
        """``*T = *Branch``: this record becomes ``other`` (subtree raising)."""
        self.kind = other.kind
        self.cls = other.cls
        self.items = other.items
        self.errors = other.errors
        self.dist = other.dist
        self.attribute = other.attribute
        self.threshold = other.threshold
        self.subsets = other.subsets
        self.children = other.children
        self.nonempty = other.nonempty
        self.factors = other.factors


def flatten(root: TNode) -> tuple[Node, ...]:
    """Pre-order flat nodes, children referenced by index."""
    order: list[TNode] = []
    stack = [root]
    while stack:
        t = stack.pop()
        order.append(t)
        stack.extend(reversed(t.children))
    index = {id(t): i for i, t in enumerate(order)}
    return tuple(
        make_node(
            t.kind,
            cls=int(t.cls),
            items=float(t.items),
            errors=float(t.errors),
            dist=make_dist(t.dist),
            attribute=int(t.attribute),
            threshold=float(t.threshold),
            subsets=t.subsets,
            children=tuple(index[id(c)] for c in t.children),
        )
        for t in order
    )


def held_dist(freq: npt.NDArray[np.floating]) -> npt.NDArray[np.floating] | SparseDist:
    """A node's class weights as a :class:`TNode` keeps them: the classes present where
    the model would hold them so (:func:`treegen.model.dist.make_dist`: with thousands
    of classes a dense array per node was 100 MB while growing), else a copy."""
    if freq.size >= SPARSE_MIN_CLASSES:
        d = make_dist(freq)
        if isinstance(d, SparseDist):
            return d
    return freq.copy()


Call = Generator[Any, Any, Any]


def run(gen: Call) -> Any:
    """Run a generator-coded recursion with an explicit stack.

    A step function ``yield``s a sub-generator to "call" it and receives its
    return value; this keeps the recursive shape of Release 8's
    ``FormTree``/``EstimateErrors`` without Python recursion depth limits.
    """
    stack: list[Call] = [gen]
    value: Any = None
    while stack:
        try:
            sub = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            continue
        stack.append(sub)
        value = None
    return value


def walk(root: TNode, visit: Callable[[TNode], None]) -> None:
    """Call ``visit`` on every node (pre-order), without recursion."""
    stack = [root]
    while stack:
        t = stack.pop()
        visit(t)
        stack.extend(reversed(t.children))


def shape_copy(root: TNode) -> TNode:
    """A copy of the tree under ``root`` whose nodes an in-place pruning of the original
    leaves alone (their arrays are shared: pruning does not write them)."""
    order: list[TNode] = []
    walk(root, order.append)
    copies = {id(t): replace(t, children=[]) for t in order}
    for t in order:
        copies[id(t)].children = [copies[id(c)] for c in t.children]
    return copies[id(root)]


def count_nodes(root: TNode) -> int:
    """The number of nodes of the tree under ``root``."""
    n = 0
    stack = [root]
    while stack:
        t = stack.pop()
        n += 1
        stack.extend(t.children)
    return n
