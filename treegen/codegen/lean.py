"""``--missing none``: the IR without the C4.5 missing-value machinery, and its compact table.

The caller promises that no value is missing, so every test becomes one binary
comparison ``x <= t`` (left when true, right when false) and a leaf is just its class
(or, with ``--proba``, its outcome).  A value that is NaN or the integer sentinel
anyway takes one fixed path, the **none rule**, which the Python side reproduces
(:func:`treegen.verify.oracle.evaluate` with ``rule="none"`` on the C4.5 IR):

* continuous test ``x <= t`` / ``x < t``: an integer sentinel is compared like any
  value; NaN fails the comparison and goes right (with ``--float-compare int`` the C
  keys NaN above every threshold, so it also goes right); a test the input type's
  range decides (op ``left``/``right``) is not emitted and every value takes its branch.
  (The ifs style compares a float's bits with the threshold's instead of keys,
  treegen.codegen.conditions.key_bits_test: the same branch, NaN of either sign right.)
* nominal test with codes 0..k-1: tested as the chain ``x <= 0``, ``x <= 1``, ...,
  ``x <= k-2``, so a value takes the branch of the smallest code c with ``x <= c``
  (a value below 0 takes code 0's, a fraction the next code up's) and NaN, or a value
  above k-1, takes code k-1's; a code that belongs to no subset takes branch 0.
  Consecutive codes with one branch share one comparison.  Where a branch's codes
  are not consecutive (a subset test such as {a, c} / {b, d}), the chain would copy
  that branch's subtree once per run of its codes, so the test becomes
  :class:`~treegen.codegen.ir.Member` tests instead, one per branch but the last:
  the same code (the chain's), looked up in the branch's set of codes, each child
  once.

:func:`lean_ir` rewrites an IR so (pre-order, only ``le``/``lt`` comparisons and
member tests, the training shares kept); :func:`compact_table` lays it out for the
table style and :func:`hot_tests` picks the tests its inline top (``--inline-top``)
compiles as ifs (by :func:`greedy_top`, the rule an imported tree's top shares);
:func:`code_sets` stores the member tests' sets.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from treegen.codegen.ir import IR, Compare, IRNode, Leaf, Member, Switch, validate
from treegen.codegen.keys import float_keys
from treegen.model.fixedpoint import W_ONE


def chain_runs(node: Switch) -> list[tuple[int, int]]:
    """(last code, branch) of each run of consecutive codes that share a branch,
    codes without one counted in branch 0 (the none rule's nominal chain)."""
    runs: list[tuple[int, int]] = []
    for c, b in enumerate(node.branch_of):
        b = max(b, 0)
        if runs and runs[-1][1] == b:
            runs[-1] = (c, b)
        else:
            runs.append((c, b))
    return runs


def member_groups(node: Switch) -> list[tuple[int, tuple[int, ...]]]:
    """(branch, its codes) for each branch that some code takes by the none rule (codes
    without a branch in branch 0), in branch order: the member tests of ``node``."""
    codes: dict[int, list[int]] = {}
    for c, b in enumerate(node.branch_of):
        codes.setdefault(max(b, 0), []).append(c)
    return [(b, tuple(codes[b])) for b in sorted(codes)]


def _repeats(runs: list[tuple[int, int]]) -> bool:
    """Whether some branch has two runs of codes: the chain would copy its subtree."""
    return len({b for _, b in runs}) < len(runs)


def _rescaled(node: Switch, left: set[int], right: set[int]) -> tuple[int, int]:
    """Training shares of the branches ``left`` against ``right``, rescaled to the cases
    that reach the test; only :func:`hot_tests` reads them."""
    a = sum(node.shares[b] for b in left)
    z = sum(node.shares[b] for b in right - left)
    total = a + z
    return (a * W_ONE // total, z * W_ONE // total) if total else (0, 0)


def _chain_shares(node: Switch, runs: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    """Training shares of chain test ``pos`` (its run's branch, the later runs'
    branches), rescaled to the cases that reach it; only :func:`hot_tests` reads them."""
    return _rescaled(node, {runs[pos][1]}, {b for _, b in runs[pos + 1 :]})


def _code_threshold(ir: IR, code: int) -> int | float:
    enc = ir.encoding
    if enc.uses_keys:
        return int(float_keys(np.asarray([code], dtype=np.float32))[0])
    return code if enc.is_int else float(code)


def _as_le(ir: IR, node: Compare) -> tuple[str, int | float]:
    """``x < t`` as ``x <= t'`` where the type has a predecessor t' of t; else as is."""
    t = node.threshold
    if node.op == "le":
        return "le", t
    enc = ir.encoding
    if enc.is_int or enc.uses_keys:
        lo = enc.int_range[0] if enc.is_int else 0
        return ("le", int(t) - 1) if int(t) > lo else ("lt", t)
    # Below the most negative finite value there is only -inf, no bound for ``<=``:
    # such a test stays ``x < t`` (and nextafter would warn of the overflow).
    with np.errstate(over="ignore"):
        if enc.ctype.name == "float":
            p = float(np.nextafter(np.float32(t), np.float32(-np.inf)))
        else:
            p = float(np.nextafter(float(t), -np.inf))
    return ("le", p) if math.isfinite(p) else ("lt", t)


def lean_ir(ir: IR, proba: bool) -> IR:
    """``ir`` under the none rule: nodes in pre-order, binary ``le``/``lt`` and member
    tests only, each subtree of ``ir`` once."""
    nodes: list[IRNode | None] = []
    kids: dict[int, list[int]] = {}
    # Work items: (IR node, chain position or -1, parent new index, parent slot).
    work: list[tuple[int, int, int, int]] = [(0, -1, -1, -1)]
    while work:
        i, pos, parent, slot = work.pop()
        node = ir.nodes[i]
        # A folded test is no test: follow its branch.
        while isinstance(node, Compare) and node.op in ("left", "right"):
            i = node.children[0 if node.op == "left" else 1]
            node = ir.nodes[i]
        if isinstance(node, Switch):
            runs = chain_runs(node)
            if len(runs) == 1:
                work.append((node.children[runs[0][1]], -1, parent, slot))
                continue
            pos = max(pos, 0)
            if _repeats(runs):
                me = len(nodes)
                if parent >= 0:
                    kids[parent][slot] = me
                nodes.append(None)
                kids[me] = [0, 0]
                groups = member_groups(node)
                branch, codes = groups[pos]
                later = {b for b, _ in groups[pos + 1 :]}
                k = len(node.branch_of)
                nodes[me] = Member(
                    node.feature, k, codes, _rescaled(node, {branch}, later), (0, 0), node.source
                )
                final = pos + 1 == len(groups) - 1
                rest = (node.children[groups[-1][0]], -1) if final else (i, pos + 1)
                work.append((*rest, me, 1))
                work.append((node.children[branch], -1, me, 0))
                continue
        me = len(nodes)
        if parent >= 0:
            kids[parent][slot] = me
        if isinstance(node, Leaf):
            nodes.append(Leaf(node.outcome, node.source))
            continue
        nodes.append(None)
        kids[me] = [0, 0]
        if isinstance(node, Compare):
            op, t = _as_le(ir, node)
            nodes[me] = Compare(
                node.feature,
                op,  # type: ignore[arg-type]
                t,
                node.shares,  # kept for hot_tests; the none rule never splits a case
                (0, 0),
                node.source,
                node.cut,
            )
            right: tuple[int, int] = (node.children[1], -1)
            left: tuple[int, int] = (node.children[0], -1)
        else:
            assert isinstance(node, Switch)  # the C4.5 IR has no member tests
            runs = chain_runs(node)
            code, branch = runs[pos]
            nodes[me] = Compare(
                node.feature,
                "le",
                _code_threshold(ir, code),
                _chain_shares(node, runs, pos),
                (0, 0),
                node.source,
                float(code),
            )
            left = (node.children[branch], -1)
            last = pos + 1 == len(runs) - 1
            right = (node.children[runs[-1][1]], -1) if last else (i, pos + 1)
        # Pop order: the left subtree first, so it directly follows its parent.
        work.append((*right, me, 1))
        work.append((*left, me, 0))
    out: list[IRNode] = []
    for k, n in enumerate(nodes):
        assert n is not None
        if isinstance(n, Compare | Member):
            out.append(replace(n, children=(kids[k][0], kids[k][1])))
        else:
            out.append(n)
    lean = replace(ir, nodes=tuple(out), stack_size=1, missing="none", proba=proba)
    validate(lean)
    return lean


SMALL_TABLE = 32
"""Tests that :func:`default_inline_top` leaves to the table alone."""


def default_inline_top(n_tests: int) -> int:
    """How many tests the table style puts inline when ``--inline-top`` is not given:
    a quarter of the tests beyond the first 32.  A table of a few dozen tests runs
    about as fast as inline code already (its paths are few enough for a branch
    predictor to learn), so there the top's flash would buy nothing; on bigger trees
    it puts the tests most rows pass through in code (docs/exporting.md, ``--inline-top``)."""
    return max(0, (n_tests - SMALL_TABLE) // 4)


Reached = Callable[[int, float], Iterable[tuple[int, float]]]
"""``reached(test, its reach)``: the test's children that are tests, each with its reach."""


def greedy_top(reached: Reached, budget: int) -> frozenset[int]:
    """The ``budget`` tests most reached, taken greedily from the root test 0 (a test
    only after its parent, so they are a subtree at the root), ties by the smaller
    index (pre-order): the one rule of an inline top, a C4.5 tree's (:func:`hot_tests`)
    and an imported tree's (treegen.ensemble.view_top).  The root's reach is 1."""
    if budget <= 0:
        return frozenset()
    heap: list[tuple[float, int]] = [(-1.0, 0)]
    top: set[int] = set()
    while heap and len(top) < budget:
        reach, i = heapq.heappop(heap)
        top.add(i)
        for child, r in reached(i, -reach):
            heapq.heappush(heap, (-r, child))
    return frozenset(top)


def hot_tests(ir: IR, budget: int) -> frozenset[int]:
    """The ``budget`` tests of the lean ``ir`` that training cases reach most often
    (:func:`greedy_top`): the table style's inline top.  The reach of a test is the
    product of the training shares on its path, so the choice depends on the model
    alone."""

    def reached(i: int, reach: float) -> Iterator[tuple[int, float]]:
        node = ir.nodes[i]
        assert isinstance(node, Compare | Member)
        for child, share in zip(node.children, node.shares, strict=True):
            if isinstance(ir.nodes[child], Compare | Member):
                yield child, reach * share / W_ONE

    if isinstance(ir.nodes[0], Leaf):
        return frozenset()
    return greedy_top(reached, budget)


def table_rows(ir: IR) -> dict[int, int]:
    """IR node -> its row in :func:`compact_table` (tests in pre-order)."""
    tests = (i for i, n in enumerate(ir.nodes) if isinstance(n, Compare | Member))
    return {i: r for r, i in enumerate(tests)}


@dataclass(frozen=True, slots=True)
class CompactTable:
    """The table style under the none rule: one row per test, in pre-order.

    ``code[t] = feature << 2 | left_leaf | right_leaf << 1``; the left child of a test is
    the next row unless it is a leaf; ``kid[t]`` is the right child's row, or the leaf's
    value (class, or outcome with --proba) when one child is a leaf, or both leaves'
    values as ``left << shift | right``.  A row is feature code + threshold + kid.  A
    member test's row has ``n_features + m`` in place of the feature and threshold 0,
    m its test in ``members``: the distinct member tests (one IR node of each feature
    and set of codes), in order of first use.
    """

    code: tuple[int, ...]
    threshold: tuple[int | float, ...]
    kid: tuple[int, ...]
    shift: int
    root_leaf: int  # the value of a tree that is a single leaf, else -1
    members: tuple[int, ...] = ()


def leaf_value(ir: IR, node: Leaf) -> int:
    return node.outcome if ir.proba else ir.outcomes[node.outcome].cls


def n_values(ir: IR) -> int:
    return len(ir.outcomes) if ir.proba else ir.n_classes


def compact_table(ir: IR) -> CompactTable:
    assert ir.missing == "none"
    shift = max(n_values(ir) - 1, 0).bit_length()
    if isinstance(ir.nodes[0], Leaf):
        return CompactTable((), (), (), shift, leaf_value(ir, ir.nodes[0]))
    row = table_rows(ir)
    code: list[int] = []
    thr: list[int | float] = []
    kid: list[int] = []
    members: list[int] = []
    distinct: dict[tuple[int, tuple[int, ...], int], int] = {}
    for i, n in enumerate(ir.nodes):
        threshold: int | float
        if isinstance(n, Member):
            key = (n.feature, n.codes, n.n_codes)
            if key not in distinct:
                distinct[key] = len(members)
                members.append(i)
            feature, threshold = ir.n_features + distinct[key], 0
        elif isinstance(n, Compare):
            if n.op != "le":
                raise ValueError(i)
            feature, threshold = n.feature, n.threshold
        else:
            continue
        a, b = (ir.nodes[c] for c in n.children)
        la, lb = isinstance(a, Leaf), isinstance(b, Leaf)
        assert la or row[n.children[0]] == row[i] + 1
        code.append(feature << 2 | int(la) | int(lb) << 1)
        thr.append(threshold)
        if isinstance(a, Leaf) and isinstance(b, Leaf):
            kid.append(leaf_value(ir, a) << shift | leaf_value(ir, b))
        elif isinstance(a, Leaf):
            kid.append(leaf_value(ir, a))
            assert row[n.children[1]] == row[i] + 1
        elif isinstance(b, Leaf):
            kid.append(leaf_value(ir, b))
        else:
            kid.append(row[n.children[1]])
    return CompactTable(tuple(code), tuple(thr), tuple(kid), shift, -1, tuple(members))


def code_sets(ir: IR) -> tuple[dict[int, int], tuple[int, ...]]:
    """The member tests' sets of codes as bytes, bit c of byte c // 8 for code c, each
    distinct set stored once: (IR node -> offset of its set, the bytes)."""
    at: dict[int, int] = {}
    pool: dict[tuple[int, ...], int] = {}
    out: list[int] = []
    for i, n in enumerate(ir.nodes):
        if isinstance(n, Member):
            bits = [0] * ((n.n_codes + 7) // 8)
            for c in n.codes:
                bits[c >> 3] |= 1 << (c & 7)
            key = tuple(bits)
            if key not in pool:
                pool[key] = len(out)
                out.extend(bits)
            at[i] = pool[key]
    return at, tuple(out)
