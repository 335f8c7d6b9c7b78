"""The rules' inputs from the growth (treegen/rules/grown.py): the grower's arrays read as
the unpruned model's nodes, the values read back from the context, and ``treegen rules``
on them giving the ruleset made from the model and the file's values."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

from tests.rules.test_rules_native import _mixed
from treegen.cli.main import main
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.model.constants import KIND_LEAF
from treegen.model.core import ContinuousTest, Leaf, NominalTest, SubsetTest
from treegen.model.options import ModelOptions
from treegen.rules import grown
from treegen.rules.file import load_ruleset, ruleset_to_json
from treegen.rules.generate import generalise, generate, unpruned_options
from treegen.rules.grown import GrownNodes, GrownTree, context_values, shape_of
from treegen.rules.shape import of_nodes
from treegen.trainer import train
from treegen.trainer.fit import grow_unpruned
from treegen.trainer.levelwise import flat
from treegen.trainer.prepare import prepare


def _known(seed: int, n: int) -> Dataset:
    """:func:`_mixed` without unknown values or -0.0 (the level-wise engine grows it) and
    with an ignored column."""
    ds = _mixed(seed, n)
    X = np.nan_to_num(ds.X, nan=1.0)
    X[X == 0] = 0.0
    X = np.concatenate([X, np.full((n, 1), 7.0)], axis=1)
    attrs = (*ds.attributes, Attribute("skip", "ignore", ()))
    return Dataset(Schema(attrs, ds.classes, "class"), X, ds.y, "test")


def _grown(ds: Dataset, subsets: bool = False) -> tuple[flat.FlatTree, Dataset]:
    p = prepare(ds, unpruned_options(2, 0.25, subsets, "gainratio"))
    tree = grow_unpruned(p)
    assert isinstance(tree, flat.FlatTree)
    return tree, context_values(p.ctx, p.schema, ds.source, ds.labels)


@pytest.mark.parametrize(("seed", "subsets"), [(0, False), (1, True), (2, False)])
def test_nodes_are_the_models(seed: int, subsets: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in order, by index (twice, the second time from the recent ones, some
    forgotten in between) and by slice, the nodes equal grown_nodes' and the trained
    unpruned model's, field for field."""
    monkeypatch.setattr(grown, "RECENT", 16)
    ds = _known(seed, 3000)
    tree, _ = _grown(ds, subsets)
    nodes = GrownNodes(tree)
    want = flat.grown_nodes(tree)
    model = train(ds, unpruned_options(2, 0.25, subsets, "gainratio"))
    assert model.nodes == want
    assert len(nodes) == len(want) > 4 * grown.RECENT
    assert tuple(nodes) == want
    assert all(nodes[k] == want[k] for k in range(len(want)))
    assert all(nodes[k] is nodes[k] for k in range(len(want) - 10, len(want)))
    assert nodes[-1] == want[-1] and nodes[3:9] == want[3:9]
    with pytest.raises(IndexError):
        nodes[len(want)]
    kinds = {type(n) for n in want}
    assert ContinuousTest in kinds and {NominalTest, SubsetTest} & kinds
    assert (SubsetTest in kinds) == subsets


@pytest.mark.parametrize(("seed", "subsets"), [(0, False), (1, True)])
def test_shape_is_the_models(seed: int, subsets: bool) -> None:
    """The shape read from the grower's arrays is the one of the model's nodes: kinds,
    classes, weights, tests and children (a leaf's attribute, a cut where there is no
    threshold test, are not read)."""
    ds = _known(seed, 3000)
    tree, _ = _grown(ds, subsets)
    got = shape_of(GrownNodes(tree))
    nodes = flat.grown_nodes(tree)
    want = of_nodes(nodes)
    assert len(got) == len(want) > 40
    test = got.array("kind") != 0
    for name in ("kind", "cls", "items", "kid_at", "kids"):
        assert np.array_equal(got.array(name), want.array(name)), name
    cont = got.array("kind") == 1
    assert np.array_equal(got.array("attribute")[test], want.array("attribute")[test])
    assert np.array_equal(got.array("threshold")[cont], want.array("threshold")[cont])
    # the grower's groups of nodes that ended as leaves are there too, and not read
    groups = {int(i): got.subsets[int(i)] for i in np.flatnonzero(got.array("kind") == 3)}
    assert groups == dict(want.subsets)
    assert bool(groups) == subsets
    leaves = sum(isinstance(v, Leaf) and v.items >= 1.0 for v in nodes)
    assert got.n_leaves(1.0) == want.n_leaves(1.0) == leaves > 10


