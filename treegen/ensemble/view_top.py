"""The inline top of a one-tree table (``--inline-top``, templates/predict_ensemble_table.c.j2).

A table walk has one compare branch for every test, which a branch predictor cannot
learn test by test; the tests most rows pass through run instead as nested ifs (one
branch instruction each), and a test outside them hands the walk to the table at its
row (docs/comparison.md).  The top is chosen as the C4.5 tree's lean table's is
(treegen.codegen.lean.greedy_top): greedily from the root, the tests of most reach
first, ties in pre-order.  A test's reach is its training weight (Tree.weight, a
scikit-learn tree's ``weighted_n_node_samples``: the root's weight times the product
of the shares on the test's path); a tree whose file has no weights (written before
they were stored, or not imported from a scikit-learn tree) is taken breadth-first
instead: the splits nearest the root.  Either way the choice depends on the model
alone.

Only a single tree whose classes are decided at export time, under ``--missing none``
(treegen.ensemble.ir.has_top), has a top: its top's leaves return their class and
it adds no sums.  The top's lines are the ifs style's (treegen.ensemble.view_ifs, so
each test's C has one home); the budget is ``--inline-top``, else
treegen.codegen.lean.default_inline_top of the tree's splits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from treegen.codegen.lean import default_inline_top, greedy_top
from treegen.ensemble.ir import EnsembleIR, ETree, LeafRow, has_top
from treegen.ensemble.layout import Payloads, split_rows
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
    by_reach: bool = False  # the top was chosen by the tree's node weights


def top_tests(tree: ETree, budget: int) -> frozenset[int]:
    """The ``budget`` splits of ``tree`` of most reach (its node weights), else nearest
    its root (module docstring), ties in pre-order: a split is in the top only with
    its parent, so the top is a subtree at the root."""
    if isinstance(tree.nodes[0], LeafRow):
        return frozenset()
    weight = tree.weight

    def reached(i: int, reach: float) -> Iterator[tuple[int, float]]:
        node = tree.nodes[i]
        assert not isinstance(node, LeafRow)
        for child in (i + 1, node.right):
            if not isinstance(tree.nodes[child], LeafRow):
                # The weight itself (dividing by the root's would only round); without
                # weights, one less a level down: the greedy order is breadth first.
                yield child, weight[child] if weight else reach - 1.0

    return greedy_top(reached, budget)


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
    return TopView(view.functions, len(top), not cut, host_floats(ir), bool(tree.weight))
