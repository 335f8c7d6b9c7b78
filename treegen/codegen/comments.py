"""The comment text beside generated code: which class a leaf is, which values a branch
takes, which cut a test makes, where a generated file came from.

Plain functions of the IR; each returns text already safe inside ``/* ... */``
(:func:`treegen.codegen.names.comment_text`).
"""

from __future__ import annotations

import numpy as np

from treegen.codegen.ir import IR, Compare, Leaf, Member, Switch
from treegen.codegen.names import comment_text


def short(t: float) -> str:
    """A threshold as people read it: shortest digits of its float32 when it is one."""
    with np.errstate(over="ignore"):  # beyond FLT_MAX: inf, which is not t, so repr(t)
        f32 = np.float32(t)
    return str(f32) if float(f32) == t else repr(t)


def node_comment(ir: IR, i: int, branch: int) -> str:
    """The comment beside node ``i``'s ``branch``: its class, value set or cut."""
    node = ir.nodes[i]
    if isinstance(node, Leaf):
        out = ir.outcomes[node.outcome]
        return comment_text(ir.classes[out.cls])
    f = ir.features[node.feature]
    if isinstance(node, Switch):
        vals = [f.values[c] for c, b in enumerate(node.branch_of) if b == branch]
        return comment_text(
            f"{f.name} in {{{', '.join(vals)}}}" if len(vals) != 1 else f"{f.name} = {vals[0]}"
        )
    if isinstance(node, Member):
        return lean_test_comment(ir, node)
    return comment_text(f"{f.name} <= {short(node.cut)}")


def lean_test_comment(ir: IR, node: Compare | Member) -> str:
    """The comment beside a lean test: the feature and its cut (a nominal code's bound),
    or the values whose codes a member test sends left."""
    f = ir.features[node.feature]
    if isinstance(node, Member):
        return comment_text(f"{f.name} in {{{', '.join(f.values[c] for c in node.codes)}}}")
    if f.kind == "nominal":
        return comment_text(f"{f.name} code <= {int(node.cut)}")
    return comment_text(f"{f.name} <= {short(node.cut)}")


def function_comment(ir: IR, k: int, root: int, first: str) -> str:
    """The comment above walk function ``k`` (rooted at IR node ``root``): ``first``
    for the first, else which subtree it walks."""
    return f"subtree at model node {ir.nodes[root].source}" if k else first


def provenance_lines(ir: IR) -> tuple[str, ...]:
    """The header comment's lines: where the generated files came from."""
    return tuple(comment_text(f"{k}: {v}") for k, v in ir.provenance)
