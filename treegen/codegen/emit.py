"""IR -> {"predict.c": ..., "predict.h": ...} through one strict Jinja2 environment.

The templates (top-level ``templates/``, shipped as package ``treegen.templates``)
only loop over the view models built here; every literal, identifier and comment
text is formatted in Python (treegen.codegen.literals, treegen.codegen.names).
"""

from __future__ import annotations

import importlib.resources
from typing import Any

import jinja2
import numpy as np

from treegen.codegen import layout
from treegen.codegen.ir import IR, Compare, Leaf, Switch, validate
from treegen.codegen.literals import (
    C_TYPES,
    c_double,
    c_float,
    c_hex32,
    c_int,
    c_string,
    smallest_int,
    smallest_uint,
)
from treegen.codegen.names import comment_text
from treegen.errors import EmitError

HEADER = "predict.h"
SOURCE = "predict.c"
STYLES = ("ifs", "table")
READERS = {"uint8": "RD8", "int8": "RD8", "uint16": "RD16", "int16": "RD16",
           "uint32": "RD32", "int32": "RD32", "float": "RDF"}


def _template_loader() -> jinja2.BaseLoader:
    # importlib.resources, not a path next to __file__: it also finds the
    # templates inside a zipped or otherwise non-filesystem install.
    root = importlib.resources.files("treegen.codegen").joinpath("templates")
    return jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text("utf-8"))


def make_env() -> jinja2.Environment:
    return jinja2.Environment(loader=_template_loader(), undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              autoescape=False)


def c_rows(literals: list[str], width: int = 76) -> list[str]:
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
    return rows


class _Macros:
    """Allocates macro names, keeping every one distinct (names come from data)."""

    def __init__(self, upper: str) -> None:
        self.upper = upper
        self.used = {f"{upper}_{s}" for s in ("N_FEATURES", "N_CLASSES", "PROBA_ONE", "MISSING",
                                              "WANT_CLASS_NAMES", "ROM", "STACK_SIZE", "RD8",
                                              "RD16", "RD32", "RDF", "H")}

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
    return c_float(float(value)) if enc.input_type == "float" else c_double(float(value))


def value_kind(ir: IR) -> str:
    enc = ir.encoding
    if enc.uses_keys:
        return "key"
    if enc.is_int:
        return "unsigned" if enc.input_type.startswith("uint") else "signed"
    return enc.input_type


def _describe(ir: IR, i: int, branch: int) -> str:
    node = ir.nodes[i]
    if isinstance(node, Leaf):
        out = ir.outcomes[node.outcome]
        return comment_text(ir.classes[out.cls])
    f = ir.features[node.feature]
    if isinstance(node, Switch):
        vals = [f.values[c] for c, b in enumerate(node.branch_of) if b == branch]
        return comment_text(f"{f.name} in {{{', '.join(vals)}}}" if len(vals) != 1
                            else f"{f.name} = {vals[0]}")
    return comment_text(f"{f.name} <= {_short(node.cut)}")


def _short(t: float) -> str:
    """A threshold as people read it: shortest digits of its float32 when it is one."""
    with np.errstate(over="ignore"):  # beyond FLT_MAX: inf, which is not t, so repr(t)
        f32 = np.float32(t)
    return str(f32) if float(f32) == t else repr(t)


