"""The full (``--missing c45``) table of a tree whose tests are all binary: one code
column (feature << 2 | op) instead of op and feature, no first-slot column (test
t's slots are 2t and 2t + 1) and, where the shares allow, one share word per test
(treegen.codegen.layout.paired_shares).  Only the encoding changes: verify (classes
and fixed-point probabilities, missing values at every test included) must still
find no mismatch, with paired shares and with the two-shares fallback.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from treegen.codegen import layout
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.kinds.check import verify
from treegen.model.core import Model
from treegen.model.fixedpoint import W_ONE
from treegen.verify.build import have_compiler

from support import codegen_models as cm
from support.modes import EXPORT_MODES

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import make_classification  # noqa: E402

import treegen  # noqa: E402

needs_gcc = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")


def sklearn_tree() -> Model:
    """A deep tree of binary tests only (continuous features), trained on scikit-learn's
    make_classification data."""
    X, y = make_classification(600, n_features=6, n_informative=4, n_classes=3, random_state=1)
    return treegen.train(X, y, min_cases=2).value


def unpaired_chain() -> Model:
    """cm.chain with every test's items one case above its children's sum: the
    shares then sum to W_ONE - 2 or less, which one share word cannot express."""
    m = cm.chain(12)
    nodes = tuple(replace(n, items=n.items + 1.0) if n.children else n for n in m.nodes)
    return Model(m.schema, nodes, m.options)


def columns(source: str) -> dict[str, int]:
    return {name: int(n) for name, n in re.findall(r"static const \w+ \w+?_(\w+)\[(\d+)\]", source)}


@pytest.mark.parametrize("make", [sklearn_tree, lambda: cm.chain(20), cm.stump])
def test_binary_table_has_code_column_and_one_share_per_test(make: object) -> None:
    assert callable(make)
    ir = lower(make(), ExportOptions(prefix="m", style="table"))
    t = layout.flatten(ir)
    assert t.binary and t.n_tests > 0
    cols = columns(emit(ir, "table")["predict.c"])
    assert "first" not in cols and "op" not in cols and "feature" not in cols
    assert cols["code"] == t.n_tests
    assert cols["ref"] == 2 * t.n_tests
    assert cols["share"] == t.n_tests


def test_unpaired_shares_keep_two_per_test() -> None:
    ir = lower(unpaired_chain(), ExportOptions(prefix="m", style="table"))
    t = layout.flatten(ir)
    assert t.binary and layout.paired_shares(t) is None
    cols = columns(emit(ir, "table")["predict.c"])
    assert cols["share"] == 2 * t.n_tests and "first" not in cols


def test_nominal_tree_keeps_the_general_columns() -> None:
    ir = lower(cm.golf(), ExportOptions(prefix="m", style="table"))
    cols = columns(emit(ir, "table")["predict.c"])
    assert {"op", "feature", "first"} <= set(cols) and "code" not in cols


@pytest.mark.parametrize("make", [sklearn_tree, lambda: cm.chain(20), unpaired_chain])
def test_paired_words_rebuild_every_share(make: object) -> None:
    """The C's decoding of a share word, written out: it gives back both shares."""
    assert callable(make)
    t = layout.flatten(lower(make(), ExportOptions(prefix="m", style="table")))
    words = layout.paired_shares(t)
    if words is None:
        assert any(W_ONE - t.share[2 * k] - t.share[2 * k + 1] > 1 for k in range(t.n_tests))
        return
    for k, u in enumerate(words):
        s0 = u & 0x7FFFFFFF
        assert (s0, W_ONE - s0 - (u >> 31)) == (t.share[2 * k], t.share[2 * k + 1])


@needs_gcc
@pytest.mark.parametrize("mode", ["float", "int16", "keys", "double"])
@pytest.mark.parametrize("which", ["sklearn", "unpaired"])
def test_verify_binary_table(which: str, mode: str, tmp_path: Path) -> None:
    model = sklearn_tree() if which == "sklearn" else unpaired_chain()
    opts = ExportOptions(prefix="m", style="table", **EXPORT_MODES[mode])  # type: ignore[arg-type]
    report = verify(model, opts, n_random=400, workdir=tmp_path)
    assert report.rows > 100
    assert report.failed_rows == 0, report.text()
