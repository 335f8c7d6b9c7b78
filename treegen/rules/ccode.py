"""Rulesets (``treegen rules -o RULES``) to C: lowering and the C.

A ruleset is an ordered list: the first rule whose conditions all hold gives the class,
else the default class, and a condition on a missing value does not hold
(treegen.rules.core).  It is lowered like a tree (treegen.codegen.lower):

* :class:`RuleIR` keeps the encoding, features, classes, prefix and provenance in a
  one-leaf tree :class:`~treegen.codegen.ir.IR` (``frame``), so the tree's encoding
  checks, predict.h, the compiler driver and the input-domain helpers apply unchanged;
* each ``<=``/``>`` condition becomes one comparison in the C domain through
  :func:`~treegen.codegen.lower.lower_continuous`, the tree's rule for ``x <= t``
  (``>`` is its negation on known values): ``le``/``lt``/``gt``/``ge`` a threshold,
  ``known`` when every known value passes (a test folded over the type's range), and
  a rule with a condition no known value passes is left out (it can never fire), and
  so is one whose error rate is above 0.7 (c4.5rules never fires it, rules.core.fires);
* ``=``/``in`` become ``in``, the set of C values that are the codes (under
  ``--float-compare int`` the keys of the codes' floats, +0.0 and -0.0 both for 0).

The C (templates/predict_rules.c.j2, from :func:`rules_view`: each condition in its
form of treegen.codegen.views.TestForm) is one ``if`` per rule; treegen.rules.check is the
same in numpy, and compares the compiled C with it and with the Python ruleset
(treegen.rules.core.predict) on every row, missing values included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from treegen.codegen.conditions import CMP, missing_kind
from treegen.codegen.costs import rules_safety_lines
from treegen.codegen.ctype import UINT32
from treegen.codegen.emit import make_env, render
from treegen.codegen.header import header_view
from treegen.codegen.ir import IR, Encoding, Framed, ProbaApi
from treegen.codegen.keys import float_key
from treegen.codegen.literals import compared_literal, value_literal
from treegen.codegen.lower import Cut, fold_of, lower, lower_continuous
from treegen.codegen.names import comment_text
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import file_names, key_function, prelude
from treegen.codegen.views import KeyFunction, Prelude, Test, TestForm, context
from treegen.errors import EmitError, EncodingError
from treegen.model.core import Leaf, Model
from treegen.model.options import ModelOptions, TrainOptions
from treegen.rules.core import Condition, RuleSet, format_condition
from treegen.rules.core import fires as rules_fires

TestOp = Literal["le", "lt", "gt", "ge", "known", "in"]
"""``le``/``lt``/``gt``/``ge``: x <= t, x < t, x > t, x >= t for a known x; ``known``:
any known value; ``in``: x is one of ``values``."""


@dataclass(frozen=True, slots=True)
class RuleTest:
    """One condition in the C domain (``threshold`` and ``values`` as Compare.threshold)."""

    feature: int
    op: TestOp
    threshold: int | float = 0
    values: tuple[int | float, ...] = ()
    text: str = ""  # the condition as c4.5rules prints it (comments)


@dataclass(frozen=True, slots=True)
class RuleLine:
    number: int  # c4.5rules' rule number
    tests: tuple[RuleTest, ...]
    cls: int


@dataclass(frozen=True, slots=True)
class RuleIR(Framed):
    frame: IR  # encoding, features, classes, prefix, provenance (a one-leaf tree)
    rules: tuple[RuleLine, ...]
    default: int
    folds: tuple[str, ...] = ()  # conditions folded at the input type's range (notes)

    # The C interface (treegen.verify.build.CApi): the frame's, without predict_proba.
    @property
    def proba(self) -> bool:
        return False

    @property
    def proba_api(self) -> ProbaApi | None:
        return None


def _frame_model(rs: RuleSet) -> Model:
    """A one-leaf tree on the ruleset's schema, voting for the default class."""
    n = len(rs.schema.classes)
    leaf = Leaf(rs.default, 0.0, 0.0, (0.0,) * n)
    options = ModelOptions(TrainOptions(flavor=rs.flavor))
    return Model(rs.schema, (leaf,), options, rs.treegen_version, "")


