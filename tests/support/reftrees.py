"""Reference trees as the tests use them: what C4.5 Release 8 and Weka J48 print, and
treegen's models, in one canonical, order-free form.

The golden tests compare treegen's trees with the reference outputs in
``tests/data/reference`` (``c45r8.out`` and ``j48.out``) and, in the Weka
differential test, with live J48 output.  Text diffs would depend on branch
order (Release 8 prints leaf branches first, J48 in declared order) and on
layout ([S1] subtree blocks), so both sides become the same value
(tests/support/reftypes.py: :class:`Leaf`, :class:`Split`, walks and diffs);
tests/support/refparse.py parses the printed trees and evaluation summaries.  This module
re-exports both and adds :func:`from_model`, which renders a treegen model with
the tool's number formats: Release 8 prints N and E with ``%.1f`` and thresholds
with ``%g``; J48 prints N and E rounded to 2 decimals (``Utils.roundDouble``,
shown by Java's ``Double.toString``) and thresholds with
``Utils.doubleToString(x, 6)``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING

from .refparse import J48Output, R8Evaluation, R8Output, parse_c45r8, parse_j48
from .reftypes import (
    UNPRINTED,
    Branch,
    Leaf,
    ParseError,
    Split,
    Style,
    Tree,
    as_printed,
    diff,
    leaves,
    make_split,
    n_leaves,
    render,
    route_known,
    size,
    subtree_at,
)

if TYPE_CHECKING:
    from treegen.model.core import Model

__all__ = [
    "UNPRINTED",
    "Branch",
    "J48Output",
    "Leaf",
    "ParseError",
    "R8Evaluation",
    "R8Output",
    "Split",
    "Style",
    "Tree",
    "as_printed",
    "c45_number",
    "c45_threshold",
    "diff",
    "from_model",
    "java_double_repr",
    "java_round2",
    "leaves",
    "make_split",
    "n_leaves",
    "parse_c45r8",
    "parse_j48",
    "render",
    "route_known",
    "size",
    "subtree_at",
    "weka_double_to_string",
]


# ---------------------------------------------------------------- number formats


def c45_number(x: float) -> str:
    """Release 8's ``%.1f`` for N and E."""
    return f"{x:.1f}"


def c45_threshold(x: float) -> str:
    """Release 8's ``%g`` for a threshold."""
    return f"{x:g}"


def java_double_repr(x: float) -> str:
    """Java's ``Double.toString``: shortest digits, ``E`` notation outside [1e-3, 1e7)."""
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if math.isinf(x) or math.isnan(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if 1e-3 <= abs(x) < 1e7:
        return repr(x)  # Python also prints these in plain decimal, shortest digits
    # Shortest round-trip digits (Python's repr) placed as d.ddd "E" exponent.
    t = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    assert isinstance(t.exponent, int)
    e10 = len(t.digits) - 1 + t.exponent
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{e10}"


def java_round2(x: float) -> str:
    """J48's ``Utils.roundDouble(x, 2)`` printed by Java's ``Double.toString``.

    ``roundDouble`` is ``Math.round(x * 100) / 100`` (round half up, i.e.
    ``floor(v + 0.5)``).
    """
    return java_double_repr(math.floor(x * 100.0 + 0.5) / 100.0)


def weka_double_to_string(value: float, after: int = 6) -> str:
    """Weka's ``Utils.doubleToString(value, afterDecimalPoint)`` (thresholds).

    Multiply by 10^after, round half up to a long, place the decimal point,
    strip trailing zeros and a trailing point.
    """
    temp = value * math.pow(10.0, after)
    if abs(temp) >= 2.0**63:  # Java: Math.abs(temp) < Long.MAX_VALUE, a double 2**63
        return java_double_repr(value)
    pv = int(temp + 0.5) if temp > 0 else -int(abs(temp) + 0.5)
    neg = pv < 0
    digits = str(abs(pv)).rjust(after + 1, "0")
    text = digits[: len(digits) - after] + "." + digits[len(digits) - after :]
    text = text.rstrip("0").rstrip(".")
    if neg and text != "0":
        text = "-" + text
    return text


# ---------------------------------------------------------------- treegen models


def from_model(model: Model, style: Style = "c45") -> Tree:
    """A treegen model in the canonical form, formatted as ``style`` prints it.

    ``c45``: N and E ``%.1f``, thresholds ``%g``.  ``j48``: N and E via
    ``roundDouble(.., 2)``, thresholds via ``doubleToString(.., 6)``.  Works
    iteratively (children before parents) so deep trees need no recursion.
    """
    schema = model.schema
    num = c45_number if style == "c45" else java_round2
    thr = c45_threshold if style == "c45" else weka_double_to_string
    built: dict[int, Tree] = {}
    for i in range(len(model.nodes) - 1, -1, -1):  # pre-order: children follow parents
        node = model.nodes[i]
        if node.kind == "leaf":
            e = node.errors
            # J48 prints "/E" only when E > 1e-6 (Utils.gr); Release 8 when E > 0.
            shown = e > 1e-6 if style == "j48" else e > 0
            built[i] = Leaf(schema.classes[node.cls], num(node.items), num(e) if shown else num(0))
            continue
        attr = schema.attributes[node.attribute]
        branches: list[Branch] = []
        if node.kind == "continuous":
            t = thr(node.threshold)
            branches = [
                Branch("<=", t, built[node.children[0]]),
                Branch(">", t, built[node.children[1]]),
            ]
        elif node.kind == "nominal":
            branches = [Branch("=", attr.values[b], built[c]) for b, c in enumerate(node.children)]
        else:
            for b, c in enumerate(node.children):
                vals = [attr.values[v] for v in node.subsets[b]]
                if len(vals) == 1:
                    branches.append(Branch("=", vals[0], built[c]))
                else:
                    branches.append(Branch("in", "{" + ",".join(sorted(vals)) + "}", built[c]))
        built[i] = make_split(attr.name, branches)
    return built[0]
