"""A forest's node stream (treegen.ensemble.node_stream): every walk reaches the compact
table's leaf with its counts, the stream is chosen only where it is smaller, and the C
declares it (the host's answers: tests/ensemble/test_ensemble_c.py; the chips':
tests/ensemble/test_row_pack.py's extra trees)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import node_stream
from treegen.ensemble.ir import EnsembleIR
from treegen.ensemble.layout import Payloads, node_table, payloads, walk
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.view_common import bitsets, splits
from treegen.ensemble.view_table import TableView, table_view
from treegen.kinds.export import render

from support.objsizes import table_sizes
from support.sklearn_models import fit_setup

pytest.importorskip("sklearn")


def _lowered(name: str) -> tuple[EnsembleIR, Payloads]:
    # One tree's C sums only with --proba: without, its classes are decided at export
    # time (EnsembleIR.decided) and it has no stream.
    ir = lower_ensemble(
        fit_setup(name), ExportOptions(prefix="e", proba=True if name == "tree" else None)
    )
    return ir, payloads(ir, fractions=True)


def _counts(pay: Payloads, p: int) -> tuple[int, ...]:
    if p < pay.n_pure:
        return tuple(int(c == p) for c in range(pay.n_pure))
    return pay.counts[p - pay.n_pure]


# wide_forest: counts above 255 (16-bit fields); tree: one tree; leaf_forest: no split.
@pytest.mark.parametrize("name", ["forest", "extra", "wide_forest", "tree", "leaf_forest"])
def test_every_walk_reaches_the_tables_leaf(name: str) -> None:
    ir, pay = _lowered(name)
    table = node_table(ir, pay, bitsets(ir)[1])
    stream = node_stream.encode(ir, pay)
    assert stream is not None and stream.classes == ir.n_outputs
    rng = random.Random(3)
    answers = [[True] * table.n_rows, [False] * table.n_rows]
    answers += [[rng.random() < 0.5 for _ in range(table.n_rows)] for _ in range(200)]
    reached = set()
    for go_left in answers:
        want = [_counts(pay, walk(table, root, go_left)) for root in table.roots]
        assert node_stream.walk(stream, go_left) == want
        reached.update(want)
    # The walks reach one-class leaves and count rows (wide_forest's leaves hold 120
    # cases and more: none is pure; leaf_forest's trees are one leaf each).
    pure = {sum(c) == 1 for c in reached}
    want_pure = {"wide_forest": {False}, "leaf_forest": pure}.get(name, {True, False})
    assert pure == want_pure


def test_no_stream_without_count_rows() -> None:
    ir, pay = _lowered("boosting")  # float64 value rows
    assert not pay.fractions and node_stream.encode(ir, pay) is None


def _view(name: str) -> TableView:
    ir, pay = _lowered(name)
    return table_view(ir, node_table(ir, pay, bitsets(ir)[1]), pay)


def test_chosen_only_where_smaller() -> None:
    for name in ("forest", "extra"):
        ir, pay = _lowered(name)
        table = node_table(ir, pay, bitsets(ir)[1])
        view, plain = table_view(ir, table, pay), table_view(ir, table)
        assert view.stream is not None and plain.stream is None, name
        assert plain.packed is not None and view.packed == plain.packed
        # What the stream replaces: kids, pairs (and their ninth bits), roots, count rows.
        assert pay.packed is not None
        replaced = len(plain.packed.kids) + 2 * plain.n_pairs + plain.n_pair_hi
        replaced += len(table.roots) * 2 + pay.packed.table_bytes
        assert plain.pairs.ctype == "uint8_t" and plain.roots.ctype == "uint16_t"
        assert view.stream.table_bytes + node_stream.CODE_BYTES < replaced, name
    stream = node_stream.encode(*_lowered("extra"))
    assert stream is not None and stream == _view("extra").stream
    assert node_stream.worth(stream, stream.table_bytes + node_stream.CODE_BYTES + 1)
    assert not node_stream.worth(stream, stream.table_bytes + node_stream.CODE_BYTES)
    assert not node_stream.worth(None, 1 << 20)
    # No count rows (boosting: its rows packed all the same); rows too few to pack, so
    # no packed rows for the stream's splits.
    assert _view("boosting").packed is not None and _view("boosting").stream is None
    for name in ("leaf_forest", "wide_forest"):
        assert _view(name).packed is None and _view(name).stream is None, name


def test_the_stream_is_its_bits_most_significant_first() -> None:
    ir, pay = _lowered("extra")
    stream = node_stream.encode(ir, pay)
    assert stream is not None
    # The C reads a bit at a time: no byte after the last bit, which is a leaf's.
    assert len(stream.data) == (stream.bits + 7) // 8
    # Each tree starts with its first split (or its one leaf) at the row after the last
    # tree's splits.
    ends = [*stream.first_rows[1:], len(ir.trees) and sum(1 for s in splits(ir))]
    assert stream.starts[0] == 0 and list(stream.starts) == sorted(stream.starts)
    assert [stream.field(a, 1) for a in stream.starts] == [
        int(e == r) for r, e in zip(stream.first_rows, ends, strict=True)
    ]
    assert stream.data[-1] >> (stream.bits - 8 * (len(stream.data) - 1)) == 0
    # Bit b is bit b % 8 of byte b / 8; a field's most significant bit comes first.
    tiny = node_stream.NodeStream((0b1000_0110, 0b1), 9, 2, 1, (0,), (0,))
    assert [tiny.field(0, 3), tiny.field(1, 2), tiny.field(7, 2)] == [0b011, 0b11, 0b11]
    assert tiny.field(5, 3) == 0b001


def test_the_c_declares_the_stream_and_info_counts_it(tmp_path: Path) -> None:
    ens = fit_setup("extra")
    view = _view("extra")
    assert view.stream is not None and view.packed is not None
    r = render(ens, ExportOptions(prefix="p", style="table"))
    text = r.files["p_predict.c"]
    assert f"static const uint8_t p_node[{len(view.stream.data)}] P_ROM" in text
    for gone in ("p_kid", "p_pair", "p_root", "p_cnt", "p_narrow", "p_wide", "p_walk"):
        assert gone not in text, gone
    sizes = table_sizes(r, "p_predict.c", tmp_path)
    assert sizes["p_node"] == len(view.stream.data)
    # 16-bit bits; the rows below 256 here: 8-bit.
    assert sizes["p_start"] + sizes["p_first"] == len(view.stream.starts) * 3
    assert sizes["p_node"] + sizes["p_start"] + sizes["p_first"] == view.stream.table_bytes
    assert sizes["p_row"] + sizes["p_top"] == view.packed.table_bytes - len(view.packed.kids)


def test_a_forest_of_one_class_leaves_compiles_and_answers_with_the_routines(
    tmp_path: Path,
) -> None:
    """Fully grown trees (scikit-learn's default depth): every leaf is one class, so
    there are no count rows, yet the stream's adder divides each leaf's counts.  Its
    binary64 routines (AVR, the M0+) lacked the division's operands (from_u32), so the
    C did not compile there; it compiles now under the strict flags and, with the
    routines forced on the host, gives the estimator's classes and probabilities."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    from sklearn.ensemble import RandomForestClassifier

    from treegen.ensemble.sklearn import ensemble_from_sklearn
    from treegen.verify.build import build

    from support.sklearn_models import _data
    from support.strict import compile_strict

    X, y = _data()
    est = RandomForestClassifier(5, random_state=0).fit(X, y)
    ens = ensemble_from_sklearn(est)
    ir = lower_ensemble(ens, ExportOptions(prefix="e", style="table"))
    pay = payloads(ir, fractions=True)
    assert pay.fractions and not pay.counts  # every leaf one class: no count row
    assert table_view(ir, node_table(ir, pay, bitsets(ir)[1]), pay).stream is not None
    for proba in (None, True):
        files = render(ens, ExportOptions(prefix="e", style="table", proba=proba)).files
        for std in ("-std=c89", "-std=c99"):
            compile_strict("gcc", std, files, tmp_path, ["-DE_SOFT64=1"])
    r = render(ens, ExportOptions(prefix="e", style="table", proba=True))
    rows = np.vstack([X, X + 0.01, X - 0.01]).astype(np.float32)
    cls, out = build(r.lowered, r.files, tmp_path / "soft", cc="gcc -DE_SOFT64=1").run(rows)
    assert np.array_equal(cls, est.predict(rows))
    assert np.array_equal(out.view(np.uint64), est.predict_proba(rows).view(np.uint64))
