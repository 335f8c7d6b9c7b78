"""``--missing none``: a test whose branches are equal subtrees is folded at export.

Pruning keeps such tests (Release 8 does, and ``treegen show`` prints them), unpruned
trees have many (two leaves of one class under a test).  Under ``--missing none`` every
row takes one path, so the C keeps one of the equal subtrees
(treegen.codegen.fold): no class and, with ``--proba``, no probability changes, which
the property test checks against the none rule on the C4.5 IR on rows either side of
every threshold of the unfolded tree, NaN and sentinels included.  ``show`` keeps the
tree, and ``export --report`` names the folded tests.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treegen.codegen.emit import emit
from treegen.codegen.ir import IR, Compare, Leaf, Member
from treegen.codegen.lean import leaf_value
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.kinds.check import verify
from treegen.kinds.tree import TREE
from treegen.model.core import ContinuousTest, Model
from treegen.model.core import Leaf as LeafNode
from treegen.model.options import ModelOptions, TrainOptions
from treegen.model.show import format_tree
from treegen.verify.build import have_compiler
from treegen.verify.inputs import comparison_inputs
from treegen.verify.oracle import evaluate

from support import codegen_models as cm
from support.modes import EXPORT_MODES

MODES = ["lean_float", "lean_keys", "lean_int16", "lean_double", "lean_float_proba"]


def _equal_leaves() -> Model:
    """golf's humidity test with two leaves of one class and different counts."""
    nodes = (
        ContinuousTest(0, 5.0, 0.0, (4.0, 1.0), attribute=2, threshold=75.0, children=(1, 2)),
        LeafNode(0, 2.0, 0.0, (2.0, 0.0)),
        LeafNode(0, 3.0, 1.0, (2.0, 1.0)),
    )
    return Model(cm.GOLF_SCHEMA, nodes, ModelOptions(TrainOptions(flavor="c45")))


def _coarse(model: Model) -> Model:
    """``model`` with one distribution per class at its leaves, so that with --proba too
    sibling subtrees are often equal."""
    n = len(model.schema.classes)
    nodes = tuple(
        replace(
            node,
            items=10.0,
            dist=tuple(10.0 - n + 1 if c == node.cls else 1.0 for c in range(n)),
        )
        if isinstance(node, LeafNode)
        else node
        for node in model.nodes
    )
    return Model(model.schema, nodes, model.options)


def _value(ir: IR, i: int) -> object:
    """Node ``i``'s subtree as a nested tuple: what the C computes from it (tests and
    leaf values), written apart from treegen.codegen.fold."""
    node = ir.nodes[i]
    if isinstance(node, Leaf):
        return leaf_value(ir, node)
    assert isinstance(node, Compare | Member)
    test = (node.op, node.threshold) if isinstance(node, Compare) else node.codes
    return (node.feature, test, _value(ir, node.children[0]), _value(ir, node.children[1]))


def test_equal_leaves_fold_without_proba_and_stay_with_it() -> None:
    model = _equal_leaves()
    ir = lower(model, ExportOptions(prefix="m", missing="none"))
    assert len(ir.nodes) == 1 and isinstance(ir.nodes[0], Leaf)
    assert ir.subtree_folds == (0,)
    assert "x[2]" not in emit(ir)["predict.c"]  # humidity is not read
    summary = TREE.summary(ir, ExportOptions(style="ifs", missing="none"))
    assert "1 test whose branches give the same answer folded (model node 0" in summary
    # The leaves' probabilities differ (2/2, 2/3): with --proba the test stays.
    proba = lower(model, ExportOptions(prefix="m", missing="none", proba=True))
    assert len(proba.nodes) == 3 and proba.subtree_folds == ()
    assert "folded" not in TREE.summary(proba, ExportOptions(style="ifs", missing="none"))
    # C4.5's missing-value rule keeps every test (the weights split at it).
    assert len(lower(model, ExportOptions(prefix="m")).nodes) == 3
    # show prints Release 8's tree, the test included.
    assert "humidity <= 75" in format_tree(model, "c45")


@pytest.mark.skipif(not have_compiler(), reason="no C compiler")
@pytest.mark.parametrize("style", ["ifs", "table"])
def test_folded_c_verifies(style: str) -> None:
    """The C of a folded tree against the none rule on the tree as trained, on rows
    either side of the folded tests' thresholds too."""
    for mode in ("lean_float", "lean_int16", "lean_float_proba"):
        model = cm.synthetic(3, size=60)
        model = _coarse(model) if "proba" in mode else model
        opts = ExportOptions(prefix="m", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
        assert lower(model, opts).subtree_folds, mode
        report = verify(model, opts, n_random=300)
        assert report.ok, report.text()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    mode=st.sampled_from(MODES),
    coarse=st.booleans(),
    size=st.integers(5, 80),
)
def test_folding_changes_no_answer(seed: int, mode: str, coarse: bool, size: int) -> None:
    model = cm.synthetic(seed, size=size)
    if coarse:
        model = _coarse(model)
    opts = ExportOptions(prefix="m", **EXPORT_MODES[mode])  # type: ignore[arg-type]
    folded = lower(model, opts)
    whole = lower(model, opts, fold_equal=False)
    full = lower(model, replace(opts, missing="c45", proba=True, inline_top=None))
    X = comparison_inputs(whole, None, n_random=200, seed=seed)
    cls, p = evaluate(folded, X, "none")
    want_cls, want_p = evaluate(full, X, "none")
    assert np.array_equal(cls, want_cls)
    if folded.proba:
        assert np.array_equal(p, want_p)
    # Folding shrinks the tree exactly when it reports a fold, and leaves no test whose
    # branches are equal.
    assert (len(folded.nodes) < len(whole.nodes)) == bool(folded.subtree_folds)
    for node in folded.nodes:
        if isinstance(node, Compare | Member):
            a, b = node.children
            assert _value(folded, a) != _value(folded, b)
