"""``--missing none``: a test whose branches give the same answer, folded away.

Under ``--missing none`` every input takes one path, so a test whose subtrees compute
the same function of the input can be replaced by one of them: no prediction and no
probability the C returns changes, NaN and sentinels (the none rule) included.  Two
subtrees count as the same when they are equal as trees: the same tests (feature,
comparison and threshold, or member codes) and leaves of the same value, the outcome
(class and distribution) with ``--proba``, the class alone without it.  Pruning keeps
such splits (Release 8 does; ``treegen show`` prints them), and unpruned trees have
many: two leaves of one class under a test.

Under C4.5's missing-value rule the C keeps every test: a missing value splits its
weight by the test's rounded shares, and the sum of the parts can differ from the
weight by a unit, so folding would change the fixed-point probabilities.
"""

from __future__ import annotations

from dataclasses import replace

from treegen.codegen.ir import IR, Compare, IRNode, Leaf, Member, validate
from treegen.codegen.lean import leaf_value

Key = tuple[object, ...]


def fold_identical(ir: IR) -> IR:
    """The lean ``ir`` with every test whose branches are equal subtrees replaced by
    its first branch (``IR.subtree_folds`` names the model nodes of the folded tests)."""
    assert ir.missing == "none"
    n = len(ir.nodes)
    ids: dict[Key, int] = {}
    key = [0] * n  # each node's subtree as an id: equal ids, equal subtrees
    stand_in = list(range(n))  # the node that stands for each node after folding
    folded: list[int] = []
    for i in range(n - 1, -1, -1):  # pre-order: children come after their parent
        node = ir.nodes[i]
        if isinstance(node, Leaf):
            k: Key = ("leaf", leaf_value(ir, node))
        else:
            kids = [key[c] for c in node.children]
            if len(set(kids)) == 1:
                key[i], stand_in[i] = kids[0], stand_in[node.children[0]]
                folded.append(node.source)
                continue
            assert isinstance(node, Compare | Member)
            test = (
                ("le", node.op, node.threshold)
                if isinstance(node, Compare)
                else ("in", node.codes, node.n_codes)
            )
            k = (node.feature, *test, *kids)
        key[i] = ids.setdefault(k, len(ids))
    if not folded:
        return ir
    return _rebuild(ir, stand_in, tuple(dict.fromkeys(sorted(folded))))


def _rebuild(ir: IR, stand_in: list[int], folded: tuple[int, ...]) -> IR:
    """The tree of the stand-ins, in pre-order, with only the outcomes it reaches."""
    nodes: list[IRNode] = []
    kids: dict[int, list[int]] = {}
    outcomes: dict[int, int] = {}
    work = [(stand_in[0], -1, -1)]
    while work:
        i, parent, slot = work.pop()
        me = len(nodes)
        if parent >= 0:
            kids[parent][slot] = me
        node = ir.nodes[i]
        if isinstance(node, Leaf):
            nodes.append(Leaf(outcomes.setdefault(node.outcome, len(outcomes)), node.source))
            continue
        nodes.append(node)
        kids[me] = [0, 0]
        work.append((stand_in[node.children[1]], me, 1))
        work.append((stand_in[node.children[0]], me, 0))
    out = [
        replace(n, children=(kids[k][0], kids[k][1])) if isinstance(n, Compare | Member) else n
        for k, n in enumerate(nodes)
    ]
    used = tuple(ir.outcomes[o] for o in sorted(outcomes, key=outcomes.__getitem__))
    folded_ir = replace(ir, nodes=tuple(out), outcomes=used, subtree_folds=folded)
    validate(folded_ir)
    return folded_ir
