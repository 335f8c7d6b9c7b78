"""Continuous values anywhere in the flavour's range train without an
exception.

Two adjacent values near the type's limit whose sum overflows (a column holding
-1.7e308 and -1.6e308 in double, -3.4e38 and -3.3e38 in float32) once made the
midpoint -inf and training stop with an AssertionError.  The midpoint is now taken
so it cannot overflow, and the threshold is still the lower value, as Release 8 and
J48 print it.  The property tests draw columns over the whole range of each flavour
(float32 for c45, whose values are floats, double for j48), both signs, subnormals
and signed zeros included: ``train`` (both case orders) and ``rules`` finish, and
every threshold is a value of its column.  A few hundred cases run in the fast set;
the ``slow`` set runs thousands.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import Model
from treegen.rules.generate import rules_of_data
from treegen.trainer import TrainOptions, train

from support.cli import run_cli

SCHEMA = Schema((Attribute("a", "continuous"), Attribute("b", "continuous")), ("x", "y", "z"))


def _dataset(values: list[float], labels: list[int]) -> Dataset:
    n = len(labels)
    col = np.resize(np.asarray(values, dtype=np.float64), n)
    X = np.column_stack([col, col[::-1]])
    return Dataset(SCHEMA, X, np.asarray(labels, dtype=np.int32))


def _thresholds_are_values(model: Model, ds: Dataset, float32: bool) -> None:
    for node in model.nodes:
        if node.kind == "continuous":
            col = ds.X[:, node.attribute]
            col = col.astype(np.float32).astype(np.float64) if float32 else col
            assert node.threshold in set(col.tolist())


def _near_limits(width: int) -> st.SearchStrategy[float]:
    """Values near the type's limit and its smallest ones, and anything in between."""
    top = float(np.finfo(np.float32 if width == 32 else np.float64).max)
    tiny = 5e-324 if width == 64 else 1e-45  # the smallest subnormal
    edges = st.sampled_from([top, top / 1.01, top / 1.05, top / 2, tiny])
    signed = st.builds(lambda v, neg: -v if neg else v, edges, st.booleans())
    anything = st.floats(width=width, allow_nan=False, allow_infinity=False, allow_subnormal=True)
    return st.one_of(signed, anything, st.sampled_from([0.0, -0.0]))


def _case(width: int) -> st.SearchStrategy[tuple[list[float], list[int]]]:
    return st.tuples(
        st.lists(_near_limits(width), min_size=2, max_size=12),
        st.lists(st.integers(0, 2), min_size=6, max_size=24),
    )


def _check_c45(values: list[float], labels: list[int]) -> None:
    ds = _dataset(values, labels)
    for order in ("release8", "rows"):
        for opts in (TrainOptions(), TrainOptions(prune=False, min_cases=1)):
            _thresholds_are_values(train(ds, opts, case_order=order), ds, True)  # type: ignore[arg-type]
    printed, final = rules_of_data(ds, min_cases=1)
    assert len(final.rules) <= len(printed.rules)


def _check_j48(values: list[float], labels: list[int]) -> None:
    ds = _dataset(values, labels)
    for opts in (TrainOptions(flavor="j48"), TrainOptions(flavor="j48", prune=False, min_cases=1)):
        _thresholds_are_values(train(ds, opts), ds, False)


QUICK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@QUICK
@given(_case(32))
def test_c45_trains_on_any_float(case: tuple[list[float], list[int]]) -> None:
    _check_c45(*case)


@QUICK
@given(_case(64))
def test_j48_trains_on_any_double(case: tuple[list[float], list[int]]) -> None:
    _check_j48(*case)


@pytest.mark.slow
@LONG
@given(_case(32))
def test_c45_trains_on_any_float_long(case: tuple[list[float], list[int]]) -> None:
    _check_c45(*case)


@pytest.mark.slow
@LONG
@given(_case(64))
def test_j48_trains_on_any_double_long(case: tuple[list[float], list[int]]) -> None:
    _check_j48(*case)


@pytest.mark.parametrize(
    ("flavor", "lo", "hi"),
    [
        ("c45", -3.4e38, -3.3e38),  # the float32 sum overflows to -inf
        ("j48", -1.7e308, -1.6e308),  # the double sum overflows to -inf
        ("c45", 3.3e38, 3.4e38),  # and to +inf
        ("j48", 1.6e308, 1.7e308),
    ],
)
@pytest.mark.parametrize("order", ["release8", "rows"])
def test_the_threshold_is_the_lower_value(flavor: str, lo: float, hi: float, order: str) -> None:
    """The issue's example: the cut lies between the two values, at the lower one."""
    X = np.asarray([[lo, 0.0]] * 3 + [[hi, 0.0]] * 3)
    y = np.asarray([0] * 3 + [1] * 3, dtype=np.int32)
    ds = Dataset(SCHEMA, X, y)
    m = train(ds, TrainOptions(flavor=flavor), case_order=order)  # type: ignore[arg-type]
    assert [n.kind for n in m.nodes] == ["continuous", "leaf", "leaf"]
    assert m.nodes[0].threshold == (float(np.float32(lo)) if flavor == "c45" else lo)
    if flavor == "c45":
        printed, _ = rules_of_data(ds)
        assert {c.threshold for r in printed.rules for c in r.conditions} == {m.nodes[0].threshold}


@pytest.mark.parametrize(
    ("argv", "lo", "hi"),
    [
        (("train", "--flavor", "j48"), "-1.7e308", "-1.6e308"),
        (("train",), "-3.4e38", "-3.3e38"),
        (("rules",), "-3.4e38", "-3.3e38"),
    ],
)
def test_commands_finish_on_the_issues_columns(
    argv: tuple[str, ...], lo: str, hi: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``treegen train`` and ``treegen rules`` on a CSV column holding two such values."""
    data = tmp_path / "big.csv"
    data.write_text("a,class\n" + f"{lo},x\n" * 3 + f"{hi},y\n" * 3)
    out = tmp_path / ("m.tree" if argv[0] == "train" else "m.rules")
    code, _, err = run_cli(capsys, "-q", *argv, str(data), "-o", str(out))
    assert code == 0, err
    assert out.exists()
