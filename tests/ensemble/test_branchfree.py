"""The ifs style's select expressions (treegen.ensemble.branchfree): which subtrees become
one, how they read, and that both forms of PREFIX_SEL (the masks of a host, the ``?:`` of
a microcontroller) return what the nested ifs would, bit for bit, on one host."""

from __future__ import annotations

import re
import shutil
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import branchfree, classify
from treegen.ensemble.lower import LeafRow, Split
from treegen.ensemble.regress import from_estimator
from treegen.kinds.export import render
from treegen.verify.build import build

from support.sklearn_models import fit_setup, sklearn_thresholds, threshold_rows
from support.sklearn_regressors import fit_regressor, regression_data

pytest.importorskip("sklearn")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _split(f: int, right: int) -> Split:
    return Split(f, "le", 100 + f, False, right, float(f))


def _lines(nodes: list[Any]) -> list[str]:
    return branchfree.select_lines(
        nodes,
        0,
        "return ",
        "SEL",
        lambda n: f"k[{n.feature}] <= {n.threshold}u",
        lambda n: f"x{n.feature}",
        lambda leaf: leaf.row + 10,
    )


def test_heights_count_levels_of_tests_and_refuse_other_tests() -> None:
    full = [_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), _split(2, 6), LeafRow(2),
            LeafRow(3)]  # fmt: skip
    assert branchfree.heights(full) == [2, 1, 0, 0, 1, 0, 0]
    assert branchfree.heights(full, key_walk=False)[0] > branchfree.HEIGHT
    missing_only = [Split(0, "left", 0, True, 2, 0.0), LeafRow(0), LeafRow(1)]
    assert branchfree.heights(missing_only)[0] > branchfree.HEIGHT
    zero = [Split(0, "le", 5, False, 2, 0.0, zero=True), LeafRow(0), LeafRow(1)]
    assert branchfree.heights(zero)[0] > branchfree.HEIGHT


def test_select_lines_read_as_the_subtree() -> None:
    full = [_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), _split(2, 6), LeafRow(2),
            LeafRow(3)]  # fmt: skip
    assert _lines(full) == [
        "return SEL(k[0] <= 100u, /* x0 */",
        "    SEL(k[1] <= 101u, 10u, 11u), /* x1 */",
        "    SEL(k[2] <= 102u, 12u, 13u)); /* x2 */",
    ]
    assert _lines([_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), LeafRow(2)]) == [
        "return SEL(k[0] <= 100u, /* x0 */",
        "    SEL(k[1] <= 101u, 10u, 11u), /* x1 */",
        "    12u);",
    ]
    assert _lines([_split(0, 2), LeafRow(0), _split(1, 4), LeafRow(1), LeafRow(2)]) == [
        "return SEL(k[0] <= 100u, 10u, /* x0 */",
        "    SEL(k[1] <= 101u, 11u, 12u)); /* x1 */",
    ]
    assert _lines([_split(0, 2), LeafRow(0), LeafRow(1)]) == [
        "return SEL(k[0] <= 100u, 10u, 11u); /* x0 */"
    ]


def _selects(text: str, prefix: str) -> int:
    """The PREFIX_SEL calls (tests in selects; each reads a key)."""
    return len(re.findall(rf"\b{prefix}_SEL\(k\[", text))