def check_options(opts: ExportOptions) -> None:
    """Refuse the export options a ruleset has no C for."""
    if opts.scores:
        raise EncodingError("applies to ensembles (their decision_function)", option="--scores")
    if opts.style not in (None, "ifs"):
        raise EncodingError(
            "a ruleset exports as one if per rule: --style table is for trees", option="--style"
        )
    if opts.missing != "c45":
        raise EncodingError(
            "a ruleset has one missing-value rule (a condition on a missing value does not "
            "hold), which costs one comparison: --missing none is for trees",
            option="--missing",
        )
    if opts.proba:
        raise EncodingError("a ruleset gives a class, not probabilities", option="--proba")


def _continuous(
    cond: Condition, where: str, rs: RuleSet, frame: IR, folds: list[str]
) -> RuleTest | None:
    """The test of a ``<=``/``>`` condition; None when no known value passes it.  A
    finite threshold outside the input type's values folds as a tree's test does (one
    rule at every --scale): its note goes to ``folds``."""
    node = Cut(cond.attribute, cond.threshold)
    try:
        op, t = lower_continuous(node, 0, frame.encoding, rs.compares_float32)
    except EncodingError as exc:
        # The tree's message names "model node 0"; here it is a rule's condition.
        msg = str(exc.args[0]).split(": ", 1)[-1]
        raise EncodingError(f"{where}: {msg}", option=exc.option) from None
    text = comment_text(format_condition(cond, rs.schema))
    passes_le = {"le": "le", "lt": "lt", "left": "known", "right": None}[op]
    passes_gt = {"le": "gt", "lt": "ge", "left": None, "right": "known"}[op]
    got = passes_le if cond.op == "<=" else passes_gt
    if fold_of(node, 0, frame.encoding, rs.compares_float32, op) is not None:
        effect = "always holds" if got == "known" else "never holds: the rule is left out"
        folds.append(f"{where} ({text}) {effect} in {frame.encoding.input_type}")
    if got is None:
        return None
    return RuleTest(cond.attribute, got, t if got != "known" else 0, (), text)  # type: ignore[arg-type]


def _code_values(code: int, frame: IR) -> tuple[int | float, ...]:
    """The C values that are nominal code ``code``."""
    enc = frame.encoding
    if enc.uses_keys:
        return (float_key(0.0), float_key(-0.0)) if code == 0 else (float_key(float(code)),)
    if enc.is_int:
        return (code,)
    return (float(code),)


def lower_ruleset(
    rs: RuleSet, opts: ExportOptions, provenance: tuple[tuple[str, str], ...] = ()
) -> RuleIR:
    """Lower ``rs`` for the C input encoding in ``opts`` (prefix None: ``rules``), with the
    header comment's ``provenance``; raise EncodingError."""
    check_options(opts)
    # The frame is lowered as a tree (the encoding checks, names); a ruleset has no
    # predict_proba.
    frame_opts = replace(opts, proba=None, prefix=opts.prefix or "rules")
    frame = replace(lower(_frame_model(rs), frame_opts, provenance), proba=False)
    lines = []
    folds: list[str] = []
    for r in rs.rules:
        tests: list[RuleTest] = []
        fires = rules_fires(r)  # an error rate above 0.7: it never fires (rules.core)
        for k, c in enumerate(r.conditions if fires else ()):
            if c.op in ("<=", ">"):
                where = f"rule {r.number}, condition {k + 1}"
                t = _continuous(c, where, rs, frame, folds)
                if t is None:
                    fires = False
                    break
                tests.append(t)
            else:
                codes = (c.value,) if c.op == "=" else c.values
                values = tuple(v for code in codes for v in _code_values(code, frame))
                text = comment_text(format_condition(c, rs.schema))
                tests.append(RuleTest(c.attribute, "in", 0, values, text))
        if fires:
            lines.append(RuleLine(r.number, tuple(tests), r.cls))
            if not tests:
                break  # it always fires: the rules after it never do
    rir = RuleIR(frame, tuple(lines), rs.default, tuple(folds))
    validate(rir)
    return rir


def _fail(number: int, msg: str) -> EmitError:
    return EmitError(f"rule {number}: {msg}")


