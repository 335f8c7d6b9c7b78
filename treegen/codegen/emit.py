"""IR -> {"predict.c": ..., "predict.h": ...} through one strict Jinja2 environment.

The templates (``treegen/codegen/templates``, package data) only loop over the typed
view models built here (treegen.codegen.views) and substitute them; every literal,
identifier and comment text is formatted in Python (treegen.codegen.literals,
treegen.codegen.names), every C expression is written in the templates.
"""

from __future__ import annotations

import importlib.resources

import jinja2
import numpy as np

from treegen.codegen import layout, lean
from treegen.codegen.ctype import FLOAT, TYPES, UINT32, CType, smallest_int, smallest_uint
from treegen.codegen.ir import IR, ONE, Q15_SHIFT, Compare, Leaf, Switch, validate
from treegen.codegen.literals import c_double, c_float, c_hex, c_hex32, c_int, c_string
from treegen.codegen.names import comment_text
from treegen.codegen.views import (
    BranchLine,
    CallLine,
    ClassView,
    CloseLine,
    Code,
    Column,
    Columns,
    FeatureView,
    Function,
    Header,
    IfLine,
    Ifs,
    Lean,
    Ops,
    ReturnLine,
    Source,
    SwitchLine,
    Table,
    TableLine,
    Tables,
    ValueKind,
    WalkLine,
    context,
)
from treegen.errors import EmitError

HEADER = "predict.h"
SOURCE = "predict.c"
STYLES = ("ifs", "table")


def _template_loader() -> jinja2.BaseLoader:
    # importlib.resources, not a path next to __file__: it also finds the
    # templates inside a zipped or otherwise non-filesystem install.
    root = importlib.resources.files("treegen.codegen").joinpath("templates")
    return jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text("utf-8"))


