"""The ifs style's view (``predict_ifs.c.j2`` on ``_base.c.j2``): nested if/else and
switch, one function per subtree that would nest too deep (treegen.codegen.layout).

:func:`ifs_view` walks the layout of the IR once, turning each line into its view line
with the test's form chosen (treegen.codegen.conditions) and its comment written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from treegen.codegen import layout, view_c45
from treegen.codegen.comments import function_comment, node_comment
from treegen.codegen.conditions import ASSIGNS_K, c45_test
from treegen.codegen.ctype import FLOAT
from treegen.codegen.ir import IR, Compare, Leaf, Switch
from treegen.codegen.views import (
    BranchLine,
    CallLine,
    CloseLine,
    Function,
    IfLine,
    ReturnLine,
    SwitchLine,
    WalkLine,
)


@dataclass(frozen=True, slots=True)
class Ifs:
    functions: tuple[Function, ...]
    nan_note: bool  # float tests: say why one compare decides a known value


class IfsView(NamedTuple):
    """Everything predict_ifs.c.j2 reads besides the header."""

    source: view_c45.Source
    tables: view_c45.Tables
    walk: Ifs


def _line(ir: IR, lay: layout.IfsLayout, line: layout.Line, names: list[str]) -> WalkLine:
    node = ir.nodes[line.node]
    pad = "    " * line.indent
    if line.kind == "if":
        assert isinstance(node, Compare)
        test = c45_test(ir, node, lay.share_offset[line.node])
        return IfLine("if", pad, test, node_comment(ir, line.node, 0))
    if line.kind == "switch":
        assert isinstance(node, Switch)
        # Nominal float values are decoded from the key, without float operations.
        keyed = ir.encoding.uses_keys or ir.encoding.ctype is FLOAT
        return SwitchLine(
            "switch",
            pad,
            node.feature,
            keyed,
            len(node.branch_of),
            lay.map_offset.get(line.node),
            len(node.children),
            lay.share_offset[line.node],
        )
    if line.kind == "case" or line.kind == "after":
        return BranchLine(line.kind, pad, line.branch, node_comment(ir, line.node, line.branch))
    if line.kind == "return":
        assert isinstance(node, Leaf)
        return ReturnLine("return", pad, node.outcome, node_comment(ir, line.node, 0))
    if line.kind == "call":
        return CallLine("call", pad, names[line.callee])
    assert line.kind in ("else", "end", "default"), line.kind
    return CloseLine(line.kind, pad)


def ifs_view(ir: IR) -> IfsView:
    """predict.c of ``ir`` (C4.5's missing-value rule) in the ifs style."""
    lay = layout.ifs_layout(ir)
    names = [f"{ir.prefix}_walk{k}" for k in range(len(lay.functions))]
    functions = []
    for k, (root, lines) in enumerate(lay.functions):
        out = tuple(_line(ir, lay, line, names) for line in lines)
        functions.append(
            Function(
                name=names[k],
                lines=out,
                trivial=isinstance(ir.nodes[root], Leaf),
                uses_k=any(isinstance(d, IfLine) and d.test.form in ASSIGNS_K for d in out),
                comment=function_comment(ir, k, root, "the whole tree"),
            )
        )
    enc = ir.encoding
    return IfsView(
        view_c45.source(ir, uses_rdf=False),
        view_c45.tables(lay.shares, False, lay.maps, bool(lay.maps)),
        Ifs(tuple(functions), nan_note=not enc.is_int and not enc.uses_keys),
    )
