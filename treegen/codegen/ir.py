"""The code-generation IR: a tree whose comparisons are already encoded for one C input type.

``lower()`` (treegen.codegen.lower) builds an :class:`IR` from a Model; both C back-ends
(nested ifs, node table) and the numpy oracle (treegen.codegen.oracle) read only this.
Nodes are a flat tuple, root at 0, children referenced by index, so no pass recurses.

Values in the IR are already in the C domain:

* ``Compare.threshold`` is a float32 value (input type float), a float64 value
  (double), an integer of the input type (integer types, after ``--scale``), or
  an unsigned 32-bit order key (``--float-compare int``).
* ``shares`` are Q31 fixed-point integers (``W_ONE`` = 1.0), ``Outcome.proba`` Q15
  (``ONE`` = 1.0); treegen.model.fixedpoint holds the rules that produce them.

:func:`validate` states the invariants once; lower() calls it before returning and
emit() calls it again before rendering.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from treegen.codegen.ctype import TYPES, UINT32, CType
from treegen.codegen.options import MissingRule
from treegen.errors import EmitError
from treegen.model.fixedpoint import ONE, W_ONE

CompareOp = Literal["le", "lt", "left", "right"]
"""``le``: x <= t; ``lt``: x < t; ``left``/``right``: every known value goes that way
(a test folded over the type's range; a missing value still splits the weight)."""


@dataclass(frozen=True, slots=True)
class Encoding:
    """How feature values reach the C code and how they are compared."""

    input_type: str
    float_compare: Literal["float", "int"] = "float"
    missing: int | None = None  # sentinel for integer input types
    scales: tuple[Fraction, ...] = ()  # per feature; integer x means x / scale

    @property
    def ctype(self) -> CType:
        return TYPES[self.input_type]

    @property
    def is_int(self) -> bool:
        return self.ctype.is_int

    @property
    def uses_keys(self) -> bool:
        """Float inputs compared as unsigned order keys of their bit patterns."""
        return self.input_type == "float" and self.float_compare == "int"

    @property
    def int_range(self) -> tuple[int, int]:
        return self.ctype.range


@dataclass(frozen=True, slots=True)
class Feature:
    name: str  # the model's attribute name (for comments)
    ident: str  # sanitized C identifier part (unique)
    kind: Literal["continuous", "nominal", "ignore"]
    values: tuple[str, ...] = ()
    value_idents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a leaf contributes: its class when reached with no missing value, and its
    quantized distribution (sum <= ONE) added with the case weight otherwise."""

    cls: int
    proba: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Leaf:
    outcome: int
    source: int  # model node index (for comments and error messages)


@dataclass(frozen=True, slots=True)
class Compare:
    feature: int
    op: CompareOp
    threshold: int | float
    shares: tuple[int, int]
    children: tuple[int, int]
    source: int
    cut: float  # the model's threshold (comments only)


@dataclass(frozen=True, slots=True)
class Switch:
    """Nominal (or subset) test: value code c goes to branch ``branch_of[c]``; a code
    outside 0..len(branch_of)-1, or one mapped to -1, is missing."""

    feature: int
    branch_of: tuple[int, ...]
    shares: tuple[int, ...]
    children: tuple[int, ...]
    source: int


@dataclass(frozen=True, slots=True)
class Member:
    """A nominal test as one binary test, under ``--missing none`` only
    (treegen.codegen.lean): the value's code by the none rule (the smallest code c
    with x <= c, else the last) goes left when it is one of ``codes``, else right."""

    feature: int
    n_codes: int  # k, the feature's codes 0..k-1
    codes: tuple[int, ...]  # the codes that go left, ascending
    shares: tuple[int, int]  # training shares (only the inline top's choice reads them)
    children: tuple[int, int]
    source: int


IRNode = Leaf | Compare | Switch | Member


@dataclass(frozen=True, slots=True)
class Fold:
    """A model test with a finite threshold that every value of the input type passes
    the same way (a threshold outside the type's range, after ``--scale``): the C has no
    comparison there, every known value takes ``side``."""

    source: int  # model node
    feature: int
    threshold: float  # the model's
    cut: int | float  # the threshold in the C domain (x <= cut), beyond the type's values
    side: Literal["left", "right"]


@dataclass(frozen=True, slots=True)
class ProbaApi:
    """The vector a model's C writes per row besides its class (treegen.verify.build):
    ``void PREFIX_<name>(const PREFIX_input_t *x, <ctype> *out)``, ``out[n]``: a tree's
    fixed-point ``predict_proba``, an ensemble's ``predict_proba`` or
    ``decision_function`` in double.  A regressor's (``values``) is ``predict_bits``:
    the binary64 bits of its ``n // 2`` outputs as uint32 words, high word first, and
    its ``PREFIX_predict`` writes the outputs as doubles instead of returning a class."""

    name: str
    ctype: str
    n: int
    values: bool = False


@dataclass(frozen=True, slots=True)
class IR:
    prefix: str
    encoding: Encoding
    features: tuple[Feature, ...]
    classes: tuple[str, ...]
    class_idents: tuple[str, ...]
    nodes: tuple[IRNode, ...]
    outcomes: tuple[Outcome, ...]
    stack_size: int  # most tests on one root-to-leaf path (missing-value replay stack)
    provenance: tuple[tuple[str, str], ...] = ()
    missing: MissingRule = "c45"
    proba: bool = True  # predict_proba and the distribution tables are exported
    # Lean table: how many tests run as inline ifs before the table (None: the default
    # of treegen.codegen.lean.default_inline_top).
    inline_top: int | None = None
    folds: tuple[Fold, ...] = ()  # tests folded to a constant branch (export notes)
    depth: int = 0  # the model's depth: tests on its longest path (export --report)
    stem: str = "predict"  # the files are STEM.c and STEM.h (ExportOptions.name)
    # --missing none: model nodes of the tests whose equal branches were folded away
    # (treegen.codegen.fold).
    subtree_folds: tuple[int, ...] = ()

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def proba_api(self) -> ProbaApi | None:
        """``PREFIX_predict_proba``'s fixed-point probabilities, when exported."""
        return ProbaApi("predict_proba", "uint16_t", self.n_classes) if self.proba else None


class Framed:
    """The C interface's fields (treegen.verify.build.CApi) of an IR built around a
    ``frame``: a one-leaf tree's IR on the same schema and options, which holds the
    encoding, features, classes, prefix and provenance that predict.h is written from
    (a ruleset's IR, an ensemble's)."""

    __slots__ = ()
    frame: IR

    @property
    def prefix(self) -> str:
        return self.frame.prefix

    @property
    def encoding(self) -> Encoding:
        return self.frame.encoding

    @property
    def features(self) -> tuple[Feature, ...]:
        return self.frame.features

    @property
    def n_features(self) -> int:
        return self.frame.n_features

    @property
    def n_classes(self) -> int:
        return self.frame.n_classes


# The most values a tested nominal attribute may have: the C keeps a branch index in a
# uint8_t (the missing-value replay stack, the table style's maps, where 255 means "no
# branch") and a map's value count in one byte.  A switch on more values would also
# approach C99's 1023 case labels per switch in the ifs style.
MAX_SWITCH_VALUES = 255


def _fail(i: int, msg: str) -> EmitError:
    return EmitError(f"IR node {i}: {msg}")


def _check_threshold(i: int, node: Compare, enc: Encoding) -> None:
    t = node.threshold
    if enc.is_int or enc.uses_keys:
        lo, hi = enc.int_range if enc.is_int else UINT32.range
        if not isinstance(t, int) or not lo <= t <= hi:
            raise _fail(i, f"threshold {t!r} does not fit {enc.input_type}")
    elif not isinstance(t, float) or not math.isfinite(t):
        raise _fail(i, f"threshold {t!r} is not a finite float")


def _check_member(i: int, node: Member, ir: IR) -> None:
    f = ir.features[node.feature]
    if ir.missing != "none" or f.kind != "nominal" or node.n_codes != len(f.values):
        raise _fail(i, "a member test needs --missing none and a nominal feature's codes")
    if list(node.codes) != sorted(set(node.codes)) or not node.codes:
        raise _fail(i, "member codes must be distinct, ascending and not empty")
    if node.codes[0] < 0 or node.codes[-1] >= node.n_codes or node.n_codes > MAX_SWITCH_VALUES:
        raise _fail(i, "member code out of range")


def validate(ir: IR) -> None:
    """Raise EmitError unless every node is reachable once, references exist,
    features are in range, thresholds fit the type and fixed-point sums stay <= 1.0."""
    n = len(ir.nodes)
    parents = [0] * n
    for i, node in enumerate(ir.nodes):
        if isinstance(node, Leaf):
            if not 0 <= node.outcome < len(ir.outcomes):
                raise _fail(i, f"outcome {node.outcome} out of range")
            continue
        if not 0 <= node.feature < ir.n_features:
            raise _fail(i, f"feature {node.feature} out of range")
        if len(node.shares) != len(node.children) or sum(node.shares) > W_ONE:
            raise _fail(i, "branch shares do not match children or sum above W_ONE")
        if any(s < 0 for s in node.shares):
            raise _fail(i, "negative branch share")
        if isinstance(node, Compare):
            if node.op in ("le", "lt"):
                _check_threshold(i, node, ir.encoding)
        elif isinstance(node, Member):
            _check_member(i, node, ir)
        else:
            if ir.features[node.feature].kind != "nominal":
                raise _fail(i, "switch on a non-nominal feature")
            if any(not -1 <= b < len(node.children) for b in node.branch_of):
                raise _fail(i, "branch map out of range")
            if len(node.children) > MAX_SWITCH_VALUES or len(node.branch_of) > MAX_SWITCH_VALUES:
                raise _fail(i, f"more than {MAX_SWITCH_VALUES} branches or values")
        for c in node.children:
            if not 0 < c < n:
                raise _fail(i, f"child {c} out of range")
            parents[c] += 1
    orphans = [i for i in range(1, n) if parents[i] != 1]
    if n == 0 or orphans:
        raise _fail(orphans[0] if orphans else 0, "not reachable exactly once from the root")
    for j, o in enumerate(ir.outcomes):
        if len(o.proba) != ir.n_classes or sum(o.proba) > ONE or min(o.proba) < 0:
            raise EmitError(f"IR outcome {j}: distribution does not fit {ir.n_classes} classes")
        if not 0 <= o.cls < ir.n_classes:
            raise EmitError(f"IR outcome {j}: class {o.cls} out of range")
    if ir.stack_size < 1 or ir.stack_size > 65535:
        raise EmitError(f"IR stack size {ir.stack_size} out of range")


def dump(ir: IR) -> str:
    """A readable, stable text form of the IR (golden files, debugging)."""
    enc = ir.encoding
    lines = [
        f"prefix {ir.prefix}",
        (
            f"encoding {enc.input_type} compare={enc.float_compare} "
            f"missing={enc.missing} scales={[str(s) for s in enc.scales]}"
        ),
        f"stack {ir.stack_size}",
        "features " + ", ".join(f"{f.ident}:{f.kind}" for f in ir.features),
        "classes " + ", ".join(ir.class_idents),
    ]
    for j, o in enumerate(ir.outcomes):
        lines.append(f"outcome {j}: class {o.cls} proba {list(o.proba)}")
    for i, n in enumerate(ir.nodes):
        if isinstance(n, Leaf):
            lines.append(f"{i}: leaf outcome {n.outcome}")
        elif isinstance(n, Compare):
            lines.append(
                f"{i}: x[{n.feature}] {n.op} {n.threshold!r} -> {list(n.children)} "
                f"shares {list(n.shares)}"
            )
        elif isinstance(n, Member):
            lines.append(
                f"{i}: x[{n.feature}] code in {list(n.codes)} of {n.n_codes} -> "
                f"{list(n.children)} shares {list(n.shares)}"
            )
        else:
            lines.append(
                f"{i}: switch x[{n.feature}] map {list(n.branch_of)} -> "
                f"{list(n.children)} shares {list(n.shares)}"
            )
    return "\n".join(lines) + "\n"
