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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Schema

Op = Literal["=", "<=", ">", "in"]
# A long step's progress: called with (phase, done, total) now and then.
Steps = Callable[[str, int, int], None]
OPS: tuple[Op, ...] = ("=", "<=", ">", "in")


@dataclass(frozen=True, slots=True)
class Condition:
    """``attribute op value``: ``=`` a nominal code, ``in`` a set of codes, ``<=``/``>`` a cut.

    Each op reads only its own field (``value``, ``values`` or ``threshold``); the
    others keep their defaults, so equal conditions are equal dataclasses (c4.5rules
    finds equal candidate rules by a set of their conditions)."""

    attribute: int
    op: Op
    value: int = -1
    threshold: float = 0.0
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


class CaseColumns:
    """The columns of ``X`` for testing many conditions on the same cases: each read out
    once (contiguous; with ``float32`` a continuous one rounded to float32 first, as the
    c45 flavour compares).  An unknown value, NaN, equals no value and fails every
    comparison, so it satisfies no condition."""

    def __init__(
        self,
        X: npt.NDArray[np.float64],
        float32: bool = True,
        order: npt.NDArray[np.int32] | None = None,
    ) -> None:
        self.X = X
        self.float32 = float32
        self.order = order  # given: the columns hold the rows of X in this order
        self._columns: dict[tuple[int, bool], npt.NDArray[np.floating]] = {}

    def column(self, attribute: int, continuous: bool) -> npt.NDArray[np.floating]:
        """``attribute``'s column as the comparisons read it (kept: read out once)."""
        return self._column(attribute, continuous)

    def _column(self, attribute: int, continuous: bool) -> npt.NDArray[np.floating]:
        col = self._columns.get((attribute, continuous))
        if col is None:
            if self.order is None:
                col = np.ascontiguousarray(self.X[:, attribute])
            else:
                col = self.X[self.order, attribute]
            if continuous and self.float32:
                with np.errstate(over="ignore", invalid="ignore"):
                    col = col.astype(np.float32)
            self._columns[(attribute, continuous)] = col
        return col

    def satisfied(
        self, cond: Condition, out: npt.NDArray[np.bool_] | None = None
    ) -> npt.NDArray[np.bool_]:
        """The cases that satisfy ``cond`` (written into ``out`` if given)."""
        col = self._column(cond.attribute, cond.op in ("<=", ">"))
        if out is None:
            out = np.empty(col.shape[0], dtype=bool)
        if cond.op == "=":
            np.equal(col, cond.value, out=out)
        elif cond.op == "in":
            out[:] = np.isin(col, np.asarray(cond.values, dtype=np.float64))
        else:
            # A c45 threshold is a float32 value (the file check ensures it), so this
            # is the tree's float32(x) <= t.
            t = np.float32(cond.threshold) if self.float32 else np.float64(cond.threshold)
            with np.errstate(invalid="ignore"):
                (np.less_equal if cond.op == "<=" else np.greater)(col, t, out=out)
        return out


def satisfied(
    cond: Condition, X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.bool_]:
    """Rows of ``X`` that satisfy ``cond`` (an unknown value satisfies nothing);
    ``float32``: continuous values are rounded to float32 first (the c45 flavour)."""
    return CaseColumns(X, float32).satisfied(cond)


NEVER_FIRES = 0.7
"""A rule whose pessimistic error rate is above this fires on no case (Release 8's
``Strength`` is 0 for it): c4.5rules prints it and keeps it in the list, but it never
classifies anything."""


def fires(rule: Rule) -> bool:
    """Whether ``rule`` can fire at all (:data:`NEVER_FIRES`)."""
    return not rule.error > NEVER_FIRES


def covers(
    rule: Rule, X: npt.NDArray[np.float64], float32: bool = True, columns: CaseColumns | None = None
) -> npt.NDArray[np.bool_]:
    """Rows ``rule`` fires on: it can fire (:func:`fires`) and they satisfy every one of its
    conditions (``columns``: ``X``'s, to share)."""
    cols = CaseColumns(X, float32) if columns is None else columns
    out = np.full(X.shape[0], fires(rule), dtype=bool)
    for c in rule.conditions:
        if not out.any():
            break
        out &= cols.satisfied(c)
    return out


def cover_matrix(
    rules: tuple[Rule, ...], X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.bool_]:
    """Row i: the rows of ``X`` that rule i covers."""
    cols = CaseColumns(X, float32)
    out = np.zeros((len(rules), X.shape[0]), dtype=bool)
    for i, r in enumerate(rules):
        out[i] = covers(r, X, columns=cols)
    return out


def cover_rows(
    rules: tuple[Rule, ...], X: npt.NDArray[np.float64], float32: bool = True
) -> list[npt.NDArray[np.int32]]:
    """Per rule, the rows of ``X`` it covers (ascending): :func:`cover_matrix`'s rows as
    index lists, which grow with the rows the rules cover, not rows times rules."""
    cols = CaseColumns(X, float32)
    return [np.flatnonzero(covers(r, X, columns=cols)).astype(np.int32) for r in rules]


def firing(
    rules: tuple[Rule, ...], X: npt.NDArray[np.float64], float32: bool = True
) -> npt.NDArray[np.intp]:
    """Index into ``rules`` of the first rule each row satisfies, -1 for none."""
    cols = CaseColumns(X, float32)
    out = np.full(X.shape[0], -1, dtype=np.intp)
    for i in range(len(rules) - 1, -1, -1):
        out[covers(rules[i], X, columns=cols)] = i
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
    """``c`` as c4.5rules prints it: ``name = value`` (a one-value subset too), ``name in
    {a, b}``, ``name <= t`` (``t`` to six significant digits)."""
    attr = schema.attributes[c.attribute]
    if c.op == "=":
        return f"{attr.name} = {attr.values[c.value]}"
    if c.op == "in":
        if len(c.values) == 1:
            return f"{attr.name} = {attr.values[c.values[0]]}"
        return f"{attr.name} in {{{', '.join(attr.values[v] for v in sorted(c.values))}}}"
    return f"{attr.name} {c.op} {c.threshold:g}"
