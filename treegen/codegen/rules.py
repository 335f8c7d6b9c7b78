"""Rulesets (``treegen rules -o RULES``) to C: lowering, the C, the oracle and verify.

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

The C (templates/predict_rules.c.j2) is one ``if`` per rule; :func:`evaluate` is the
same in numpy, and treegen.codegen.rules_verify compares the compiled C with it and
with the Python ruleset (treegen.rules.core.predict) on every row, missing values
included.
"""

from __future__ import annotations

import hashlib
import math
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import UINT32
from treegen.codegen.emit import header_view, make_env
from treegen.codegen.emit_parts import HEADER, SOURCE, threshold_literal, value_kind
from treegen.codegen.export import option_words
from treegen.codegen.ir import IR
from treegen.codegen.literals import c_double, c_float, c_hex32, c_int
from treegen.codegen.lower import ExportOptions, float_key, lower, lower_continuous
from treegen.codegen.names import comment_text
from treegen.codegen.oracle import float_keys, missing_mask
from treegen.codegen.views import ValueKind, context
from treegen.data.atomic import write_files_atomic
from treegen.errors import EmitError, EncodingError
from treegen.model.core import Model, Node
from treegen.model.version import VERSION
from treegen.rules.core import Condition, RuleSet, format_condition
from treegen.rules.core import fires as rules_fires
from treegen.rules.file import ruleset_to_json

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
class RuleIR:
    frame: IR  # encoding, features, classes, prefix, provenance (a one-leaf tree)
    rules: tuple[RuleLine, ...]
    default: int

    @property
    def prefix(self) -> str:
        return self.frame.prefix


def _frame_model(rs: RuleSet) -> Model:
    """A one-leaf tree on the ruleset's schema, voting for the default class."""
    n = len(rs.schema.classes)
    leaf = Node("leaf", rs.default, 0.0, 0.0, (0.0,) * n)
    return Model(rs.schema, (leaf,), {"flavor": rs.flavor}, rs.treegen_version, "")


def _check_options(opts: ExportOptions) -> None:
    if opts.style != "ifs":
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
    cond: Condition, where: str, rs: RuleSet, frame: IR, explicit: bool, default_missing: bool
) -> RuleTest | None:
    """The test of a ``<=``/``>`` condition; None when no known value passes it."""
    node = Node("continuous", 0, 0.0, 0.0, (), attribute=cond.attribute, threshold=cond.threshold)
    try:
        op, t = lower_continuous(
            node, 0, frame.encoding, explicit, rs.compares_float32, default_missing
        )
    except EncodingError as exc:
        # The tree's message names "model node 0"; here it is a rule's condition.
        msg = str(exc.args[0]).split(": ", 1)[-1]
        raise EncodingError(f"{where}: {msg}", option=exc.option) from None
    text = comment_text(format_condition(cond, rs.schema))
    passes_le = {"le": "le", "lt": "lt", "left": "known", "right": None}[op]
    passes_gt = {"le": "gt", "lt": "ge", "left": None, "right": "known"}[op]
    got = passes_le if cond.op == "<=" else passes_gt
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


def lower_ruleset(rs: RuleSet, opts: ExportOptions) -> RuleIR:
    """Lower ``rs`` for the C input encoding in ``opts``; raise EncodingError."""
    _check_options(opts)
    # The frame is lowered as a tree (the encoding checks, names); a ruleset has no
    # predict_proba.
    frame = replace(lower(_frame_model(rs), replace(opts, proba=None)), proba=False)
    attrs = rs.schema.attributes
    explicit = {
        i
        for i, a in enumerate(attrs)
        if opts.scale is not None or a.name in dict(opts.feature_scales)
    }
    lines = []
    for r in rs.rules:
        tests: list[RuleTest] = []
        fires = rules_fires(r)  # an error rate above 0.7: it never fires (rules.core)
        for k, c in enumerate(r.conditions if fires else ()):
            if c.op in ("<=", ">"):
                where = f"rule {r.number}, condition {k + 1}"
                t = _continuous(
                    c, where, rs, frame, c.attribute in explicit, opts.missing_value is None
                )
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
    rir = RuleIR(frame, tuple(lines), rs.default)
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


# ------------------------------------------------------------------ oracle


def _c_values(col: npt.NDArray[np.generic], rir: RuleIR) -> npt.NDArray[Any]:
    """A column as the C compares it: keys under --float-compare int, else as is."""
    enc = rir.frame.encoding
    if enc.uses_keys:
        return float_keys(col.astype(np.float32))
    if enc.is_int:
        return col.astype(np.int64)
    return col


