"""A ruleset: an ordered list of rules and a default class, and how it classifies.

c4.5rules classifies a case with the first rule whose conditions it all
satisfies, or the default class when none fires.  A condition on an unknown
value is not satisfied, whichever its operator (``<=`` and ``>`` alike), so a
case with unknown values falls through to a later rule or the default: the
counts Release 8 prints are those of this reading (hypo's Rule 6 covering 4
cases with 1 error; with an unknown value counted as satisfying, or split as
the tree does, the Used/Wrong columns of c45rules.out differ).  A nominal
value that is no code of its attribute satisfies no ``=`` or ``in``.
Continuous values compare as float32 in the c45 flavour (Release 8 stores
them so, and so does the c45 tree classifier), as doubles in j48's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Schema
from treegen.nanequal import nan_equal

Op = Literal["=", "<=", ">", "in"]
OPS: tuple[Op, ...] = ("=", "<=", ">", "in")


@nan_equal
@dataclass(frozen=True, slots=True, eq=False)
class Condition:
    """``attribute op value``: ``=`` a nominal code, ``in`` a set of codes, ``<=``/``>`` a cut."""

    attribute: int
    op: Op
    value: int = -1
    threshold: float = math.nan
    values: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    """``IF conditions THEN cls``; ``number`` is c4.5rules' rule number, ``error`` the
    pessimistic error rate on the training data (printed as ``[100 - 100 error %]``)."""

    number: int
    conditions: tuple[Condition, ...]
    cls: int
    error: float


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The final ordered rules, the default class and where they came from."""

    schema: Schema
    rules: tuple[Rule, ...]
    default: int
    options: dict[str, object] = field(default_factory=dict)
    treegen_version: str = ""
    data_fingerprint: str = ""
    flavor: Literal["c45", "j48"] = "c45"

    @property
    def compares_float32(self) -> bool:
        """Continuous values are rounded to float32 before they are compared (c45)."""
        return self.flavor == "c45"

    @property
    def class_order(self) -> tuple[int, ...]:
        """The classes in the order their rules come (each class's rules are together)."""
        return tuple(dict.fromkeys(r.cls for r in self.rules))


def satisfied(
    cond: Condition, X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.bool_]:
    """Rows of ``X`` that satisfy ``cond`` (an unknown value satisfies nothing);
    ``float32``: continuous values are rounded to float32 first (the c45 flavour)."""
    col = X[:, cond.attribute]
    known = ~np.isnan(col)
    if cond.op == "=":
        out: npt.NDArray[np.bool_] = known & (col == cond.value)
        return out
    if cond.op == "in":
        return known & np.isin(col, np.asarray(cond.values, dtype=np.float64))
    v: npt.NDArray[np.floating]
    t: np.floating
    if float32:
        # A c45 threshold is a float32 value (the file check ensures it), so this is
        # the tree's float32(x) <= t.
        with np.errstate(over="ignore", invalid="ignore"):
            v, t = col.astype(np.float32), np.float32(cond.threshold)
    else:
        v, t = col, np.float64(cond.threshold)
    with np.errstate(invalid="ignore"):
        if cond.op == "<=":
            return known & (v <= t)
        return known & (v > t)


def covers(rule: Rule, X: npt.NDArray[np.float64], float32: bool = True) -> npt.NDArray[np.bool_]:
    """Rows that satisfy every condition of ``rule``."""
    out = np.ones(X.shape[0], dtype=bool)
    for c in rule.conditions:
        out &= satisfied(c, X, float32)
    return out


def cover_matrix(
    rules: tuple[Rule, ...], X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.bool_]:
    """Row i: the rows of ``X`` that rule i covers."""
    out = np.zeros((len(rules), X.shape[0]), dtype=bool)
    for i, r in enumerate(rules):
        out[i] = covers(r, X, float32)
    return out


def firing(
    rules: tuple[Rule, ...], X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.intp]:
    """Index into ``rules`` of the first rule each row satisfies, -1 for none."""
    out = np.full(X.shape[0], -1, dtype=np.intp)
    for i in range(len(rules) - 1, -1, -1):
        out[covers(rules[i], X, float32)] = i
    return out


def classify(
    rules: tuple[Rule, ...], default: int, X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.intp]:
    """Class per row: the first firing rule's class, else ``default``."""
    fired = firing(rules, X, float32)
    cls = np.asarray([r.cls for r in rules] + [default], dtype=np.intp)
    out: npt.NDArray[np.intp] = cls[fired]  # -1 indexes the appended default
    return out


def predict(ruleset: RuleSet, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Class index per row of ``X`` (NaN = unknown)."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(ruleset.schema.attributes):
        raise ValueError(f"X must have shape (n, {len(ruleset.schema.attributes)}), got {x.shape}")
    return classify(ruleset.rules, ruleset.default, x, ruleset.compares_float32)


def format_condition(c: Condition, schema: Schema) -> str:
    """``c`` as c4.5rules prints it: ``name = value``, ``name in {a,b}``, ``name <= t``
    (``t`` to six significant digits)."""
    attr = schema.attributes[c.attribute]
    if c.op == "=":
        return f"{attr.name} = {attr.values[c.value]}"
    if c.op == "in":
        return f"{attr.name} in {{{','.join(attr.values[v] for v in c.values)}}}"
    return f"{attr.name} {c.op} {c.threshold:g}"