def test_only_the_last_two_levels_of_a_key_walk_are_selects() -> None:
    """Every test of the ifs is in a select or an if; no select holds more than
    HEIGHT levels; a walk without keys (double input) has none."""
    est = fit_regressor("forest")
    ens = from_estimator(est)
    text = render(ens, ExportOptions(prefix="r", name="predict", style="ifs")).files["predict.c"]
    ifs = len(re.findall(r"^\s*if \(k\[", text, flags=re.M))
    sels = _selects(text, "R")
    n_splits = sum(1 for t in est.estimators_ for f in t.tree_.feature if f >= 0)
    assert sels > 0 and ifs > 0 and ifs + sels == n_splits
    stmts = re.findall(r"^( *)return \(uint\d+_t\)R_SEL(.*?;)", text, flags=re.S | re.M)
    assert len(stmts) > 10
    for pad, stmt in stmts:
        # Each nested select's line is 4 spaces further in than its parent's.
        levels = [(len(m) - len(pad)) // 4 for m in re.findall(r"\n( *)R_SEL", stmt)]
        assert max(levels, default=0) + 1 <= branchfree.HEIGHT
    double = ExportOptions(prefix="r", name="predict", style="ifs", input_type="double")
    assert _selects(render(ens, double).files["predict.c"], "R") == 0


def _bits(a: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@needs_gcc
@pytest.mark.parametrize("branchfree_on", ["0", "1"])
@pytest.mark.parametrize("name", ["extra", "forest", "boosting", "hist"])
def test_both_select_forms_give_predict_bits(name: str, branchfree_on: str, tmp_path: Any) -> None:
    """Forced either way on the host, the ifs returns classify's float64 bits (which
    equal estimator.predict's: tests/ensemble/test_regress.py)."""
    est = fit_regressor(name)
    ens = from_estimator(est)
    r = render(ens, ExportOptions(prefix="r", name="predict", style="ifs"))
    assert _selects(r.files["predict.c"], "R") > 1
    X, _ = regression_data(name)
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    X = np.vstack([X, threshold_rows(np.nan_to_num(X), finite)])
    X32 = X.astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DR_BRANCHFREE={branchfree_on}")
    _, words = built.run(X32)
    got = (words[:, 0::2].astype(np.uint64) << np.uint64(32)) | words[:, 1::2]
    assert np.array_equal(got, _bits(classify.values(ens, X32.astype(np.float64))))


@needs_gcc
@pytest.mark.parametrize("branchfree_on", ["0", "1"])
@pytest.mark.parametrize("name", ["extra", "forest"])
def test_both_select_forms_give_the_class(name: str, branchfree_on: str, tmp_path: Any) -> None:
    ens = fit_setup(name)
    r = render(ens, ExportOptions(prefix="c", name="predict", style="ifs", proba=True))
    assert _selects(r.files["predict.c"], "C") > 1
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 6, 3000), rng.uniform(-5, 5, 3000)])
    X[rng.random(X.shape) < 0.1] = np.nan
    X32 = X.astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DC_BRANCHFREE={branchfree_on}")
    cls, proba = built.run(X32)
    X64 = X32.astype(np.float64)
    assert np.array_equal(cls, classify.predict(ens, X64))
    assert np.array_equal(_bits(proba), _bits(classify.predict_proba(ens, X64)))


@needs_gcc
@pytest.mark.parametrize("lazy", ["0", "1"])
@pytest.mark.parametrize("name", ["tree", "multi_tree"])
def test_one_tree_keys_either_way_give_predict_bits(name: str, lazy: str, tmp_path: Any) -> None:
    """One tree's ifs may key each test's input (PREFIX_LAZYKEYS 1, x86 and AArch64) or
    every input first (0): the same bits either way; a forest keys first always."""
    est = fit_regressor(name)
    ens = from_estimator(est)
    r = render(ens, ExportOptions(prefix="r", name="predict", style="ifs"))
    text = r.files["predict.c"]
    assert "R_LAZYKEYS" in text and re.search(r"\bR_K1?\(\d+, \d+\) <= ", text)
    X, _ = regression_data(name)
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    X32 = np.vstack([X, threshold_rows(np.nan_to_num(X), finite)]).astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DR_LAZYKEYS={lazy}")
    _, words = built.run(X32)
    got = (words[:, 0::2].astype(np.uint64) << np.uint64(32)) | words[:, 1::2]
    assert np.array_equal(got, _bits(classify.values(ens, X32.astype(np.float64))))
    forest = render(from_estimator(fit_regressor("forest")), ExportOptions(prefix="r", style="ifs"))
    assert "LAZYKEYS" not in forest.files["r_predict.c"]
