"""The firmware benchmark (bench/firmware_bench.py): its table names every model's
nodes, a C4.5 tree's and an imported tree's (an ensemble of one) alike, and its runs
on a simulated chip count the rows the chip gets wrong."""

from __future__ import annotations

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.core import Ensemble
from treegen.firmware import check, targets

from bench import firmware_bench as fb

pytest.importorskip("sklearn")


def _iris() -> tuple[Ensemble, np.ndarray]:
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    import treegen

    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    return treegen.from_sklearn(est).value, X.astype(np.float32)


def test_a_row_counts_the_nodes_of_either_kind() -> None:
    golf, _ = check.load("golf")
    iris, _ = _iris()
    cells = [fb.Cell(120, 40), fb.Cell(note="-"), fb.Cell(96, 30, mismatches=2)]
    row = fb.table_row("golf", golf, 14, "ifs", cells).split(" | ")
    assert row[1] == str(len(golf.nodes)) and row[-1] == "2 |"
    row = fb.table_row("iris", iris, 38, "lean table", cells).split(" | ")
    assert row[1] == str(sum(t.n_nodes for t in iris.trees))
    assert row[4:7] == ["120 / 40", "-", "96 / 30"]


@pytest.mark.toolchain
def test_an_imported_tree_on_the_m0plus_has_no_mismatch() -> None:
    if not targets.available(targets.target("m0plus")):
        pytest.skip("arm-none-eabi-gcc or qemu-system-arm is not installed")
    iris, X = _iris()
    for kw in fb.EXPORTS.values():
        cell = fb.measure(iris, X[:20], ExportOptions(prefix="iris", **kw), "m0plus")
        assert cell.note == "" and cell.mismatches == 0 and cell.flash > 0 and cell.median > 0
