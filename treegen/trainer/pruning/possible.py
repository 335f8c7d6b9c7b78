"""Impossible values after pruning with ``--subsets`` (Release 8's ``CheckPossibleValues``,
docs/C45.md section 8, after its steps).

A nominal attribute grouped into subsets may be tested again below its own test, so
a branch can name values that no case reaching it can have.  Release 8 cleans only
the last branch of each subset test, the one that holds the values with no or few
cases at growth: it keeps the values of that branch that the subset tests above on
the same attribute leave possible, and goes when none is left (golf: size 8 grown,
7 pruned, although Release 8 reports that pruning changed nothing).  The other
branches keep their values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from treegen.model.core import ContinuousTest, Leaf, Node, SubsetTest, Test

Possible = dict[int, frozenset[int]]


def check_possible_values(nodes: Sequence[Node], n_values: Sequence[int]) -> tuple[Node, ...]:
    """``nodes`` (pre-order, root first) with each subset test's last branch narrowed to
    the values possible on its path, or removed with its subtree when it keeps none.

    Works with an explicit stack, so deep trees need no recursion.
    """
    out: list[Node] = []
    kids: list[list[int]] = []
    # (node index, values still possible per attribute, parent's position in out)
    stack: list[tuple[int, Possible, int]] = [(0, {}, -1)]
    while stack:
        i, possible, parent = stack.pop()
        node = nodes[i]
        pos = len(out)
        if parent >= 0:
            kids[parent].append(pos)
        branches = [(possible, c) for c in node.children]
        if isinstance(node, SubsetTest):
            a = node.attribute
            allowed = possible.get(a, frozenset(range(n_values[a])))
            last = tuple(v for v in node.subsets[-1] if v in allowed)
            subsets = node.subsets[:-1] + ((last,) if last else ())
            node = dataclasses.replace(node, subsets=subsets)
            branches = [
                ({**possible, a: frozenset(vals)}, c)
                for vals, c in zip(subsets, node.children, strict=False)
            ]
        out.append(node)
        kids.append([])
        for sub, child in reversed(branches):
            stack.append((child, sub, pos))
    return tuple(
        n if isinstance(n, Leaf) else _with_children(n, tuple(k))
        for n, k in zip(out, kids, strict=True)
    )


def _with_children(node: Test, children: tuple[int, ...]) -> Node:
    """``node`` with its branches renumbered (a continuous test keeps two)."""
    if isinstance(node, ContinuousTest):
        return dataclasses.replace(node, children=(children[0], children[1]))
    return dataclasses.replace(node, children=children)
