"""c4.5rules' candidate rules (treegen/rules/paths.py) on hand-built data: which leaves
give a rule, how a path is generalised (Release 8's ``PruneRule``), the order of the
kept conditions and which rules count as repeats (``SameRule``).

The golden tests (tests/rules/test_rules_golden.py, the corpus test) check whole outputs of
Release 8; these pin each rule down on its own.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import Leaf, Model, NominalTest
from treegen.rules.core import CaseColumns, Condition, Rule, satisfied
from treegen.rules.paths import _prune, _sorted, candidates
from treegen.rules.pathtests import PathTest, _same_rule
from treegen.trainer.stats import ErrorBound, to_f32

BOUND = ErrorBound(0.25, "c45")
PQ = ("p", "q")
SCHEMA = Schema(
    (Attribute("x", "nominal", PQ), Attribute("y", "nominal", PQ), Attribute("z", "nominal", PQ)),
    ("yes", "no"),
)
P, Q = 0, 1
YES, NO = 0, 1


def _dataset(rows: list[tuple[int, int, int, int]]) -> Dataset:
    arr = np.asarray(rows, dtype=np.float64)
    return Dataset(SCHEMA, arr[:, :3].copy(), arr[:, 3].astype(np.int32))


def _rate(n: int, e: int) -> float:
    return to_f32(to_f32(e + BOUND.add_errs(float(n), float(e))) / n)


def test_a_condition_goes_while_some_removal_is_no_worse() -> None:
    """``x = p, y = p -> yes``: the rule covers 4 cases, 1 wrong.  Without y it covers 6
    (1 wrong), a lower pessimistic rate: y goes.  Without x then, 10 cases, 5 wrong: a
    higher rate and a higher actual rate than ``x = p`` alone, so x stays."""
    ds = _dataset(
        [(P, P, Q, YES)] * 3 + [(P, P, Q, NO)] + [(P, Q, Q, YES)] * 2 + [(Q, Q, Q, NO)] * 4
    )
    missed = np.stack(
        [~satisfied(Condition(0, "=", value=P), ds.X), ~satisfied(Condition(1, "=", value=P), ds.X)]
    )
    default = to_f32(1.0 - (5 + 1.0) / (10 + 2.0))
    assert _prune(missed, ds.y != YES, BOUND, default) == ([0], _rate(6, 1))


def test_of_the_removals_the_lowest_pessimistic_rate_goes() -> None:
    """Both removals from ``x = p, y = p -> yes`` (one case, right) qualify; the one
    giving the lowest pessimistic rate is made: without y, 2 cases, none wrong (without
    x, 2 cases, one wrong)."""
    ds = _dataset([(P, P, Q, YES), (Q, P, Q, NO), (P, Q, Q, YES)] + [(Q, Q, Q, NO)] * 5)
    missed = np.stack(
        [~satisfied(Condition(0, "=", value=P), ds.X), ~satisfied(Condition(1, "=", value=P), ds.X)]
    )
    default = to_f32(1.0 - (2 + 1.0) / (8 + 2.0))
    got = _prune(missed, ds.y != YES, BOUND, default)
    assert got == ([0], _rate(2, 0))


def test_a_rule_no_better_than_guessing_is_no_candidate() -> None:
    """A generalised rule whose pessimistic rate is not below ``1 - (n_C + 1) / (N + 2)``
    is dropped."""
    ds = _dataset([(P, Q, Q, YES), (P, Q, Q, NO), (Q, Q, Q, NO), (Q, Q, Q, YES)])
    missed = np.stack([~satisfied(Condition(0, "=", value=P), ds.X)])
    default = to_f32(1.0 - (2 + 1.0) / (4 + 2.0))
    assert _prune(missed, ds.y != YES, BOUND, default) is None


def _cont(attribute: int, op: str, t: float) -> PathTest:
    return PathTest(Condition(attribute, op, threshold=t), 2, t, 0)  # type: ignore[arg-type]


def _nom(attribute: int, value: int) -> PathTest:
    return PathTest(Condition(attribute, "=", value=value), 1, 0.0, 0)


def test_conditions_are_ordered_by_release8s_relation() -> None:
    """Attribute numbers first, but a nominal test also comes before any threshold test
    (Release 8's ``Before`` is not an order, so the selection is followed as it runs)."""
    path = (_nom(3, 1), _cont(0, ">", 1.5), _cont(0, "<=", 9.0), _nom(1, 0))
    got = [t.cond for t in _sorted(path, [0, 1, 2, 3])]
    assert got == [path[3].cond, path[0].cond, path[1].cond, path[2].cond]
    # Dropped conditions are passed over.
    assert [t.cond for t in _sorted(path, [0, 2])] == [path[2].cond, path[0].cond]


def _one_split_tree(ds: Dataset, items_p: float) -> Model:
    """``x = p: yes (items_p)``, ``x = q: no (7)``."""
    nodes = (
        NominalTest(NO, items_p + 7, 0.0, (items_p, 7.0), attribute=0, children=(1, 2)),
        Leaf(YES, items_p, 0.0, (items_p, 0.0)),
        Leaf(NO, 7.0, 0.0, (0.0, 7.0)),
    )
    return Model(ds.schema, nodes)


def test_a_leaf_of_less_than_one_case_gives_no_rule() -> None:
    """A leaf holding fractional cases (from unknown values) that add up to less than one
    gives no rule."""
    ds = _dataset([(P, Q, Q, YES)] * 4 + [(Q, Q, Q, NO)] * 7)
    cls_of = {
        items: [r.cls for r, _ in candidates(ds, _one_split_tree(ds, items), BOUND)]
        for items in (0.4, 0.99, 1.0, 4.0)
    }
    assert cls_of == {0.4: [NO], 0.99: [NO], 1.0: [YES, NO], 4.0: [YES, NO]}


def test_both_sides_of_a_cut_count_as_one_rule() -> None:
    """Release 8's ``SameRule`` compares a threshold test's cut, not its side, and a
    nominal test's value: ``w > 2`` repeats ``w <= 2`` for the same class."""
    rule = Rule(1, (Condition(0, "<=", threshold=2.0),), YES, 0.2)
    tests = (_cont(0, "<=", 2.0),)
    assert _same_rule(rule, tests, [_cont(0, ">", 2.0)], YES)
    assert not _same_rule(rule, tests, [_cont(0, ">", 3.0)], YES)
    assert not _same_rule(rule, tests, [_cont(0, ">", 2.0)], NO)
    nominal = Rule(2, (Condition(1, "=", value=0),), YES, 0.2)
    assert _same_rule(nominal, (_nom(1, 0),), [_nom(1, 0)], YES)
    assert not _same_rule(nominal, (_nom(1, 0),), [_nom(1, 1)], YES)


@pytest.mark.parametrize("float32", [True, False])
def test_conditions_are_tested_as_defined_on_hostile_values(float32: bool) -> None:
    """CaseColumns (one read-out of each column for many conditions) against the plain
    definition: an unknown value satisfies nothing; c45 rounds x to float32 first."""
    big = float(np.finfo(np.float32).max)
    values = [np.nan, 0.0, -0.0, 1.0, 2.0, 2.5, -1e300, 1e300, big, big * 1.0000001, 0.1, np.inf]
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.choice(values, 400), rng.choice([np.nan, 0.0, 1.0, 2.0], 400)])
    cols = CaseColumns(X, float32)
    conds = [Condition(1, "=", value=v) for v in (0, 1, 2)]
    conds += [Condition(1, "in", values=vs) for vs in ((0, 2), (1,), (0, 1, 2))]
    for t in (0.0, 1.0, 2.5, 0.1, big, -big):
        t32 = float(np.float32(t))
        conds += [Condition(0, op, threshold=t32) for op in ("<=", ">")]
    for c in conds:
        col = X[:, c.attribute]
        known = ~np.isnan(col)
        if c.op == "=":
            want = known & (col == c.value)
        elif c.op == "in":
            want = known & np.isin(col, c.values)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                v = col.astype(np.float32) if float32 else col
                t = np.float32(c.threshold) if float32 else c.threshold
                want = known & ((v <= t) if c.op == "<=" else (v > t))
        assert np.array_equal(cols.satisfied(c), want), c
        assert np.array_equal(satisfied(c, X, float32), want), c


@pytest.mark.parametrize("seed", range(6))
def test_looking_only_at_cases_failing_few_conditions_changes_nothing(seed: int) -> None:
    """``_prune`` restricted to the cases failing at most one more condition than it has
    removed (given their failure counts) gives what it gives looking at every case."""
    rng = np.random.default_rng([51, seed])
    for _ in range(200):
        k, n = int(rng.integers(1, 9)), int(rng.integers(1, 300))
        missed = rng.random((k, n)) < rng.uniform(0.02, 0.6, size=(k, 1))
        wrong = rng.random(n) < rng.random()
        default = to_f32(1.0 - (int((~wrong).sum()) + 1.0) / (n + 2.0))
        assert _prune(missed, wrong, BOUND, default, missed.sum(axis=0)) == _prune(
            missed, wrong, BOUND, default
        )