def _common(ir: IR) -> dict[str, Any]:
    P, U = ir.prefix, ir.prefix.upper()
    macros = _Macros(U)
    enc = ir.encoding
    features = []
    for i, f in enumerate(ir.features):
        values = [{"macro": macros.take(f.ident, v_ident), "code": c,
                   "comment": comment_text(f.values[c])} for c, v_ident in enumerate(f.value_idents)]
        features.append({"macro": macros.take("F", f.ident), "index": i,
                         "comment": comment_text(f"{f.name} ({f.kind})"), "codes": values})
    classes = [{"macro": macros.take("C", ident), "index": i, "comment": comment_text(name),
                "string": c_string(name)}
               for i, (name, ident) in enumerate(zip(ir.classes, ir.class_idents))]
    n_out = len(ir.outcomes)
    class_ctype = smallest_uint(max(ir.n_classes - 1, 0))
    outcome_ctype = smallest_uint(max(n_out - 1, 0))
    if enc.input_type == "float" or enc.input_type == "double":
        input_doc = "Missing values are NaN."
    else:
        input_doc = f"Missing values are {U}_MISSING."
    if enc.uses_keys:
        input_doc += " Compared as integer keys of the bit patterns (no float operations)."
    if enc.is_int and any(s != 1 for s in enc.scales):
        scales = ", ".join(f"{f.name}: 1/{s}" for f, s in zip(ir.features, enc.scales) if s != 1)
        input_doc += comment_text(f" Fixed point, one unit is {scales}.")
    return {
        "P": P, "U": U, "guard": f"TREEGEN_{U}_H", "header_name": HEADER,
        "provenance": [comment_text(f"{k}: {v}") for k, v in ir.provenance],
        "input_ctype": C_TYPES[enc.input_type], "input_doc": input_doc,
        "value_kind": value_kind(ir),
        "value_ctype": "uint32_t" if enc.uses_keys else C_TYPES[enc.input_type],
        "missing_literal": c_int(enc.missing, enc.input_type) if enc.missing is not None else "",
        "n_features": ir.n_features, "n_classes": ir.n_classes, "features": features,
        "classes": classes, "stack_size": ir.stack_size,
        "n_outcomes": n_out, "class_ctype": f"{class_ctype}_t",
        "class_rows": c_rows([c_int(o.cls, class_ctype) for o in ir.outcomes]),
        "class_read": f"{U}_{READERS[class_ctype]}(&{P}_class[out])",
        "proba_rows": c_rows(["{" + ", ".join(f"{p}u" for p in o.proba) + "}" for o in ir.outcomes]),
        "outcome_ctype": f"{outcome_ctype}_t",
        "has_switch": any(isinstance(n, Switch) for n in ir.nodes),
        "has_tests": not isinstance(ir.nodes[0], Leaf),
    }


def _x(ir: IR, f: int) -> str:
    return f"x[{f}]"


def _v(ir: IR, f: int, nominal: bool = False) -> str:
    """The compared value of feature f: the input, or its key (--float-compare int, and
    nominal float values, whose codes are decoded from the bits without float ops)."""
    keyed = ir.encoding.uses_keys or (nominal and ir.encoding.input_type == "float")
    return f"{ir.prefix}_key(x[{f}])" if keyed else f"x[{f}]"


def _ifs_view(ir: IR, view: dict[str, Any]) -> None:
    lay = layout.ifs_layout(ir)
    names = [f"{ir.prefix}_walk{k}" for k in range(len(lay.functions))]
    maps: list[int] = []
    map_at: dict[tuple[int, ...], int] = {}
    functions = []
    for k, (root, lines) in enumerate(lay.functions):
        out = []
        for line in lines:
            node = ir.nodes[line.node]
            d: dict[str, Any] = {"kind": line.kind, "pad": "    " * line.indent}
            if line.kind == "if":
                assert isinstance(node, Compare)
                d.update(op=node.op, x=_x(ir, node.feature), v=_v(ir, node.feature),
                         at=lay.share_offset[line.node],
                         comment=_describe(ir, line.node, 0),
                         threshold=threshold_literal(ir, node.threshold)
                         if node.op in ("le", "lt") else "")
            elif line.kind == "switch":
                assert isinstance(node, Switch)
                at: int | None = None
                if node.branch_of != tuple(range(len(node.children))):
                    m = (len(node.branch_of), len(node.children),
                         *(255 if b < 0 else b for b in node.branch_of))
                    at = map_at.setdefault(m, len(maps))
                    if at == len(maps):
                        maps.extend(m)
                d.update(x=_x(ir, node.feature), v=_v(ir, node.feature, nominal=True),
                         n_values=len(node.branch_of), map_at=at,
                         forks=len(node.children), at=lay.share_offset[line.node])
            elif line.kind in ("case", "after"):
                d.update(branch=line.branch, comment=_describe(ir, line.node, line.branch))
            elif line.kind == "return":
                assert isinstance(node, Leaf)
                d.update(outcome=node.outcome, comment=_describe(ir, line.node, 0))
            elif line.kind == "call":
                d.update(callee=names[line.callee])
            out.append(d)
        functions.append({"name": names[k], "lines": out,
                          "trivial": isinstance(ir.nodes[root], Leaf),
                          "uses_k": ir.encoding.uses_keys and any(
                              d["kind"] == "if" and d["op"] in ("le", "lt") for d in out),
                          "comment": f"subtree at model node {ir.nodes[root].source}"
                          if k else "the whole tree"})
    view.update(functions=functions, share_rows=c_rows([f"{s}u" for s in lay.shares]),
                n_shares=max(len(lay.shares), 1), has_map=bool(maps),
                map_rows=c_rows([f"{v}u" for v in maps]), n_map=max(len(maps), 1))
    if not lay.shares:
        view["share_rows"] = ["0u"]


