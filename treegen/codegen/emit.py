"""IR -> {"predict.c": ..., "predict.h": ...} through one strict Jinja2 environment.

The templates (``treegen/codegen/templates``, package data) only loop over the typed
view models built here (treegen.codegen.views) and substitute them; every literal,
identifier and comment text is formatted in Python (treegen.codegen.literals,
treegen.codegen.names), every C expression is written in the templates.
"""

from __future__ import annotations

import importlib.resources

import jinja2

from treegen.codegen import layout
from treegen.codegen.ctype import FLOAT, TYPES, UINT32, smallest_uint
from treegen.codegen.emit_lean import lean_view
from treegen.codegen.emit_parts import (
    HEADER,
    SOURCE,
    c_rows,
    describe,
    int_column,
    threshold_column,
    threshold_literal,
    value_kind,
)
from treegen.codegen.ir import IR, Compare, Leaf, Switch, validate
from treegen.codegen.literals import C89_STRING_MAX, c_chars, c_hex, c_int, c_string
from treegen.codegen.names import comment_text
from treegen.codegen.views import (
    BranchLine,
    CallLine,
    ClassView,
    CloseLine,
    Code,
    Columns,
    FeatureView,
    Function,
    Header,
    IfLine,
    Ifs,
    Ops,
    ReturnLine,
    Source,
    SwitchLine,
    Table,
    Tables,
    WalkLine,
    context,
)
from treegen.errors import EmitError
from treegen.model.fixedpoint import ONE, Q15_SHIFT

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


# The macros predict.c and predict.h define or test themselves, after "PREFIX_"; a name
# made from the data must be none of them (tests/codegen/test_hostile_names.py checks the
# templates use no other).
TEMPLATE_MACROS = (
    "N_FEATURES",
    "N_CLASSES",
    "PROBA_ONE",
    "MISSING",
    "WANT_CLASS_NAMES",
    "INLINE_TOP",
    "ROM",
    "STACK_SIZE",
    "SOFT64",  # an ensemble's choice of binary64 routines (treegen.ensemble.emit)
    "N_PROBA",
    "N_SCORES",
    "N_OUTPUTS",  # a regressor's (treegen.ensemble.regress)
    *dict.fromkeys(t.reader for t in TYPES.values() if t.reader),
)


def guard_macro(upper: str) -> str:
    """predict.h's include guard for the upper-case prefix ``upper``."""
    return f"TREEGEN_{upper}_H"


class _Macros:
    """Allocates macro names, keeping every one distinct (names come from data) and apart
    from the templates' own macros and the include guard."""

    def __init__(self, upper: str) -> None:
        self.upper = upper
        self.used = {f"{upper}_{s}" for s in TEMPLATE_MACROS} | {guard_macro(upper)}

    def take(self, *parts: str) -> str:
        base = "_".join((self.upper, *parts))
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


def _class_view(prefix: str, macro: str, index: int, name: str) -> ClassView:
    """A class's macro and its entry of PREFIX_class_names: a string literal, or where the
    name is longer than C89 lets a literal be (-pedantic warns), a char array of its own."""
    if len(name.encode("utf-8")) <= C89_STRING_MAX:
        return ClassView(macro, index, comment_text(name), c_string(name), ())
    array = f"{prefix}_class_name_{index}"
    return ClassView(macro, index, comment_text(name), array, c_chars(name))


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
        _class_view(ir.prefix, macros.take("C", ident), i, name)
        for i, (name, ident) in enumerate(zip(ir.classes, ir.class_idents, strict=True))
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
        scales = ", ".join(
            f"{f.name}: 1/{s}" for f, s in zip(ir.features, enc.scales, strict=True) if s != 1
        )
        input_doc += comment_text(f" Fixed point, one unit is {scales}.")
    return Header(
        P=ir.prefix,
        U=U,
        guard=guard_macro(U),
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
        class_column=int_column(U, [o.cls for o in ir.outcomes], class_ctype),
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
            describe(ir, line.node, 0),
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
        return BranchLine(line.kind, pad, line.branch, describe(ir, line.node, line.branch))
    if line.kind == "return":
        assert isinstance(node, Leaf)
        return ReturnLine("return", pad, node.outcome, describe(ir, line.node, 0))
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


def _table(ir: IR, has_switch: bool) -> tuple[Table, Tables]:
    t = layout.flatten(ir)
    U = ir.prefix.upper()

    def pad(values: tuple[int, ...]) -> list[int]:
        return list(values) or [0]  # a one-leaf tree still declares (unused) one-row columns

    # A tree of binary tests only packs feature and op into one code (op - OP_LE in
    # the low two bits) and finds test t's slots at 2t: two columns fewer.
    code = (
        [f << 2 | (op - layout.OP_LE) for f, op in zip(t.feature, t.op, strict=True)]
        if t.binary
        else []
    )
    col = Columns(
        op=int_column(U, pad(t.op)),
        feature=int_column(U, pad(t.feature)),
        threshold=threshold_column(ir, U, list(t.threshold) or [0]),
        first=int_column(U, pad(t.first)),
        ref=int_column(U, list(t.ref) or [t.root]),
        code=int_column(U, code or [0]),
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
            SOURCE: env.get_template("predict_lean.c.j2").render(
                context(header, lean_view(ir, style))
            ),
        }
    source = _source(ir, style)
    walk, tables = _ifs(ir) if style == "ifs" else _table(ir, source.has_switch)
    return {
        HEADER: env.get_template("predict.h.j2").render(context(header)),
        SOURCE: env.get_template(f"predict_{style}.c.j2").render(
            context(header, source, tables, walk)
        ),
    }