def validate(rir: RuleIR) -> None:
    """Raise EmitError unless every feature, class and value is in range and every
    threshold fits the C input type (as treegen.codegen.ir.validate for trees)."""
    frame = rir.frame
    enc = frame.encoding
    if not 0 <= rir.default < frame.n_classes:
        raise EmitError(f"default class {rir.default} out of range")
    for r in rir.rules:
        if not 0 <= r.cls < frame.n_classes:
            raise _fail(r.number, f"class {r.cls} out of range")
        for t in r.tests:
            if not 0 <= t.feature < frame.n_features:
                raise _fail(r.number, f"feature {t.feature} out of range")
            kind = frame.features[t.feature].kind
            if (t.op == "in") != (kind == "nominal"):
                raise _fail(r.number, f"test {t.op} on a {kind} feature")
            if enc.is_int and t.op == "in" and enc.missing in t.values:
                raise _fail(r.number, "a nominal code is the missing value")
            if t.op in ("le", "lt", "gt", "ge"):
                v = t.threshold
                if enc.is_int or enc.uses_keys:
                    lo, hi = enc.int_range if enc.is_int else UINT32.range
                    if not isinstance(v, int) or not lo <= v <= hi:
                        raise _fail(r.number, f"threshold {v!r} does not fit {enc.input_type}")
                elif not isinstance(v, float) or not math.isfinite(v):
                    raise _fail(r.number, f"threshold {v!r} is not a finite float")


# -------------------------------------------------------------------- emit


@dataclass(frozen=True, slots=True)
class RuleView:
    number: int
    comment: str
    tests: tuple[Test, ...]
    cls: int
    cls_comment: str


@dataclass(frozen=True, slots=True)
class RulesSource:
    """predict.c of a ruleset (predict_rules.c.j2)."""

    prelude: Prelude
    key: KeyFunction | None  # PREFIX_key, for float keys
    rules: tuple[RuleView, ...]
    default: int
    default_comment: str


def _test(enc: Encoding, t: RuleTest) -> Test:
    """A condition in its C form (treegen.codegen.views.TestForm): a missing value
    fails every condition."""
    kind = missing_kind(enc)
    keyed = enc.uses_keys
    if t.op == "in":
        values = tuple(value_literal(enc, v) for v in t.values)
        return Test("in", t.feature, keyed=keyed, missing=kind, values=values)
    if t.op == "known":
        return Test("known", t.feature, keyed=keyed, missing=kind)
    # NaN fails a float comparison by itself; keys and integers test for missing first.
    form: TestForm = "cmp" if kind == "nan" else "known_and_cmp"
    threshold = compared_literal(enc, t.threshold)
    return Test(form, t.feature, keyed=keyed, missing=kind, cmp=CMP[t.op], threshold=threshold)


def _tested(tests: tuple[RuleTest, ...]) -> list[RuleTest]:
    """The tests a rule's C makes: a folded condition that asks only for a known value
    is left out where another test of its feature (which a missing value fails too)
    comes before it or is no such test, so that no rule tests "x[i] != MISSING" twice
    (gcc -Wlogical-op: "logical 'and' of equal expressions")."""
    return [
        t
        for i, t in enumerate(tests)
        if t.op != "known"
        or not any(
            u.feature == t.feature and (u.op != "known" or j < i)
            for j, u in enumerate(tests)
            if j != i
        )
    ]


def rules_view(rir: RuleIR) -> RulesSource:
    """The view predict_rules.c.j2 renders: one if per rule, its conditions' forms."""
    frame = rir.frame
    enc = frame.encoding
    rules = tuple(
        RuleView(
            r.number,
            "; ".join(t.text for t in r.tests),
            tuple(_test(enc, t) for t in _tested(r.tests)),
            r.cls,
            comment_text(frame.classes[r.cls]),
        )
        for r in rir.rules
    )
    return RulesSource(
        prelude=prelude(frame, nan_guard=True, flash=False),
        key=key_function("missing") if enc.uses_keys and any(r.tests for r in rules) else None,
        rules=rules,
        default=rir.default,
        default_comment=comment_text(frame.classes[rir.default]),
    )


def emit_ruleset(rir: RuleIR, opts: ExportOptions | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``rir``."""
    validate(rir)
    env = make_env()
    conditions = sum(len(r.tests) for r in rir.rules)
    safety = rules_safety_lines(rir.prefix, conditions, rir.encoding.uses_keys and conditions > 0)
    header = header_view(rir.frame, safety)
    source, header_file = file_names(rir.frame.stem)
    return {
        header_file: render(env, "predict.h.j2", context(header)),
        source: render(env, "predict_rules.c.j2", context(header, rules_view(rir))),
    }