def _column(ir: IR, U: str, values: list[int], ctype: str | None = None) -> dict[str, Any]:
    ctype = ctype or smallest_int(min(values), max(values))
    reader = f"{U}_{READERS[ctype]}"
    if ctype.startswith("int"):
        reader = f"({ctype}_t){reader}"
    return {"ctype": f"{ctype}_t", "read": reader, "rows": c_rows([c_int(v, ctype) for v in values])}


def _table_view(ir: IR, view: dict[str, Any]) -> None:
    t = layout.flatten(ir)
    U = view["U"]
    enc = ir.encoding
    rows = max(t.n_tests, 1)  # a one-leaf tree still declares (unused) one-row columns

    def pad(values: tuple[int, ...]) -> list[int]:
        return list(values) or [0]

    col = {"op": _column(ir, U, pad(t.op)), "feature": _column(ir, U, pad(t.feature)),
           "first": _column(ir, U, pad(t.first)), "ref": _column(ir, U, list(t.ref) or [t.root])}
    thresholds = list(t.threshold) or [0]
    if enc.uses_keys:
        col["threshold"] = {"ctype": "uint32_t", "read": f"{U}_RD32",
                            "rows": c_rows([c_hex32(int(v)) for v in thresholds])}
    elif enc.is_int:
        col["threshold"] = _column(ir, U, [int(v) for v in thresholds])
    elif enc.input_type == "float":
        col["threshold"] = {"ctype": "float", "read": f"{U}_RDF",
                            "rows": c_rows([c_float(float(v)) for v in thresholds])}
    else:
        col["threshold"] = {"ctype": "double", "read": "*",
                            "rows": c_rows([c_double(float(v)) for v in thresholds])}
    n_ref = t.n_tests + len(ir.outcomes)
    view.update(col=col, n_tests=t.n_tests, n_rows=rows, n_slots=max(len(t.ref), 1),
                root=t.root, ref_ctype=f"{smallest_uint(n_ref)}_t",
                share_rows=c_rows([f"{x}u" for x in t.share] or ["0u"]),
                n_shares=max(len(t.share), 1), has_map=view["has_switch"],
                map_rows=c_rows([f"{v}u" for v in t.maps]), n_map=len(t.maps))


def emit(ir: IR, style: str = "ifs", env: jinja2.Environment | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir`` in ``style`` (ifs or table)."""
    if style not in STYLES:
        raise EmitError(f"unknown style {style!r} (choose ifs or table)", option="--style")
    validate(ir)
    if len(ir.nodes) > 65535 or len(ir.outcomes) > 65535:
        raise EmitError(f"model has {len(ir.nodes)} nodes; at most 65535 can be exported")
    env = env or make_env()
    view = _common(ir)
    view["uses_rdf"] = style == "table" and view["value_kind"] == "float"
    (_ifs_view if style == "ifs" else _table_view)(ir, view)
    return {
        HEADER: env.get_template("predict.h.j2").render(view),
        SOURCE: env.get_template(f"predict_{style}.c.j2").render(view),
    }


def render_cdef(ir: IR) -> str:
    """Declarations for ``cffi.FFI.cdef``, from the IR (no preprocessor lines)."""
    P = ir.prefix
    ctype = C_TYPES[ir.encoding.input_type]
    return (f"typedef {ctype} {P}_input_t;\n"
            f"int {P}_predict(const {P}_input_t *x);\n"
            f"void {P}_predict_proba(const {P}_input_t *x, uint16_t *proba);\n")
