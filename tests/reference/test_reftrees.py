"""Tests of tests/support/reftrees.py: the parser of Release 8 / J48 printed trees.

The golden tests are only as good as this parser, so it is checked against
what the files themselves state: every parsed tree's node and leaf counts
must equal the sizes printed in the same file, leaf N must add up to the
number of cases, [Sk] blocks must be spliced back, and a hand-built treegen
Model must render to exactly the tree Release 8 printed for it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from support import reftrees as rt

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
DATASETS = sorted(p.name for p in REF.iterdir() if p.is_dir())


def test_all_nine_datasets_present() -> None:
    assert len(DATASETS) == 9


def _leaf_n_sum(tree: rt.Tree) -> float:
    return sum(float(leaf.n) for _, leaf in rt.leaves(tree))


@pytest.mark.parametrize("name", DATASETS)
def test_c45r8_sizes_agree_with_printed_evaluation(name: str) -> None:
    out = rt.parse_c45r8((REF / name / "c45r8.out").read_text())
    assert rt.size(out.unpruned) == out.training.size_before
    assert rt.size(out.pruned) == out.training.size_after
    assert out.training.items == out.cases
    # Pruning never grows a tree; an unprinted simplified tree means "unchanged".
    assert out.training.size_after <= out.training.size_before
    if not out.simplified_printed:
        assert out.training.size_after == out.training.size_before
        assert out.training.errors_after == out.training.errors_before
    # Leaf N are rounded to 0.1 each; their sum is the number of cases.
    for tree in (out.unpruned, out.pruned):
        slack = 0.05 * rt.n_leaves(tree) + 1e-9
        assert abs(_leaf_n_sum(tree) - out.cases) <= slack
    # The error percentages printed are errors / cases.
    assert "%.1f" % (100.0 * out.training.errors_after / out.cases) == out.training.pct_after
    assert "%.1f" % (100.0 * out.training.errors_before / out.cases) == out.training.pct_before


@pytest.mark.parametrize("name", DATASETS)
def test_j48_sizes_agree_with_printed_counts(name: str) -> None:
    out = rt.parse_j48((REF / name / "j48.out").read_text())
    assert rt.size(out.tree) == out.size
    assert rt.n_leaves(out.tree) == out.n_leaves
    assert out.training_total is not None and out.training_errors is not None
    assert abs(_leaf_n_sum(out.tree) - out.training_total) <= 0.005 * out.n_leaves + 1e-9


def test_summary_table_numbers() -> None:
    """Sizes/leaves/errors of SUMMARY.md's table, as parsed from the outputs."""
    expected = {  # name: (R8 size, R8 leaves, R8 train err %, J48 size, J48 leaves)
        "crx": (58, 41, "4.9", 58, 41),
        "golf": (8, 5, "0.0", 8, 5),
        "hypo": (21, 11, "0.2", 21, 11),
        "labor-neg": (7, 4, "2.5", 7, 4),
        "monk1": (18, 12, "16.1", 18, 12),
        "monk2": (31, 20, "23.7", 31, 20),
        "monk3": (12, 9, "6.6", 12, 9),
        "soybean-r8": (94, 61, "3.7", 93, 61),
        "vote-r8": (7, 5, "4.3", 7, 5),
    }
    for name, (size, nl, pct, jsize, jnl) in expected.items():
        r8 = rt.parse_c45r8((REF / name / "c45r8.out").read_text())
        j48 = rt.parse_j48((REF / name / "j48.out").read_text())
        got = (rt.size(r8.pruned), rt.n_leaves(r8.pruned), r8.training.pct_after)
        assert got == (size, nl, pct), name
        assert (rt.size(j48.tree), rt.n_leaves(j48.tree)) == (jsize, jnl), name


def test_same_pruned_tree_column_of_summary() -> None:
    """SUMMARY: R8 and J48 build the same pruned tree on all but soybean.

    Compared on structure, classes and N (R8 prints estimated E in the pruned
    tree, J48 training E, and J48 prints N to 2 decimals).
    """

    def shape(t: rt.Tree) -> rt.Tree:
        if isinstance(t, rt.Leaf):
            return rt.Leaf(t.cls, "", "")
        return rt.make_split(
            t.attribute, [rt.Branch(b.op, b.value, shape(b.child)) for b in t.branches]
        )

    same = {}
    for name in DATASETS:
        r8 = rt.parse_c45r8((REF / name / "c45r8.out").read_text()).pruned
        j48 = rt.parse_j48((REF / name / "j48.out").read_text()).tree
        same[name] = rt.diff(shape(r8), shape(j48)) == []
        if same[name]:
            # N printed %.1f vs roundDouble(2): equal up to the two roundings.
            pairs = zip(sorted(rt.leaves(r8)), sorted(rt.leaves(j48)), strict=False)
            for (pa, la), (pb, lb) in pairs:
                assert pa == pb and abs(float(la.n) - float(lb.n)) <= 0.05 + 0.005 + 1e-9
    assert same == {n: n != "soybean-r8" for n in DATASETS}