def holds(t: RuleTest, col: npt.NDArray[np.generic], rir: RuleIR) -> npt.NDArray[np.bool_]:
    """Rows whose value (in the C domain) passes ``t``, as the C decides it."""
    known = ~missing_mask(col, rir.frame.encoding)
    v = _c_values(col, rir)
    if t.op == "in":
        out: npt.NDArray[np.bool_] = known & np.isin(v, np.asarray(t.values, dtype=v.dtype))
        return out
    if t.op == "known":
        return known
    thr: Any = v.dtype.type(t.threshold)
    with np.errstate(invalid="ignore"):
        if t.op == "le":
            held = v <= thr
        elif t.op == "lt":
            held = v < thr
        elif t.op == "gt":
            held = v > thr
        else:
            held = v >= thr
    result: npt.NDArray[np.bool_] = known & np.asarray(held, dtype=bool)
    return result


def evaluate(rir: RuleIR, X: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """The class the C returns for every row of ``X`` (C input domain)."""
    rows = np.asarray(X)
    out = np.full(rows.shape[0], rir.default, dtype=np.int32)
    for r in reversed(rir.rules):
        fires = np.ones(rows.shape[0], dtype=bool)
        for t in r.tests:
            fires &= holds(t, rows[:, t.feature], rir)
        out[fires] = r.cls
    return out


# -------------------------------------------------------------------- emit


@dataclass(frozen=True, slots=True)
class TestView:
    op: TestOp
    feature: int
    threshold: str  # the literal ("" for known and in)
    values: tuple[str, ...]  # the literals of an in test


@dataclass(frozen=True, slots=True)
class RuleView:
    number: int
    comment: str
    tests: tuple[TestView, ...]
    cls: int
    cls_comment: str


@dataclass(frozen=True, slots=True)
class RulesSource:
    """predict.c of a ruleset (predict_rules.c.j2)."""

    header_name: str
    value_kind: ValueKind
    rules: tuple[RuleView, ...]
    default: int
    default_comment: str
    uses_key: bool  # the key function is needed


def _value_literal(rir: RuleIR, v: int | float) -> str:
    enc = rir.frame.encoding
    if enc.uses_keys:
        return c_hex32(int(v))
    if enc.is_int:
        return c_int(int(v), enc.input_type)
    return c_float(float(v)) if enc.input_type == "float" else c_double(float(v))


def _source(rir: RuleIR) -> RulesSource:
    frame = rir.frame
    rules = []
    for r in rir.rules:
        tests = tuple(
            TestView(
                t.op,
                t.feature,
                threshold_literal(frame, t.threshold) if t.op not in ("known", "in") else "",
                tuple(_value_literal(rir, v) for v in t.values),
            )
            for t in r.tests
        )
        rules.append(
            RuleView(
                r.number,
                "; ".join(t.text for t in r.tests),
                tests,
                r.cls,
                comment_text(frame.classes[r.cls]),
            )
        )
    kind = value_kind(frame)
    return RulesSource(
        header_name=HEADER,
        value_kind=kind,
        rules=tuple(rules),
        default=rir.default,
        default_comment=comment_text(frame.classes[rir.default]),
        uses_key=kind == "key" and any(r.tests for r in rir.rules),
    )


def emit_ruleset(rir: RuleIR) -> dict[str, str]:
    """Render predict.c and predict.h for ``rir``."""
    validate(rir)
    env = make_env()
    header = header_view(rir.frame)
    return {
        HEADER: env.get_template("predict.h.j2").render(context(header)),
        SOURCE: env.get_template("predict_rules.c.j2").render(context(header, _source(rir))),
    }


def ruleset_fingerprint(rs: RuleSet) -> str:
    """A hash of the ruleset file's text: which ruleset a generated file came from."""
    return "sha256:" + hashlib.sha256(ruleset_to_json(rs).encode()).hexdigest()[:32]


def with_provenance(opts: ExportOptions, rs: RuleSet, path: str, out: str) -> ExportOptions:
    """``opts`` plus the header comment's provenance lines (as for a model)."""
    _check_options(opts)
    words = option_words(opts)
    assert words[2:4] == ["--style", "ifs"]
    words = words[:2] + words[4:]  # one style only
    command = ["treegen", "export", path, *words, "-o", out]
    prov = (
        ("generated by", f"treegen {VERSION} -- do not edit"),
        ("ruleset", ruleset_fingerprint(rs)),
        ("training data", rs.data_fingerprint or "unknown"),
        ("options", " ".join(words)),
        ("regenerate with", " ".join(shlex.quote(w) for w in command)),
    )
    return replace(opts, provenance=prov)


def render_ruleset(
    rs: RuleSet, path: str, out_dir: str, opts: ExportOptions
) -> tuple[ExportOptions, dict[str, str]]:
    """The files' text for ``rs`` (nothing written), and the options with provenance."""
    _check_options(opts)
    opts = with_provenance(opts, rs, path, out_dir)
    return opts, emit_ruleset(lower_ruleset(rs, opts))


def export_ruleset_files(rs: RuleSet, path: str, out_dir: str, opts: ExportOptions) -> list[Path]:
    """Write ``predict.c`` and ``predict.h`` for ``rs`` into ``out_dir``, atomically."""
    _, files = render_ruleset(rs, path, out_dir, opts)
    write_files_atomic(out_dir, files)
    return [Path(out_dir) / name for name in sorted(files)]
