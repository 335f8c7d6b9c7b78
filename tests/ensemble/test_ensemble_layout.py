"""The table style's layout (treegen/ensemble/layout.py): count rows stand for exactly
the values they replace, the compact table reaches the leaf the tree reaches for every
answer of its tests, and a row's word gives back every field."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.ir import ETree, LeafRow
from treegen.ensemble.layout import (
    MAX_COUNT,
    NodeTable,
    _word,
    count_row,
    node_table,
    payloads,
    walk,
)
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.view_common import bitsets

from support.sklearn_models import NAMES
from support.sklearn_models import fit_setup as _fit

pytest.importorskip("sklearn")


def test_count_rows_are_exact_or_absent() -> None:
    assert count_row((0.0, 1.0, 0.0)) == (0, 1, 0)
    assert count_row((2 / 3, 1 / 3)) == (2, 1)
    assert count_row((0.25, 0.5, 0.25)) == (1, 2, 1)
    # Every fraction of small counts, reduced: fl(n_c / N) read back is the row.
    rng = random.Random(3)
    for _ in range(2000):
        counts = [rng.choice([0, 0, rng.randrange(1, 400)]) for _ in range(4)]
        if sum(counts) == 0:
            continue
        total = sum(counts)
        got = count_row(tuple(c / total for c in counts))
        assert got is not None
        assert all(g / sum(got) == c / total for g, c in zip(got, counts, strict=True))
        assert sum(got) <= total
    # Not fractions of one total (their sum is not 1), negative, -0.0, NaN, all zero.
    assert count_row((0.5, 0.4)) is None
    assert count_row((1.0, -0.0)) is None
    assert count_row((1.5, -0.5)) is None
    assert count_row((float("nan"), 1.0)) is None
    assert count_row((0.0, 0.0)) is None
    # A total beyond 16 bits has no count row.
    assert count_row((1 / (MAX_COUNT + 2), (MAX_COUNT + 1) / (MAX_COUNT + 2))) is None


def _tree_walk(tree: ETree, go_left: dict[int, bool]) -> int:
    i = 0
    while not isinstance(tree.nodes[i], LeafRow):
        node = tree.nodes[i]
        i = i + 1 if go_left[i] else node.right  # type: ignore[union-attr]
    leaf = tree.nodes[i]
    assert isinstance(leaf, LeafRow)
    return leaf.row


def _table(name: str, fractions: bool) -> tuple[object, object, NodeTable]:
    ir = lower_ensemble(_fit(name), ExportOptions(prefix="e"))
    pay = payloads(ir, fractions)
    _, cat_at = bitsets(ir)
    return ir, pay, node_table(ir, pay, cat_at)


@pytest.mark.parametrize("fractions", [True, False])
@pytest.mark.parametrize("name", NAMES)
def test_the_table_reaches_the_trees_leaf(name: str, fractions: bool) -> None:
    ir, pay, table = _table(name, fractions)
    rng = random.Random(5)
    start = 0
    for t, tree in enumerate(ir.trees):  # type: ignore[attr-defined]
        splits = [i for i, n in enumerate(tree.nodes) if not isinstance(n, LeafRow)]
        row_of = {i: start + k for k, i in enumerate(splits)}
        for _ in range(50):
            answers = {i: rng.random() < 0.5 for i in splits}
            go_left = [False] * table.n_rows
            for i, r in row_of.items():
                go_left[r] = answers[i]
            want = pay.of_row[_tree_walk(tree, answers)]  # type: ignore[attr-defined]
            assert walk(table, table.roots[t], go_left) == want
        start += len(splits)
    assert start == table.n_rows


@pytest.mark.slow
def test_payloads_count_rows_only_for_fractions() -> None:
    for name in ("forest", "wide_forest", "leaf_forest", "tree", "extra"):
        pay = payloads(lower_ensemble(_fit(name), ExportOptions(prefix="e")), True)
        assert pay.fractions and pay.n_pure == 3, name
    wide = payloads(lower_ensemble(_fit("wide_forest"), ExportOptions(prefix="e")), True)
    assert wide.n_narrow < len(wide.counts)  # some rows need 16 bits
    assert all(max(r) <= 0xFF for r in wide.counts[: wide.n_narrow])
    assert all(max(r) > 0xFF for r in wide.counts[wide.n_narrow :])
    # Boosting adds one number per leaf, AdaBoost negative votes: float64 rows.
    for name in ("boosting", "hist", "adaboost"):
        pay = payloads(lower_ensemble(_fit(name), ExportOptions(prefix="e")), True)
        assert not pay.fractions, name
    # The ifs style asks for float64 rows.
    assert not payloads(lower_ensemble(_fit("forest"), ExportOptions(prefix="e")), False).fractions


def test_a_tree_of_one_leaf_is_a_root_edge() -> None:
    _, pay, table = _table("leaf_forest", True)
    assert table.n_rows == 0
    assert all(r >= table.n_rows for r in table.roots)


@pytest.mark.parametrize(
    ("n_features", "kid_max", "ops", "cat", "in_word", "bits"),
    [
        (8, 3840, {0}, False, True, 16),  # feature, missing side and kid in 16 bits
        (3, 300, {0, 1, 2}, True, True, 2 + 1 + 2 + 1 + 9),
        (300, 5000, {1}, False, True, 9 + 1 + 13),  # 23 bits: one uint32 as small as two
        (200, 30000, {0}, False, False, 1 + 15),  # a uint16 and a uint8 column
        (1, 10, {0}, False, True, 1 + 4),  # one feature: no feature bits
    ],
)
def test_word_fields(
    n_features: int, kid_max: int, ops: set[int], cat: bool, in_word: bool, bits: int
) -> None:
    w = _word(n_features, kid_max, ops, cat)
    assert (w.in_word, w.bits) == (in_word, bits)
    assert w.op_bits == (2 if len(ops) > 1 else 0) and w.cat_bits == int(cat)
    # Packing then unpacking gives every field back.
    rng = random.Random(1)
    for _ in range(200):
        f = rng.randrange(n_features)
        kid = rng.randrange(kid_max + 1)
        op = rng.choice(sorted(ops))
        nan = rng.random() < 0.5
        c = cat and rng.random() < 0.5
        table = NodeTable(1, 1, (f,), (0,), (op,), (nan,), (c,), (kid,), (), (0,), w)
        word = table.words()[0]
        assert word < 1 << w.bits
        assert word >> w.kid_shift == kid
        assert (word >> w.nan_shift) & 1 == nan
        if w.op_bits:
            assert (word >> w.op_shift) & 3 == op
        else:
            assert op == w.op
        if w.cat_bits:
            assert (word >> w.cat_shift) & 1 == c
        if w.in_word:
            assert word & ((1 << w.feature_bits) - 1) == f


@pytest.mark.parametrize("name", ["forest", "wide_forest", "boosting", "hist", "adaboost"])
def test_info_table_bytes_are_the_compiled_tables(name: str, tmp_path: Path) -> None:
    """``info``'s table bytes equal the sizes of predict.o's constant objects (the soft
    path, where every constant is a table)."""
    import shutil
    import subprocess

    from treegen.ensemble.emit import table_bytes
    from treegen.kinds.export import render

    if shutil.which("gcc") is None or shutil.which("nm") is None:
        pytest.skip("gcc and nm are needed")
    ens = _fit(name)
    r = render(ens, ExportOptions(prefix="e", style="table"))
    for k, v in r.files.items():
        (tmp_path / k).write_text(v)
    subprocess.run(
        ["gcc", "-O0", "-De_SOFT64=1", "-c", "e_predict.c", "-o", "p.o"], cwd=tmp_path, check=True
    )
    nm = subprocess.run(
        ["nm", "-S", "p.o"], cwd=tmp_path, check=True, capture_output=True, text=True
    ).stdout
    sizes = [int(f[1], 16) for f in (line.split() for line in nm.splitlines())
             if len(f) == 4 and f[2] in "rRdD"]  # fmt: skip
    # A lone divisor constant may be folded into the code (gcc does even at -O0): its 8
    # bytes are then in .text, still counted by table_bytes.
    folded = 8 if ens.divisor is not None and "e_divisor" not in nm else 0
    assert table_bytes(r.lowered) == sum(sizes) + folded
