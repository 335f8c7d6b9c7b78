"""Removing impossible branches after pruning with ``--subsets`` (Release 8's
``CheckPossibleValues``, section 8).

A nominal attribute grouped into subsets may be tested again below its own
test, so a branch can ask for values that no case reaching it can have
(``outlook in {sunny,rain}`` above ``outlook = overcast``); pruning's
subtree raising makes more of them.  Release 8's pruned ``-s`` trees show
what it does with them: each branch of such a test keeps only the values
still possible on its path (``A6 in {d,j,k}`` where growth wrote
``A6 in {d,cc,i,j,k,r,q,w,x,e,ff}`` below ``A6 in {c,d,j,k,m,aa}``), a
branch left with none is dropped (golf: size 8 before pruning, 7 after, with
no other change), and a test left with one branch is that branch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from treegen.model.core import Node

Possible = dict[int, frozenset[int]]


def remove_impossible(nodes: Sequence[Node], n_values: Sequence[int]) -> tuple[Node, ...]:
    """``nodes`` (pre-order, root first) without impossible branches; ``n_values`` per attribute.

    Works with an explicit stack, so deep trees need no recursion.
    """
    out: list[Node] = []
    kids: list[list[int]] = []
    # (node index, values still possible per attribute, parent's position in out)
    stack: list[tuple[int, Possible, int]] = [(0, {}, -1)]
    while stack:
        i, possible, parent = stack.pop()
        node = nodes[i]
        branches: list[tuple[tuple[int, ...], int]] = []
        while node.kind in ("nominal", "subset"):
            a = node.attribute
            allowed = possible.get(a)
            groups = [(v,) for v in range(n_values[a])] if node.kind == "nominal" else node.subsets
            branches = []
            for vals, child in zip(groups, node.children, strict=True):
                kept = vals if allowed is None else tuple(v for v in vals if v in allowed)
                if kept:
                    branches.append((kept, child))
            assert branches, "a test whose every branch is impossible is unreachable"
            if len(branches) > 1:
                break
            # One possible branch: the test decides nothing, the branch replaces it.
            possible = {**possible, a: frozenset(branches[0][0])}
            i = branches[0][1]
            node = nodes[i]
            branches = []
        pos = len(out)
        if parent >= 0:
            kids[parent].append(pos)
        if node.kind in ("nominal", "subset") and (
            node.kind == "subset" or len(branches) < len(node.children)
        ):
            node = dataclasses.replace(
                node, kind="subset", subsets=tuple(vals for vals, _ in branches)
            )
        out.append(node)
        kids.append([])
        if node.kind in ("nominal", "subset"):
            a = node.attribute
            for vals, child in reversed(branches):
                stack.append((child, {**possible, a: frozenset(vals)}, pos))
        else:
            for child in reversed(node.children):
                stack.append((child, possible, pos))
    return tuple(
        dataclasses.replace(n, children=tuple(k)) if n.children else n
        for n, k in zip(out, kids, strict=True)
    )
