"""A ruleset: an ordered list of rules and a default class, and how it classifies.

c4.5rules classifies a case with the first rule whose conditions it all
satisfies, or the default class when none fires.  A condition on an unknown
value is not satisfied (the counts Release 8 prints, e.g. hypo's Rule 6
covering 4 cases with 1 error, are those of this reading).  Continuous
values compare as float32, as in Release 8 and the c45 tree classifier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Schema

Op = Literal["=", "<=", ">", "in"]


@dataclass(frozen=True, slots=True)
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


def satisfied(cond: Condition, X: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Rows of ``X`` that satisfy ``cond`` (an unknown value satisfies nothing)."""
    col = X[:, cond.attribute]
    known = ~np.isnan(col)
    if cond.op == "=":
        out: npt.NDArray[np.bool_] = known & (col == cond.value)
        return out
    if cond.op == "in":
        return known & np.isin(col, np.asarray(cond.values, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        f = col.astype(np.float32)
    t = np.float32(cond.threshold)
    if cond.op == "<=":
        return known & (f <= t)
    return known & (f > t)


def covers(rule: Rule, X: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Rows that satisfy every condition of ``rule``."""
    out = np.ones(X.shape[0], dtype=bool)
    for c in rule.conditions:
        out &= satisfied(c, X)
    return out


def firing(rules: tuple[Rule, ...], X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """Index into ``rules`` of the first rule each row satisfies, -1 for none."""
    out = np.full(X.shape[0], -1, dtype=np.intp)
    for i in range(len(rules) - 1, -1, -1):
        out[covers(rules[i], X)] = i
    return out


def classify(
    rules: tuple[Rule, ...], default: int, X: npt.NDArray[np.float64]
) -> npt.NDArray[np.intp]:
    """Class per row: the first firing rule's class, else ``default``."""
    fired = firing(rules, X)
    cls = np.asarray([r.cls for r in rules] + [default], dtype=np.intp)
    out: npt.NDArray[np.intp] = cls[fired]  # -1 indexes the appended default
    return out


def predict(ruleset: RuleSet, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Class index per row of ``X`` (NaN = unknown)."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(ruleset.schema.attributes):
        raise ValueError(f"X must have shape (n, {len(ruleset.schema.attributes)}), got {x.shape}")
    return classify(ruleset.rules, ruleset.default, x)