def make_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=_template_loader(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def c_rows(literals: list[str], width: int = 76) -> tuple[str, ...]:
    """Comma-separated literals wrapped to ``width`` columns."""
    rows: list[str] = []
    line = ""
    for i, lit in enumerate(literals):
        item = lit + ("," if i < len(literals) - 1 else "")
        if line and len(line) + 1 + len(item) > width:
            rows.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    if line:
        rows.append(line)
    return tuple(rows)


class _Macros:
    """Allocates macro names, keeping every one distinct (names come from data)."""

    def __init__(self, upper: str) -> None:
        self.upper = upper
        fixed = (
            "N_FEATURES",
            "N_CLASSES",
            "PROBA_ONE",
            "MISSING",
            "WANT_CLASS_NAMES",
            "ROM",
            "STACK_SIZE",
            "H",
            *(t.reader for t in TYPES.values() if t.reader),
        )
        self.used = {f"{upper}_{s}" for s in fixed}

    def take(self, *parts: str) -> str:
        base = "_".join((self.upper, *parts))
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


def threshold_literal(ir: IR, value: float) -> str:
    enc = ir.encoding
    if enc.uses_keys:
        return c_hex32(int(value))
    if enc.is_int:
        return c_int(int(value), enc.input_type)
    return c_float(float(value)) if enc.ctype is FLOAT else c_double(float(value))


NEG_INF_BITS = 0xFF800000  # -inf's bit pattern; above it are the negative NaNs


def key_bits_test(key: int) -> tuple[str, int]:
    """The lean ifs style's form of the key test ``key(x) <= key``, as a compare of
    x's bit pattern u (uint32) with the threshold's bits b, so the C needs no key
    function (a call on the AVR at -Os): ``("pos", b)`` for a threshold t >= +0,
    tested as ``u <= b || (u >= 0x80000000 && u <= NEG_INF_BITS)`` (x <= t, or x
    negative and not NaN); ``("neg", b)`` for t < +0, tested as ``u >= b && u <=
    NEG_INF_BITS`` (x negative, at least as far below 0 as t, and not NaN).  NaN of
    either sign fails both, as the none rule wants (its key is above every
    threshold); -0.0 keys just below +0.0, as in treegen.codegen.oracle.float_keys."""
    # Thresholds are keys of non-NaN floats: key(-inf) = 0x007FFFFF .. key(+inf).
    assert 0x007FFFFF <= key <= 0xFF800000, hex(key)
    if key >= 0x80000000:
        return "pos", key & 0x7FFFFFFF
    return "neg", ~key & 0xFFFFFFFF


def value_kind(ir: IR) -> ValueKind:
    enc = ir.encoding
    if enc.uses_keys:
        return "key"
    if enc.is_int:
        return "signed" if enc.ctype.signed else "unsigned"
    return "float" if enc.ctype is FLOAT else "double"


def _describe(ir: IR, i: int, branch: int) -> str:
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
    return comment_text(f"{f.name} <= {_short(node.cut)}")


def _short(t: float) -> str:
    """A threshold as people read it: shortest digits of its float32 when it is one."""
    with np.errstate(over="ignore"):  # beyond FLT_MAX: inf, which is not t, so repr(t)
        f32 = np.float32(t)
    return str(f32) if float(f32) == t else repr(t)


def _column(U: str, ctype: CType, rows: tuple[str, ...]) -> Column:
    # pgm_read_* returns the bits of a signed type as unsigned: the template casts back.
    return Column(
        ctype.c_name,
        f"{U}_{ctype.reader}" if ctype.reader else "",
        ctype.is_int and ctype.signed,
        rows,
    )


def _int_column(U: str, values: list[int], ctype: CType | None = None) -> Column:
    """A column of integers in ``ctype``, by default the narrowest type holding them."""
    ctype = ctype or smallest_int(min(values), max(values))
    return _column(U, ctype, c_rows([c_int(v, ctype.name) for v in values]))


def _header(ir: IR) -> Header:
    U = ir.prefix.upper()
    enc = ir.encoding
    macros = _Macros(U)
    features = []
    for i, f in enumerate(ir.features):
        # The value macros are taken before the feature's own (names depend on the order).
        codes = tuple(
            Code(macros.take(f.ident, v_ident), c, comment_text(f.values[c]))
            for c, v_ident in enumerate(f.value_idents)
        )
        features.append(
            FeatureView(macros.take("F", f.ident), i, comment_text(f"{f.name} ({f.kind})"), codes)
        )
    classes = tuple(
        ClassView(macros.take("C", ident), i, comment_text(name), c_string(name))
        for i, (name, ident) in enumerate(zip(ir.classes, ir.class_idents))
    )
    if ir.missing == "none":
        input_doc = "No missing values (see below)."
    elif not enc.is_int:
        input_doc = "Missing values are NaN."
    else:
        input_doc = f"Missing values are {U}_MISSING."
    if enc.uses_keys:
        input_doc += " Compared as integer keys of the bit patterns (no float operations)."
    if enc.is_int and any(s != 1 for s in enc.scales):
        scales = ", ".join(f"{f.name}: 1/{s}" for f, s in zip(ir.features, enc.scales) if s != 1)
        input_doc += comment_text(f" Fixed point, one unit is {scales}.")
    return Header(
        P=ir.prefix,
        U=U,
        guard=f"TREEGEN_{U}_H",
        provenance=tuple(comment_text(f"{k}: {v}") for k, v in ir.provenance),
        input_ctype=enc.ctype.c_name,
        input_doc=input_doc,
        missing_literal=(
            c_int(enc.missing, enc.input_type)
            if enc.missing is not None and ir.missing == "c45"
            else ""
        ),
        n_features=ir.n_features,
        n_classes=ir.n_classes,
        one=ONE,
        features=tuple(features),
        classes=classes,
        lean=ir.missing == "none",
        proba=ir.proba,
    )


def header_view(ir: IR) -> Header:
    """predict.h's view of ``ir`` (also the ruleset emitter's, treegen.codegen.rules)."""
    return _header(ir)


def _source(ir: IR, style: str) -> Source:
    U = ir.prefix.upper()
    enc = ir.encoding
    kind = value_kind(ir)
    class_ctype = smallest_uint(max(ir.n_classes - 1, 0))
    return Source(
        header_name=HEADER,
        value_kind=kind,
        value_ctype=(UINT32 if enc.uses_keys else enc.ctype).c_name,
        stack_size=ir.stack_size,
        n_outcomes=len(ir.outcomes),
        outcome_ctype=smallest_uint(max(len(ir.outcomes) - 1, 0)).c_name,
        class_column=_int_column(U, [o.cls for o in ir.outcomes], class_ctype),
        proba_rows=c_rows(["{" + ", ".join(f"{p}u" for p in o.proba) + "}" for o in ir.outcomes]),
        one_literal=c_hex(ONE),
        q15_shift=Q15_SHIFT,
        has_tests=not isinstance(ir.nodes[0], Leaf),
        has_switch=any(isinstance(n, Switch) for n in ir.nodes),
        # Only the table style reads float thresholds from a table.
        uses_rdf=style == "table" and kind == "float",
        map_none=layout.MAP_NONE,
    )


def _ifs_line(ir: IR, lay: layout.IfsLayout, line: layout.Line, names: list[str]) -> WalkLine:
    node = ir.nodes[line.node]
    pad = "    " * line.indent
    if line.kind == "if":
        assert isinstance(node, Compare)
        return IfLine(
            "if",
            pad,
            node.op,
            node.feature,
            ir.encoding.uses_keys,
            lay.share_offset[line.node],
            _describe(ir, line.node, 0),
            threshold_literal(ir, node.threshold) if node.op in ("le", "lt") else "",
        )
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
        return BranchLine(line.kind, pad, line.branch, _describe(ir, line.node, line.branch))
    if line.kind == "return":
        assert isinstance(node, Leaf)
        return ReturnLine("return", pad, node.outcome, _describe(ir, line.node, 0))
    if line.kind == "call":
        return CallLine("call", pad, names[line.callee])
    assert line.kind == "else" or line.kind == "end", line.kind
    return CloseLine(line.kind, pad)


def _ifs(ir: IR) -> tuple[Ifs, Tables]:
    lay = layout.ifs_layout(ir)
    names = [f"{ir.prefix}_walk{k}" for k in range(len(lay.functions))]
    functions = []
    for k, (root, lines) in enumerate(lay.functions):
        out = tuple(_ifs_line(ir, lay, line, names) for line in lines)
        functions.append(
            Function(
                name=names[k],
                lines=out,
                trivial=isinstance(ir.nodes[root], Leaf),
                uses_k=ir.encoding.uses_keys
                and any(isinstance(d, IfLine) and d.op in ("le", "lt") for d in out),
                comment=f"subtree at model node {ir.nodes[root].source}" if k else "the whole tree",
            )
        )
    tables = Tables(
        share_rows=c_rows([f"{s}u" for s in lay.shares]) or ("0u",),
        n_shares=max(len(lay.shares), 1),
        paired_shares=False,
        pair_carry=c_hex(layout.PAIR_CARRY),
        pair_mask=c_hex(layout.PAIR_CARRY - 1),
        has_map=bool(lay.maps),
        map_rows=c_rows([f"{v}u" for v in lay.maps]),
        n_map=max(len(lay.maps), 1),
    )
    return Ifs(tuple(functions)), tables


def _threshold_column(ir: IR, U: str, thresholds: list[int | float]) -> Column:
    enc = ir.encoding
    if enc.uses_keys:
        return _column(U, UINT32, c_rows([c_hex32(int(v)) for v in thresholds]))
    if enc.is_int:
        return _int_column(U, [int(v) for v in thresholds])
    literal = c_float if enc.ctype is FLOAT else c_double
    return _column(U, enc.ctype, c_rows([literal(float(v)) for v in thresholds]))


def _table(ir: IR, has_switch: bool) -> tuple[Table, Tables]:
    t = layout.flatten(ir)
    U = ir.prefix.upper()

    def pad(values: tuple[int, ...]) -> list[int]:
        return list(values) or [0]  # a one-leaf tree still declares (unused) one-row columns

    # A tree of binary tests only packs feature and op into one code (op - OP_LE in
    # the low two bits) and finds test t's slots at 2t: two columns fewer.
    code = [f << 2 | (op - layout.OP_LE) for f, op in zip(t.feature, t.op)] if t.binary else []
    col = Columns(
        op=_int_column(U, pad(t.op)),
        feature=_int_column(U, pad(t.feature)),
        threshold=_threshold_column(ir, U, list(t.threshold) or [0]),
        first=_int_column(U, pad(t.first)),
        ref=_int_column(U, list(t.ref) or [t.root]),
        code=_int_column(U, code or [0]),
    )
    base = layout.OP_LE if t.binary else 0
    ops = Ops(
        le=layout.OP_LE - base,
        lt=layout.OP_LT - base,
        left=layout.OP_LEFT - base,
        right=layout.OP_RIGHT - base,
        switch=layout.OP_SWITCH - base,
    )
    n_ref = t.n_tests + len(ir.outcomes)
    table = Table(
        col=col,
        ops=ops,
        n_tests=t.n_tests,
        n_rows=max(t.n_tests, 1),
        n_slots=max(len(t.ref), 1),
        root=t.root,
        ref_ctype=smallest_uint(n_ref).c_name,
        binary=t.binary,
    )
    paired = layout.paired_shares(t)
    shares = paired if paired is not None else t.share
    tables = Tables(
        share_rows=c_rows([f"{x}u" for x in shares] or ["0u"]),
        n_shares=max(len(shares), 1),
        paired_shares=paired is not None,
        pair_carry=c_hex(layout.PAIR_CARRY),
        pair_mask=c_hex(layout.PAIR_CARRY - 1),
        has_map=has_switch,
        map_rows=c_rows([f"{v}u" for v in t.maps]),
        n_map=len(t.maps),
    )
    return table, tables


def _lean_functions(
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
                        _lean_describe(ir, node),
                        literal,
                        bits,
                    )
                )
            elif line.kind == "return":
                assert isinstance(node, Leaf)
                out.append(
                    ReturnLine(
                        "return", pad, lean.leaf_value(ir, node), _describe(ir, line.node, 0)
                    )
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


def _lean(ir: IR, style: str) -> Lean:
    """The --missing none source view (treegen.codegen.lean); ``ir`` is already lean."""
    U = ir.prefix.upper()
    enc = ir.encoding
    kind = value_kind(ir)
    leaf_ctype = smallest_uint(max(lean.n_values(ir) - 1, 0)).c_name
    if style == "ifs":
        functions = _lean_functions(ir, layout.ifs_layout(ir), "walk", {})
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
            _lean_functions(ir, layout.ifs_layout(ir, inline=hot), "top", lean.table_rows(ir))
            if hot
            else ()
        )
    n_rows = len(t.code)
    code = _int_column(U, list(t.code) or [0])
    return Lean(
        header_name=HEADER,
        style=style,
        value_kind=kind,
        value_ctype=(UINT32 if enc.uses_keys else enc.ctype).c_name,
        has_tests=not isinstance(ir.nodes[0], Leaf),
        n_outcomes=len(ir.outcomes),
        leaf_ctype=leaf_ctype,
        class_column=_int_column(
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
        thr=_threshold_column(ir, U, list(t.threshold) or [0]),
        kid=_int_column(U, list(t.kid) or [0]),
        row_ctype=smallest_uint(max(n_rows, 1)).c_name,
        shift=t.shift,
        mask=(1 << t.shift) - 1,
        root_leaf=t.root_leaf,
    )


def _lean_describe(ir: IR, node: Compare) -> str:
    f = ir.features[node.feature]
    if f.kind == "nominal":
        return comment_text(f"{f.name} code <= {int(node.cut)}")
    return comment_text(f"{f.name} <= {_short(node.cut)}")


def emit(ir: IR, style: str = "ifs", env: jinja2.Environment | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir`` in ``style`` (ifs or table)."""
    if style not in STYLES:
        raise EmitError(f"unknown style {style!r} (choose ifs or table)", option="--style")
    validate(ir)
    if len(ir.nodes) > 65535 or len(ir.outcomes) > 65535:
        raise EmitError(f"model has {len(ir.nodes)} nodes; at most 65535 can be exported")
    env = env or make_env()
    header = _header(ir)
    if ir.missing == "none":
        return {
            HEADER: env.get_template("predict.h.j2").render(context(header)),
            SOURCE: env.get_template("predict_lean.c.j2").render(context(header, _lean(ir, style))),
        }
    source = _source(ir, style)
    walk, tables = _ifs(ir) if style == "ifs" else _table(ir, source.has_switch)
    return {
        HEADER: env.get_template("predict.h.j2").render(context(header)),
        SOURCE: env.get_template(f"predict_{style}.c.j2").render(
            context(header, source, tables, walk)
        ),
    }


def render_cdef(ir: IR) -> str:
    """Declarations for ``cffi.FFI.cdef``, from the IR (no preprocessor lines)."""
    P = ir.prefix
    ctype = ir.encoding.ctype.c_name
    return f"typedef {ctype} {P}_input_t;\nint {P}_predict(const {P}_input_t *x);\n" + (
        f"void {P}_predict_proba(const {P}_input_t *x, uint16_t *proba);\n" if ir.proba else ""
    )