def test_golf_unpruned_tree_exactly() -> None:
    out = rt.parse_c45r8((REF / "golf" / "c45r8.out").read_text())
    play, dont = "Play", "Don't Play"
    want = rt.make_split(
        "outlook",
        [
            rt.Branch("=", "overcast", rt.Leaf(play, "4.0", "0.0")),
            rt.Branch(
                "=",
                "sunny",
                rt.make_split(
                    "humidity",
                    [
                        rt.Branch("<=", "75", rt.Leaf(play, "2.0", "0.0")),
                        rt.Branch(">", "75", rt.Leaf(dont, "3.0", "0.0")),
                    ],
                ),
            ),
            rt.Branch(
                "=",
                "rain",
                rt.make_split(
                    "windy",
                    [
                        rt.Branch("=", "true", rt.Leaf(dont, "2.0", "0.0")),
                        rt.Branch("=", "false", rt.Leaf(play, "3.0", "0.0")),
                    ],
                ),
            ),
        ],
    )
    assert out.unpruned == want
    assert out.pruned == want and not out.simplified_printed
    assert out.training.estimate == "38.5"
    j48 = rt.parse_j48((REF / "golf" / "j48.out").read_text())
    assert j48.tree == want  # same N/E strings: integers print "4.0" in both tools


def test_subtree_blocks_are_spliced_in_place() -> None:
    out = rt.parse_c45r8((REF / "soybean-r8" / "c45r8.out").read_text())
    base = [
        "leafspot-size = gt-1/8",
        "roots = norm",
        "mold-growth = absent",
        "fruit spots = absent",
        "leaf-malf = absent",
        "fruiting-bodies = absent",
    ]
    # Unpruned [S1] hangs under date = june / precip = norm.
    s1 = rt.subtree_at(out.unpruned, [*base, "date = june", "precip = norm"])
    assert isinstance(s1, rt.Split) and s1.attribute == "area-damaged"
    assert rt.subtree_at(s1, ["area-damaged = scattered"]) == rt.Leaf("brown-spot", "2.0", "1.0")
    # [S3] contains a nested test (leaf-shread -> seed-tmt -> area-damaged / plant-stand).
    s3 = rt.subtree_at(
        out.unpruned, [*base, "date = august", "plant-growth = norm", "seed = norm", "hail = yes"]
    )
    # leaf-shread + present leaf + seed-tmt + other leaf + area-damaged(1+4) + plant-stand(1+2)
    assert rt.size(s3) == 12
    leaf = rt.subtree_at(
        s3, ["leaf-shread = absent", "seed-tmt = fungicide", "plant-stand = lt-normal"]
    )
    assert leaf == rt.Leaf("alternarialeaf-spot", "5.0", "1.0")
    # The pruned section's own [S1] (numbering restarts per section).
    p1 = rt.subtree_at(
        out.pruned, [*base, "date = august", "leaf-shread = absent", "seed-tmt = fungicide"]
    )
    assert p1 == rt.make_split(
        "plant-stand",
        [
            rt.Branch("=", "normal", rt.Leaf("frog-eye-leaf-spot", "6.0", "1.2")),
            rt.Branch("=", "lt-normal", rt.Leaf("alternarialeaf-spot", "5.0", "2.3")),
        ],
    )


def test_branch_order_is_irrelevant_and_diff_names_the_node() -> None:
    a = rt.parse_j48(
        "J48 pruned tree\n------------------\n\nx <= 1.5: a (3.0)\nx > 1.5\n"
        "|   c = u: b (2.0/1.0)\n|   c = v: a (1.0)\n\nNumber of Leaves  : \t3\n\n"
        "Size of the tree : \t5\n"
    ).tree
    b = rt.parse_j48(
        "J48 pruned tree\n------------------\n\nx > 1.5\n|   c = v: a (1.0/0.0)\n"
        "|   c = u: b (2.0/1.0)\nx <= 1.5: a (3.0)\n\nNumber of Leaves  : \t3\n\n"
        "Size of the tree : \t5\n"
    ).tree
    assert a == b and rt.diff(a, b) == []
    c = rt.parse_j48(
        "J48 pruned tree\n------------------\n\nx > 1.5\n|   c = v: b (1.0)\n"
        "|   c = u: b (2.0/1.0)\nx <= 1.5: a (3.0)\n\nNumber of Leaves  : \t3\n\n"
        "Size of the tree : \t5\n"
    ).tree
    assert rt.diff(a, c) == ["x > 1.5 / c = v: leaf a (1.0/0.0)  !=  leaf b (1.0/0.0)"]


