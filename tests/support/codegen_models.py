"""Hand-built models for the code-generation tests (no trainer needed).

* :func:`golf` -- the tree C4.5 Release 8 prints for golf (reference/golf/c45r8.out).
* :func:`synthetic` -- a seeded random tree with continuous, nominal, subset and
  empty-leaf nodes, fractional items (as unknown values leave them) and thresholds
  that are float32 values, arbitrary doubles, negatives, zero and tiny values.  With
  ``spine`` it hangs bushy subtrees off a long chain, for >= 5,000 nodes and depth >= 200.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from treegen.data.dataset import Attribute, Schema
from treegen.model.core import ContinuousTest, Leaf, Model, Node, NominalTest, SubsetTest, make_node
from treegen.model.options import ModelOptions, TrainOptions

GOLF_SCHEMA = Schema(
    (
        Attribute("outlook", "nominal", ("sunny", "overcast", "rain")),
        Attribute("temperature", "continuous"),
        Attribute("humidity", "continuous"),
        Attribute("windy", "nominal", ("true", "false")),
    ),
    ("Play", "Don't Play"),
    "class",
)


def _leaf(cls: int, dist: tuple[float, ...]) -> Node:
    return Leaf(cls, float(sum(dist)), 0.0, dist)


def golf() -> Model:
    nodes = (
        NominalTest(0, 14.0, 0.0, (9.0, 5.0), attribute=0, children=(1, 4, 5)),
        ContinuousTest(1, 5.0, 0.0, (2.0, 3.0), attribute=2, threshold=75.0, children=(2, 3)),
        _leaf(0, (2.0, 0.0)),
        _leaf(1, (0.0, 3.0)),
        _leaf(0, (4.0, 0.0)),
        NominalTest(0, 5.0, 0.0, (3.0, 2.0), attribute=3, children=(6, 7)),
        _leaf(1, (0.0, 2.0)),
        _leaf(0, (3.0, 0.0)),
    )
    return Model(GOLF_SCHEMA, nodes, ModelOptions(TrainOptions(flavor="c45")))


SYN_SCHEMA = Schema(
    (
        Attribute("x0", "continuous"),
        Attribute("colour", "nominal", ("red", "green", "blue")),
        Attribute("x 2/*", "continuous"),
        Attribute("size", "nominal", ("S", "M", "L", "XL", "??")),
        Attribute("unused", "ignore"),
        Attribute("x5", "continuous"),
        Attribute("flag", "nominal", ("yes", "no")),
    ),
    ("alpha", "beta", "gamma"),
    "class",
)


def _threshold(rnd: random.Random) -> float:
    r = rnd.random()
    if r < 0.4:
        import numpy as np

        return float(np.float32(rnd.uniform(-100, 100)))
    if r < 0.6:
        return round(rnd.uniform(-50, 250), rnd.choice([0, 1, 2]))
    if r < 0.7:
        return rnd.choice([0.0, -0.0, 1e-40, -1e-42, 0.5, 1e30, -2.5])
    return rnd.uniform(-1000, 1000)


def synthetic(seed: int = 0, size: int = 60, spine: int = 0) -> Model:
    """A random tree: about ``size`` nodes per subtree, ``spine`` chained tests."""
    rnd = random.Random(seed)
    attrs = SYN_SCHEMA.attributes
    n_classes = len(SYN_SCHEMA.classes)
    # Build as (kind, attr, threshold, subsets, items, dist, children-specs) then number
    # pre-order with an explicit stack.
    nodes: list[Node | None] = []
    # stack entries: (parent index, slot in the parent's child list to fill, items, budget,
    # on the spine)
    pending_children: dict[int, list[int]] = {}
    stack: list[tuple[int, int, float, int, bool]] = [(-1, -1, 1000.0, size, spine > 0)]
    spine_left = spine
    while stack:
        parent, slot, items, budget, on_spine = stack.pop()
        idx = len(nodes)
        nodes.append(None)
        if parent >= 0:
            pending_children[parent][slot] = idx
        make_test = (on_spine and spine_left > 0) or (
            budget > 1 and items > 0 and rnd.random() < 0.8
        )
        if not make_test:
            if items > 0 and rnd.random() < 0.97:
                dist = [rnd.random() ** 3 for _ in range(n_classes)]
                tot = sum(dist)
                d = tuple(items * v / tot for v in dist)
                cls = max(range(n_classes), key=lambda c: d[c])
                nodes[idx] = Leaf(cls, items, 0.0, d)
            else:
                nodes[idx] = Leaf(rnd.randrange(n_classes), 0.0, 0.0, (0.0,) * n_classes)
            continue
        if on_spine:
            spine_left -= 1
        a = rnd.choice([0, 1, 2, 3, 5, 6] if not on_spine else [0, 2, 5])
        if attrs[a].is_continuous:
            kind, k, subsets = "continuous", 2, ()
        elif a == 3 and rnd.random() < 0.4:
            kind, k = "subset", 2
            subsets = ((0, 2), (1, 3))  # code 4 ('??') in no subset: counts as missing
        else:
            kind, k, subsets = "nominal", len(attrs[a].values), ()
        shares = [rnd.random() for _ in range(k)]
        if kind == "nominal" and k > 2 and rnd.random() < 0.3:
            shares[rnd.randrange(k)] = 0.0  # an empty branch
        tot = sum(shares)
        child_items = [items * s / tot for s in shares]
        pending_children[idx] = [0] * k
        nodes[idx] = make_node(
            kind,  # type: ignore[arg-type]
            0,
            items,
            0.0,
            (items / n_classes,) * n_classes,
            attribute=a,
            threshold=_threshold(rnd) if kind == "continuous" else 0.0,
            subsets=subsets,
            children=(0,) * k,  # numbered below, once the subtrees are
        )
        sub_budget = [max((budget - 1) // k, 0)] * k
        for b in reversed(range(k)):
            spine_child = on_spine and b == 0
            stack.append(
                (
                    idx,
                    b,
                    child_items[b],
                    size if (on_spine and b == 1) else sub_budget[b],
                    spine_child,
                )
            )
    out = []
    for i, n in enumerate(nodes):
        assert n is not None
        if i in pending_children:
            n = replace(n, children=tuple(pending_children[i]))  # type: ignore[arg-type]
        out.append(n)
    # Thresholds are arbitrary doubles, so the classifier must compare in double (J48).
    return Model(SYN_SCHEMA, tuple(out), ModelOptions(TrainOptions(flavor="j48")))


def tiny() -> Model:
    """One continuous test at -0.0 (printed as 0.0), a subset test with a code in no
    subset, and an empty leaf; names that are not C identifiers."""
    schema = Schema(
        (
            Attribute("temp °C", "continuous"),
            Attribute("kind", "nominal", ("a*/b", "c", "d??/", "e")),
        ),
        ("yes/*", "no", "No"),
        "label",
    )

    def leaf(c: int, d: tuple[float, ...]) -> Node:
        return Leaf(c, float(sum(d)), 0.0, d)

    nodes = (
        ContinuousTest(0, 10.0, 0.0, (5.0, 3.0, 2.0), attribute=0, threshold=-0.0, children=(1, 2)),
        leaf(0, (4.0, 1.0, 0.0)),
        SubsetTest(
            1, 5.0, 0.0, (1.0, 2.0, 2.0), attribute=1, subsets=((0, 2), (1,)), children=(3, 4)
        ),
        leaf(2, (0.0, 1.0, 2.0)),
        Leaf(1, 0.0, 0.0, (0.0, 0.0, 0.0)),
    )
    return Model(schema, nodes, ModelOptions(TrainOptions(flavor="j48")))


def single_leaf() -> Model:
    """A tree that is one leaf: the generated code must still be warning-free."""
    return Model(
        GOLF_SCHEMA, (Leaf(1, 3.0, 0.0, (1.0, 2.0)),), ModelOptions(TrainOptions(flavor="c45"))
    )


def stump() -> Model:
    """One continuous test and two leaves: a one-entry missing-value stack, where
    gcc 12 -O3 once saw the table walk write past it (-Wstringop-overflow)."""
    nodes = (
        ContinuousTest(0, 5.0, 0.0, (2.0, 3.0), attribute=2, threshold=75.0, children=(1, 2)),
        _leaf(0, (2.0, 0.0)),
        _leaf(1, (0.0, 3.0)),
    )
    return Model(GOLF_SCHEMA, nodes, ModelOptions(TrainOptions(flavor="c45")))


def wide_nominal(k: int = 200) -> Model:
    """A root test on a nominal attribute with ``k`` values, each leaf with its own
    distribution, so the output identifies the decoded code (or 'missing')."""
    schema = Schema(
        (Attribute("v", "nominal", tuple(f"v{i}" for i in range(k))), Attribute("x", "continuous")),
        ("a", "b", "c"),
        "class",
    )
    leaves = tuple(
        Leaf(i % 3, float(i + 3), 0.0, tuple(float(i + 1) if c == i % 3 else 1.0 for c in range(3)))
        for i in range(k)
    )
    root = NominalTest(
        0,
        float(sum(n.items for n in leaves)),
        0.0,
        (1.0, 1.0, 1.0),
        attribute=0,
        children=tuple(range(1, k + 1)),
    )
    return Model(schema, (root, *leaves), ModelOptions(TrainOptions(flavor="c45")))


def as_c45(model: Model) -> Model:
    """The same tree as a c45-flavour model: thresholds rounded to float32 values (as
    Release 8 stores them), and tests that compare float32(v) with them."""
    nodes = tuple(
        replace(n, threshold=float(np.float32(n.threshold))) if isinstance(n, ContinuousTest) else n
        for n in model.nodes
    )
    train = replace(model.options.training, flavor="c45")
    return Model(model.schema, nodes, replace(model.options, train=train))


def chain(depth: int) -> Model:
    """A tree that is one path of ``depth`` tests ``x <= k`` (a leaf on the left, the rest
    of the chain on the right): as deep as a tree of its size can be."""
    schema = Schema(
        (Attribute("x", "continuous"), Attribute("c", "nominal", ("a", "b"))), ("p", "q"), "class"
    )
    nodes: list[Node] = []
    for k in range(depth):
        i = len(nodes)
        items = float(depth - k + 1)
        nodes.append(
            ContinuousTest(
                0,
                items,
                0.0,
                (items - 1.0, 1.0),
                attribute=0,
                threshold=float(k),
                children=(i + 1, i + 2),
            )
        )
        nodes.append(_leaf(k % 2, (1.0, 0.0) if k % 2 == 0 else (0.0, 1.0)))
    nodes.append(_leaf(0, (1.0, 0.0)))
    return Model(schema, tuple(nodes), ModelOptions(TrainOptions(flavor="c45")))


ALT_SCHEMA = Schema(
    (
        Attribute("a", "nominal", tuple(f"a{i}" for i in range(8))),
        Attribute("b", "nominal", tuple(f"b{i}" for i in range(6))),
        Attribute("x", "continuous"),
        Attribute("c", "nominal", tuple(f"c{i}" for i in range(5))),
    ),
    ("p", "q", "r"),
    "class",
)


def alternating(depth: int, seed: int = 0) -> Model:
    """A complete tree ``depth`` tests deep, mostly subset tests whose subsets alternate
    (each subset's codes interleave with another's, as in {a0, a2, a4} / {a1, a3, a5}),
    with a code in no subset now and then and a continuous test every few levels: under
    ``--missing none`` a chain of code comparisons would copy each such subtree once per
    run of its codes, level after level."""
    rnd = random.Random(seed)
    nodes: list[Node | None] = []

    def grow(level: int) -> int:
        i = len(nodes)
        nodes.append(None)
        if level == depth:
            cls = rnd.randrange(3)
            dist = tuple(float(rnd.randint(1, 9)) + (6.0 if c == cls else 0.0) for c in range(3))
            nodes[i] = _leaf(cls, dist)
            return i
        if rnd.random() < 0.2:
            left, right = grow(level + 1), grow(level + 1)
            threshold = float(rnd.randint(-50, 50))
            parts = [nodes[c] for c in (left, right)]
            dist = tuple(sum(n.dist[c] for n in parts if n is not None) for c in range(3))
            cls = max(range(3), key=lambda c: dist[c])
            nodes[i] = ContinuousTest(cls, float(sum(dist)), 0.0, dist, 2, threshold, (left, right))
            return i
        else:
            attr = rnd.choice((0, 1, 3))
            k = len(ALT_SCHEMA.attributes[attr].values)
            n_sets = rnd.choice((2, 2, 3))
            offset = rnd.randrange(n_sets)
            # Code c goes to subset (c + offset) % n_sets: every subset's codes interleave.
            subsets = [[c for c in range(k) if (c + offset) % n_sets == s] for s in range(n_sets)]
            if k > n_sets + 1 and rnd.random() < 0.3:
                subsets[0] = subsets[0][:-1]  # its last code is in no subset
            kids = tuple(grow(level + 1) for _ in range(n_sets))
        parts = [nodes[c] for c in kids]
        dist = tuple(sum(n.dist[c] for n in parts if n is not None) for c in range(3))
        nodes[i] = SubsetTest(
            max(range(3), key=lambda c: dist[c]),
            float(sum(dist)),
            0.0,
            dist,
            attr,
            tuple(tuple(s) for s in subsets),
            kids,
        )
        return i

    grow(0)
    assert all(n is not None for n in nodes)
    return Model(
        ALT_SCHEMA,
        tuple(n for n in nodes if n is not None),
        ModelOptions(TrainOptions(flavor="j48")),
    )