def test_values_are_the_files_float32() -> None:
    """The context's tables read as the file's table narrowed to float32, value for value
    (NaN where unknown, an ignored column all NaN), in each form the rules read: a
    column, a column's rows in an order, one cell a row; and the classes."""
    ds = _mixed(4, 2000)
    X = np.concatenate([ds.X, np.full((ds.n_rows, 1), 3.5)], axis=1)
    ds = Dataset(
        Schema((*ds.attributes, Attribute("skip", "ignore", ())), ds.classes, "class"),
        X,
        ds.y,
        "test",
    )
    p = prepare(ds, unpruned_options(2, 0.25, False, "gainratio"))
    got = context_values(p.ctx, p.schema, ds.source, ds.labels)
    want = ds.X.astype(np.float32)
    want[:, -1] = np.nan
    assert np.isnan(want[:, :-1]).any()
    table = got.X
    assert table.shape == want.shape and got.n_rows == ds.n_rows
    rng = np.random.default_rng(2)
    order = rng.permutation(ds.n_rows).astype(np.int32)
    for a in range(want.shape[1]):
        for col, expect in ((table[:, a], want[:, a]), (table[order, a], want[order, a])):
            assert col.dtype == np.float32
            assert np.array_equal(col, expect, equal_nan=True)
    rows = rng.integers(0, ds.n_rows, size=5000).astype(np.intp)
    atts = rng.integers(0, want.shape[1], size=5000).astype(np.intp)
    assert np.array_equal(table[rows, atts], want[rows, atts], equal_nan=True)
    with pytest.raises(TypeError):
        table[:, 1:3]
    assert np.array_equal(got.y, ds.y) and got.y.dtype == np.int32
    assert got.schema == ds.schema


@pytest.mark.parametrize(("seed", "subsets"), [(0, False), (1, True)])
def test_generalised_from_the_arrays(seed: int, subsets: bool) -> None:
    """The same rules and rule cases from the arrays and the context's values as from the
    model and the file's values."""
    ds = _known(seed, 4000)
    opts = unpruned_options(2, 0.25, subsets, "gainratio")
    tree, values = _grown(ds, subsets)
    a = generalise(values, GrownTree.of(tree, ModelOptions.of(opts)), 0.25)
    b = generalise(ds, train(ds, opts), 0.25)
    assert a.rules == b.rules and len(a.rules) > 10
    rows_a, rows_b = a.rows.unpacked(), b.rows.unpacked()
    assert all(np.array_equal(x, y) for x, y in zip(rows_a, rows_b, strict=True))
    assert a.options == b.options


@pytest.mark.parametrize("unknown", [False, True])
def test_cli_rules_as_generate(tmp_path: Path, unknown: bool) -> None:
    """``treegen rules -o`` writes the ruleset generate makes from the file's data and its
    trained unpruned tree: grown level-wise (no unknown value), and in Release 8's case
    order (unknown values on few rows: a model, not arrays)."""
    ds = _mixed(5, 1500) if unknown else _known(5, 1500)
    data = tmp_path / "d.csv"
    lines = [",".join([*(a.name for a in ds.attributes), "class"])]
    for row, c in zip(ds.X.tolist(), ds.y.tolist(), strict=True):
        cells = []
        for a, v in zip(ds.attributes, row, strict=True):
            if v != v:
                cells.append("?")
            elif a.kind == "nominal":
                cells.append(a.values[int(v)])
            else:
                cells.append(repr(v))
        lines.append(",".join([*cells, ds.classes[c]]))
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["-q", "rules", str(data), "-o", str(out)]) == 0
    read = read_dataset(str(data), float32=True)
    want = generate(read, train(read, unpruned_options(2, 0.25, False, "gainratio")))[1]
    assert ruleset_to_json(load_ruleset(str(out))) == ruleset_to_json(want)
    assert len(want.rules) > 3


def _stack_pre_order(tree: flat.FlatTree) -> list[int]:
    """The reachable nodes in pre-order, one step a node (the reference)."""
    out, stack = [], [0]
    while stack:
        i = stack.pop()
        out.append(i)
        if tree.kind[i] != KIND_LEAF:
            f, c = int(tree.first[i]), int(tree.count[i])
            stack.extend(range(f + c - 1, f - 1, -1))
    return out


@pytest.mark.parametrize(("seed", "subsets"), [(3, False), (4, True)])
def test_pre_order_level_by_level_as_node_by_node(seed: int, subsets: bool) -> None:
    """The level-wise pre-order is the stack walk's, also where tests were made leaves
    (their subtrees unreachable, left out)."""
    tree, _ = _grown(_known(seed, 3000), subsets)
    want = _stack_pre_order(tree)
    assert grown._pre_order(tree).tolist() == want and len(want) > 40
    tests = np.flatnonzero(tree.kind[: tree.n] != KIND_LEAF)
    tree.kind[tests[1::7]] = KIND_LEAF  # some tests made leaves, the root kept
    cut = _stack_pre_order(tree)
    assert len(cut) < len(want)
    assert grown._pre_order(tree).tolist() == cut
