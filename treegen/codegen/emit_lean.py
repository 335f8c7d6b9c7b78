"""The ``--missing none`` source view (treegen.codegen.lean's lean IR) for predict_lean.c.j2.

The lean C has no missing-value branch: the ifs style is one function per
subtree of the walk, the table style the compact table of
:func:`~treegen.codegen.lean.compact_table` with its inline top (the hot
tests as ifs before the table loop).  Literals and columns come from
treegen.codegen.emit_parts, as for the other styles.
"""

from __future__ import annotations

from treegen.codegen import layout, lean
from treegen.codegen.ctype import UINT32, smallest_uint
from treegen.codegen.emit_parts import (
    HEADER,
    c_rows,
    describe,
    int_column,
    key_bits_test,
    short,
    threshold_column,
    threshold_literal,
    value_kind,
)
from treegen.codegen.ir import IR, Compare, Leaf
from treegen.codegen.literals import c_hex32
from treegen.codegen.names import comment_text
from treegen.codegen.views import (
    CallLine,
    CloseLine,
    Function,
    IfLine,
    Lean,
    ReturnLine,
    TableLine,
    WalkLine,
)
from treegen.errors import EmitError


def _functions(
    ir: IR, lay: layout.IfsLayout, name: str, rows: dict[int, int]
) -> tuple[Function, ...]:
    """The lean ifs functions of ``lay`` (the whole tree, or the table's inline top)."""
    enc = ir.encoding
    names = [f"{ir.prefix}_{name}{k}" for k in range(len(lay.functions))]
    functions: list[Function] = []
    for k, (root, lines) in enumerate(lay.functions):
        out: list[WalkLine] = []
        for line in lines:
            node = ir.nodes[line.node]
            pad = "    " * line.indent
            if line.kind == "if":
                assert isinstance(node, Compare)
                bits, literal = "", threshold_literal(ir, node.threshold)
                if enc.uses_keys:
                    # A key threshold is above key(-inf) > 0, so lean_ir made it "le".
                    assert node.op == "le"
                    bits, b = key_bits_test(int(node.threshold))
                    literal = c_hex32(b)
                out.append(
                    IfLine(
                        "if",
                        pad,
                        node.op,
                        node.feature,
                        enc.uses_keys,
                        0,
                        _describe_test(ir, node),
                        literal,
                        bits,
                    )
                )
            elif line.kind == "return":
                assert isinstance(node, Leaf)
                out.append(
                    ReturnLine("return", pad, lean.leaf_value(ir, node), describe(ir, line.node, 0))
                )
            elif line.kind == "call":
                out.append(CallLine("call", pad, names[line.callee]))
            elif line.kind == "table":
                assert isinstance(node, Compare)
                out.append(TableLine("table", pad, rows[line.node], f"model node {node.source}"))
            else:
                assert line.kind in ("else", "end"), line.kind
                out.append(CloseLine(line.kind, pad))
        functions.append(
            Function(
                name=names[k],
                lines=tuple(out),
                trivial=isinstance(ir.nodes[root], Leaf),
                # The bit pattern of the value under test, in lean ifs with keys.
                uses_k=any(isinstance(d, IfLine) and d.bits for d in out),
                comment=f"subtree at model node {ir.nodes[root].source}"
                if k
                else ("the whole tree" if name == "walk" else "the inline top of the tree"),
            )
        )
    return tuple(functions)


def lean_view(ir: IR, style: str) -> Lean:
    """The --missing none source view (treegen.codegen.lean); ``ir`` is already lean."""
    U = ir.prefix.upper()
    enc = ir.encoding
    kind = value_kind(ir)
    leaf_ctype = smallest_uint(max(lean.n_values(ir) - 1, 0)).c_name
    if style == "ifs":
        functions = _functions(ir, layout.ifs_layout(ir), "walk", {})
        t = lean.CompactTable((0,), (0,), (0,), 0, 0)
        n_top = 0
    else:
        try:
            t = lean.compact_table(ir)
        except ValueError as exc:
            node = ir.nodes[int(str(exc))]
            raise EmitError(
                f"model node {node.source}: a test x < -FLT_MAX does not fit the "
                f"compact table; export with --style ifs"
            ) from None
        budget = (
            ir.inline_top if ir.inline_top is not None else lean.default_inline_top(len(t.code))
        )
        hot = lean.hot_tests(ir, budget)
        n_top = len(hot)
        functions = (
            _functions(ir, layout.ifs_layout(ir, inline=hot), "top", lean.table_rows(ir))
            if hot
            else ()
        )
    n_rows = len(t.code)
    code = int_column(U, list(t.code) or [0])
    return Lean(
        header_name=HEADER,
        style=style,
        value_kind=kind,
        value_ctype=(UINT32 if enc.uses_keys else enc.ctype).c_name,
        has_tests=not isinstance(ir.nodes[0], Leaf),
        n_outcomes=len(ir.outcomes),
        leaf_ctype=leaf_ctype,
        class_column=int_column(
            U, [o.cls for o in ir.outcomes], smallest_uint(max(ir.n_classes - 1, 0))
        ),
        proba_rows=c_rows(["{" + ", ".join(f"{p}u" for p in o.proba) + "}" for o in ir.outcomes]),
        uses_rdf=style == "table" and kind == "float",
        functions=functions,
        uses_bits=any(f.uses_k for f in functions),
        n_top=n_top,
        top_whole=n_top > 0 and n_top == n_rows,
        n_rows=n_rows,
        code=code,
        thr=threshold_column(ir, U, list(t.threshold) or [0]),
        kid=int_column(U, list(t.kid) or [0]),
        row_ctype=smallest_uint(max(n_rows, 1)).c_name,
        shift=t.shift,
        mask=(1 << t.shift) - 1,
        root_leaf=t.root_leaf,
    )


def _describe_test(ir: IR, node: Compare) -> str:
    """The comment beside a lean test: the feature and its cut (a nominal code's bound)."""
    f = ir.features[node.feature]
    if f.kind == "nominal":
        return comment_text(f"{f.name} code <= {int(node.cut)}")
    return comment_text(f"{f.name} <= {short(node.cut)}")