def test_root_leaf_and_malformed_input() -> None:
    j = rt.parse_j48(
        "J48 pruned tree\n------------------\n: yes (14.0/5.0)\n\nNumber of Leaves  : \t1\n\n"
        "Size of the tree : \t1\n"
    )
    assert j.tree == rt.Leaf("yes", "14.0", "5.0")
    with pytest.raises(rt.ParseError):
        rt.parse_j48(
            "J48 pruned tree\n------------------\n\nx <= 1\n|   |   y = a: b (1.0)\n\n"
            "Number of Leaves  : \t1\n\nSize of the tree : \t2\n"
        )
    with pytest.raises(rt.ParseError):
        rt.parse_c45r8(
            "Read 3 cases (1 attributes)\n\nDecision Tree:\n\nx = a:[S1]\n"
            "x = b: c (1.0)\n\nTree saved\n\nEvaluation on training data (3 items):\n"
            "\t   3    0( 0.0%)      3    0( 0.0%)    (50.0%)   <<\n"
        )


def test_number_formats() -> None:
    # Weka's doubleToString(x, 6): round half up at 6 decimals, trailing zeros cut.
    assert rt.weka_double_to_string(228.0) == "228"
    assert rt.weka_double_to_string(2.5) == "2.5"
    assert rt.weka_double_to_string(0.1234567) == "0.123457"
    assert rt.weka_double_to_string(-1.5) == "-1.5"
    assert rt.weka_double_to_string(-0.25) == "-0.25"
    assert rt.weka_double_to_string(1234567.0) == "1234567"
    assert rt.weka_double_to_string(0.0) == "0"
    # roundDouble(x, 2) is half up (Python's %.2f would give 0.12 here).
    assert rt.java_round2(0.125) == "0.13"
    assert rt.java_round2(3.375) == "3.38"
    assert rt.java_round2(21.0) == "21.0"
    assert rt.java_round2(2246.789) == "2246.79"
    # Release 8: %.1f and %g.
    assert rt.c45_number(4.25) == "4.2" and rt.c45_number(0.0) == "0.0"
    assert rt.c45_threshold(27.0) == "27" and rt.c45_threshold(1234567.0) == "1.23457e+06"
    assert rt.c45_threshold(float(__import__("numpy").float32(27.099998))) == "27.1"
    assert not math.isnan(float(rt.c45_threshold(0.5)))


def test_from_model_renders_a_hand_built_golf_model() -> None:
    """A Model built by hand from golf's printed tree renders to that tree in both styles."""
    from treegen.data.dataset import Attribute, Schema
    from treegen.model.core import ContinuousTest, Leaf, Model, Node, NominalTest

    schema = Schema(
        (
            Attribute("outlook", "nominal", ("sunny", "overcast", "rain")),
            Attribute("temperature", "continuous"),
            Attribute("humidity", "continuous"),
            Attribute("windy", "nominal", ("true", "false")),
        ),
        ("Play", "Don't Play"),
    )

    def leaf(cls: int, n: float, e: float) -> Node:
        dist = (n - e, e) if cls == 0 else (e, n - e)
        return Leaf(cls, n, e, dist)

    nodes = (
        NominalTest(0, 14.0, 0.0, (9.0, 5.0), attribute=0, children=(1, 4, 5)),
        ContinuousTest(1, 5.0, 0.0, (2.0, 3.0), attribute=2, threshold=75.0, children=(2, 3)),
        leaf(0, 2.0, 0.0),
        leaf(1, 3.0, 0.0),
        leaf(0, 4.0, 0.0),
        NominalTest(0, 5.0, 0.0, (3.0, 2.0), attribute=3, children=(6, 7)),
        leaf(1, 2.0, 0.0),
        leaf(0, 3.0, 0.0),
    )
    model = Model(schema, nodes)
    out = rt.parse_c45r8((REF / "golf" / "c45r8.out").read_text())
    assert rt.from_model(model, "c45") == out.unpruned
    assert rt.from_model(model, "j48") == rt.parse_j48((REF / "golf" / "j48.out").read_text()).tree
    # A changed leaf count shows up as a named difference.
    bad = Model(schema, (*nodes[:7], leaf(0, 3.5, 0.5)))
    assert rt.diff(rt.from_model(bad, "c45"), out.unpruned) == [
        "outlook = rain / windy = false: leaf Play (3.5/0.5)  !=  leaf Play (3.0/0.0)"
    ]


def test_test_set_evaluation_block_is_parsed() -> None:
    """``c4.5 -u`` appends the same table for the .test file; the references lack it."""
    text = (REF / "crx" / "c45r8.out").read_text()
    assert rt.parse_c45r8(text).test is None
    text += (
        "\n\nEvaluation on test data (200 items):\n\n"
        "\t Before Pruning           After Pruning\n"
        "\t----------------   ---------------------------\n"
        "\tSize      Errors   Size      Errors   Estimate\n\n"
        "\t  90   35(17.5%)     58   34(17.0%)    (11.9%)   <<\n"
    )
    out = rt.parse_c45r8(text)
    assert out.test == rt.R8Evaluation(200, 90, 35, "17.5", 58, 34, "17.0", "11.9")
    assert out.training.errors_after == 24
