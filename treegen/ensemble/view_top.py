"""The inline top of a one-tree table (``--inline-top``, templates/predict_ensemble_table.c.j2).

A table walk has one compare branch for every test, which a branch predictor cannot
learn test by test; the tests nearest the root, which every row passes through, run
instead as nested ifs (one branch instruction each), and a test outside them hands the
walk to the table at its row (docs/comparison.md).  The C4.5 tree's lean table has
the same top (treegen.codegen.lean.hot_tests, chosen by training counts); a tree
imported as an ensemble has no counts per node, so its top is breadth-first: the
budget's splits nearest the root, ties in pre-order, from the model alone.

Only a single tree whose classes are decided at export time, under ``--missing none``
(treegen.ensemble.lower.has_top), has a top: its top's leaves return their class and
it adds no sums.  The top's lines are the ifs style's (treegen.ensemble.view_ifs, so
each test's C has one home); the budget is ``--inline-top``, else
treegen.codegen.lean.default_inline_top of the tree's splits.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.lean import default_inline_top
from treegen.ensemble.layout import Payloads, split_rows
from treegen.ensemble.lower import EnsembleIR, ETree, LeafRow, has_top
from treegen.ensemble.view_ifs import EnsFunction, host_floats, ifs_view


@dataclass(frozen=True, slots=True)
class TopView:
    """The inline top as the table template reads it (no functions: none)."""

    top_functions: tuple[EnsFunction, ...] = ()
    n_top: int = 0  # splits in the top
    top_whole: bool = False  # every split is in the top: the table is for INLINE_TOP 0
    # The top's tests compare the float inputs where the host compares floats
    # (PREFIX_FLOATCMP, view_ifs.host_floats); keys are then made at a cut edge.
    top_floats: bool = False


def top_tests(tree: ETree, budget: int) -> frozenset[int]:
    """The ``budget`` splits of ``tree`` nearest its root, ties in pre-order: a split
    is in the top only with its parent, so the top is a subtree at the root."""
    depth = {0: 0}
    order: list[tuple[int, int]] = []
    for i, node in enumerate(tree.nodes):  # pre-order: a split before its children
        if isinstance(node, LeafRow):
            continue
        order.append((depth[i], i))
        depth[i + 1] = depth[node.right] = depth[i] + 1
    order.sort()
    return frozenset(i for _, i in order[: max(budget, 0)])


def top_view(ir: EnsembleIR, pay: Payloads, cat_at: dict[tuple[int, int], int]) -> TopView:
    """The inline top of ``ir``'s table C: none unless it may have one (has_top), the
    budget is above 0 and the tree has a split."""
    if not has_top(ir):
        return TopView()
    tree = ir.trees[0]
    rows = split_rows(tree)
    budget = ir.inline_top if ir.inline_top is not None else default_inline_top(len(rows))
    top = top_tests(tree, budget)
    if not top:
        return TopView()
    cut = {i: r for i, r in rows.items() if i not in top}
    view = ifs_view(ir, pay, cat_at, cut)
    return TopView(view.functions, len(top), not cut, host_floats(ir))
