"""The trees as their C is written: no test that every value passes one way.

A numeric test decided ``left``/``right`` (by the input type's range,
treegen.codegen.lower.lower_continuous, or by the tests above it,
treegen.ensemble.implied) whose missing values go the same way (always so under
``--missing none``: treegen.ensemble.lower.none_left) sends every value, known or
missing, one way: :func:`spliced` replaces it by the child it goes to and drops the
other subtree, which nothing reaches, and the value rows no leaf uses any more.  Both
styles are written from the spliced IR (treegen.ensemble.emit), so the table has no row
for such a test, and the ifs no line.  The EnsembleIR itself keeps every node, node for
node with the model: verify's rows probe every threshold, and the none rule
(treegen.ensemble.lower.none_rule) reads each node's missing-value way.
"""

from __future__ import annotations

from dataclasses import replace

from treegen.ensemble.ir import ENode, EnsembleIR, ETree, LeafRow, Split


def passes(node: ENode) -> bool:
    """Whether every value, known or missing, goes one way at ``node``: a numeric test
    decided (``left``/``right``) whose missing values go the same way."""
    return (
        isinstance(node, Split)
        and node.op in ("left", "right")
        and not node.zero
        and node.nan_left == (node.op == "left")
    )


def _splice(tree: ETree) -> ETree:
    """``tree`` without the tests every value passes one way, nor what they never reach."""
    nodes: list[ENode] = []
    weight: list[float] = []
    fix: list[tuple[int, int]] = []  # (new index of a split, old index of its right child)
    new_of: dict[int, int] = {}

    def through(i: int) -> int:
        while passes(tree.nodes[i]):
            node = tree.nodes[i]
            assert isinstance(node, Split)
            i = i + 1 if node.op == "left" else node.right
        return i

    todo = [through(0)]
    while todo:  # pre-order: a split's left child comes next, its right after that subtree
        i = todo.pop()
        new_of[i] = len(nodes)
        node = tree.nodes[i]
        weight += [tree.weight[i]] if tree.weight else []
        nodes.append(node)
        if isinstance(node, LeafRow):
            continue
        fix.append((new_of[i], through(node.right)))
        todo += [through(node.right), through(i + 1)]
    for at, old_right in fix:
        node = nodes[at]
        assert not isinstance(node, LeafRow)
        nodes[at] = replace(node, right=new_of[old_right])
    return ETree(tuple(nodes), tree.output, tuple(weight))


def spliced(ir: EnsembleIR) -> EnsembleIR:
    """``ir`` as its C is written (module docstring); ``ir`` itself where no test passes."""
    if not any(passes(n) for t in ir.trees for n in t.nodes):
        return ir
    pruned = [_splice(t) for t in ir.trees]
    used = sorted({n.row for t in pruned for n in t.nodes if isinstance(n, LeafRow)})
    rows = {r: k for k, r in enumerate(used)}
    trees = tuple(
        replace(
            t, nodes=tuple(LeafRow(rows[n.row]) if isinstance(n, LeafRow) else n for n in t.nodes)
        )
        for t in pruned
    )
    return replace(
        ir,
        trees=trees,
        values=tuple(ir.values[r] for r in used),
        decided=tuple(ir.decided[r] for r in used) if ir.decided else (),
    )
