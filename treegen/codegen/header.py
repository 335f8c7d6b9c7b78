"""predict.h's view: the input type, the feature, code and class macros, the API.

Every tree emitter and the ruleset's use the same header (``templates/predict.h.j2``);
the macro names come from the data, so :class:`Macros` keeps each one distinct and
apart from the macros the templates define themselves (:data:`TEMPLATE_MACROS`).
"""

from __future__ import annotations

from fractions import Fraction

from treegen.codegen.comments import provenance_lines
from treegen.codegen.ctype import TYPES
from treegen.codegen.ir import IR, Feature
from treegen.codegen.literals import C89_STRING_MAX, c_chars, c_int, c_string
from treegen.codegen.names import comment_text
from treegen.codegen.views import ClassView, Code, FeatureView, Header
from treegen.model.fixedpoint import ONE

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
    "SOFT64",  # an ensemble's choice of binary64 routines (treegen.ensemble.view_common)
    "N_PROBA",
    "N_SCORES",
    "N_OUTPUTS",  # a regressor's (treegen.ensemble.regress)
    "NOINLINE",  # the ifs style's per-tree functions (treegen.ensemble.view_ifs)
    "F64_NOINLINE",  # add_pos kept out of line (treegen.codegen.f64, add_once)
    "SEL",  # the ifs style's select expressions (treegen.ensemble.branchfree)
    "BRANCHFREE",  # whether SEL is a mask (x86 and AArch64 hosts) or ?:
    "FLOATCMP",  # one tree's ifs compares float inputs on hosts (view_ifs.host_floats)
    "LE",  # a key walk's test, on keys or on the float (FLOATCMP)
    "EARLY",  # a forest's class before its last tree (treegen.ensemble.early)
    *dict.fromkeys(t.reader for t in TYPES.values() if t.reader),
)


def guard_macro(upper: str) -> str:
    """predict.h's include guard for the upper-case prefix ``upper``."""
    return f"TREEGEN_{upper}_H"


class Macros:
    """Allocates macro names, keeping every one distinct (names come from data) and apart
    from the templates' own macros and the include guard."""

    def __init__(self, upper: str) -> None:
        self.upper = upper
        self.used = {f"{upper}_{s}" for s in TEMPLATE_MACROS} | {guard_macro(upper)}

    def take(self, *parts: str) -> str:
        base = "_".join((self.upper, *parts))
        name, n = _cut(base, ""), 1
        while name in self.used:
            n += 1
            name = _cut(base, f"_{n}")
        self.used.add(name)
        return name


# C99 promises 63 significant initial characters of a macro name (names from data can be
# longer, and two that differ only beyond them would be the same macro there).
MACRO_CHARS = 63


def _cut(base: str, suffix: str) -> str:
    """``base`` + ``suffix`` within MACRO_CHARS: ``base`` shortened as needed, and no
    '_' left at the cut (that would make a reserved '__')."""
    if len(base) + len(suffix) <= MACRO_CHARS:
        return base + suffix
    return base[: MACRO_CHARS - len(suffix)].rstrip("_") + suffix


def class_view(prefix: str, macro: str, index: int, name: str) -> ClassView:
    """A class's macro and its entry of PREFIX_class_names: a string literal, or where the
    name is longer than C89 lets a literal be (-pedantic warns), a char array of its own."""
    if len(name.encode("utf-8")) <= C89_STRING_MAX:
        return ClassView(macro, index, comment_text(name), c_string(name), ())
    array = f"{prefix}_class_name_{index}"
    return ClassView(macro, index, comment_text(name), array, c_chars(name))


def _input_doc(ir: IR, U: str) -> str:
    """The comment on PREFIX_input_t: how a missing value is given, how it is compared."""
    enc = ir.encoding
    if ir.missing == "none":
        doc = "No missing values (see below)."
    elif not enc.is_int:
        doc = "Missing values are NaN."
    else:
        doc = f"Missing values are {U}_MISSING."
    if enc.uses_keys:
        doc += " Compared as integer keys of the bit patterns (no float operations)."
    scales = enc.scales if enc.is_int else ()
    scaled = [(f, k) for f, k in zip(ir.features, scales, strict=False) if _is_scaled(f, k)]
    if scaled:
        units = ", ".join(f"{f.name}: 1/{k}" for f, k in scaled)
        nominal = any(f.kind == "nominal" for f in ir.features)
        note = " (nominal codes are not scaled)" if nominal else ""
        doc += comment_text(f" Fixed point, one unit is {units}{note}.")
    return doc


def _is_scaled(f: Feature, k: Fraction) -> bool:
    """Whether x[f] holds a continuous value times K != 1 (a nominal feature holds its
    code whatever --scale says)."""
    return f.kind == "continuous" and k != 1


MAX_CODES_INLINE = 8
"""A nominal feature with at most this many values lists its codes beside its index."""


def _feature_comment(f: Feature, k: Fraction | None, scaled: bool) -> str:
    """The comment beside a feature's index: its kind, and what x[i] holds: a scaled
    value's unit, a nominal feature's codes (which code is which value; where other
    features are scaled, that the codes are not)."""
    if f.kind == "nominal":
        if len(f.values) <= MAX_CODES_INLINE:
            codes = ", ".join(f"{c} = {v}" for c, v in enumerate(f.values))
        else:
            codes = f"0 .. {len(f.values) - 1}, listed below"
        return comment_text(
            f"{f.name} (nominal, {'codes not scaled' if scaled else 'codes'}: {codes})"
        )
    if k is not None and _is_scaled(f, k):
        return comment_text(f"{f.name} ({f.kind}, fixed point: x is {f.name} * {k})")
    return comment_text(f"{f.name} ({f.kind})")


def header_view(ir: IR, safety: tuple[str, ...] = ()) -> Header:
    """predict.h's view of ``ir`` (a tree's, or a ruleset's frame), with ``safety``,
    the paragraph on calling predict (treegen.codegen.costs)."""
    U = ir.prefix.upper()
    enc = ir.encoding
    macros = Macros(U)
    scaled = enc.is_int and any(
        _is_scaled(f, k) for f, k in zip(ir.features, enc.scales, strict=True)
    )
    features = []
    for i, f in enumerate(ir.features):
        # The value macros are taken before the feature's own (names depend on the order).
        codes = tuple(
            Code(macros.take(f.ident, v_ident), c, comment_text(f.values[c]))
            for c, v_ident in enumerate(f.value_idents)
        )
        k = enc.scales[i] if enc.is_int else None
        comment = _feature_comment(f, k, scaled)
        features.append(
            FeatureView(
                macros.take("F", f.ident),
                i,
                comment,
                codes,
                comment_text(f"{f.name} (not scaled)" if scaled else f.name),
            )
        )
    classes = tuple(
        class_view(ir.prefix, macros.take("C", ident), i, name)
        for i, (name, ident) in enumerate(zip(ir.classes, ir.class_idents, strict=True))
    )
    return Header(
        P=ir.prefix,
        U=U,
        guard=guard_macro(U),
        provenance=provenance_lines(ir),
        input_ctype=enc.ctype.c_name,
        input_doc=_input_doc(ir, U),
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
        other_code="takes the rule above" if ir.missing == "none" else "counts as missing",
        safety=tuple(comment_text(line) for line in safety),
    )
