"""``treegen show MODEL --format rules``: a tree's plain path rules, one per leaf."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

from treegen.cli.main import main
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.model.core import Leaf
from treegen.rules.core import Rule, covers
from treegen.rules.generate import leaf_paths
from treegen.rules.show import format_path_rules
from treegen.trainer import TrainOptions, train

REF = Path(__file__).resolve().parents[1] / "data" / "reference"


def test_golf_as_path_rules(tmp_path: Path) -> None:
    model = tmp_path / "golf.tree"
    assert main(["-q", "train", str(REF / "golf" / "golf.data"), "-o", str(model)]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["show", str(model), "--format", "rules"]) == 0
    assert out.getvalue() == (
        "IF outlook = sunny AND humidity <= 75 THEN class Play\n"
        "IF outlook = sunny AND humidity > 75 THEN class Don't Play\n"
        "IF outlook = overcast THEN class Play\n"
        "IF outlook = rain AND windy = true THEN class Don't Play\n"
        "IF outlook = rain AND windy = false THEN class Play\n"
    )


@pytest.mark.parametrize("name", ["crx", "hypo", "monk2", "soybean-r8"])
@pytest.mark.parametrize("subsets", [False, True])
def test_each_known_row_meets_the_rule_of_its_leaf(name: str, subsets: bool) -> None:
    """One line per leaf; a row with no missing tested value satisfies exactly one path rule,
    whose class is the tree's."""
    ds = read_dataset(str(REF / name / f"{name}.data"))
    tree = train(ds, TrainOptions(subsets=subsets))
    text = format_path_rules(tree)
    assert text.count("\n") == tree.n_leaves
    paths = leaf_paths(tree, empty=True)
    assert len(paths) == tree.n_leaves
    tested = sorted({n.attribute for n in tree.nodes if not isinstance(n, Leaf)})
    X = ds.X[~np.isnan(ds.X[:, tested]).any(axis=1)]
    assert len(X) > 0
    hits = np.stack([covers(Rule(0, p, 0, 0.0), X) for _, p in paths])
    assert (hits.sum(axis=0) == 1).all()
    leaf_cls = np.array([tree.nodes[i].cls for i, _ in paths])
    assert (leaf_cls[hits.argmax(axis=0)] == predict(tree, X)).all()


def test_a_one_leaf_tree_is_if_true(tmp_path: Path) -> None:
    data = tmp_path / "one.csv"
    data.write_text("a,class\n1,x\n2,x\n3,x\n")
    model = tmp_path / "one.tree"
    assert main(["-q", "train", str(data), "-o", str(model)]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["show", str(model), "--format", "rules"]) == 0
    assert out.getvalue() == "IF true THEN class x\n"
