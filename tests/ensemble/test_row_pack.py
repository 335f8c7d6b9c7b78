"""A key walk's rows packed (treegen.ensemble.row_pack): every threshold key, kid and
field comes back as the C reads it, packing is chosen only where it is smaller, and the
C walks to the same leaves (the same classes) on the chips."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.ctype import smallest_uint
from treegen.codegen.options import ExportOptions
from treegen.ensemble import row_pack
from treegen.ensemble.core import Ensemble
from treegen.ensemble.layout import NodeTable, node_table, payloads
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.view_common import bitsets, splits
from treegen.ensemble.view_table import TableView, table_view
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.kinds.export import render

from support.objsizes import table_sizes
from support.sklearn_models import fit_setup

pytest.importorskip("sklearn")


def test_every_key_kid_and_field_comes_back() -> None:
    rng = random.Random(5)
    for kid_shift, n_tops in ((4, 15), (4, 16), (3, 40), (9, 2)):
        tops = rng.sample(range(1 << 9), n_tops)
        keys = [rng.choice(tops) << 23 | rng.getrandbits(23) for _ in range(500)]
        # A kid below the 500 rows is a right child row, at least two rows on.
        kids = [
            rng.randrange(r + 2, min(r + 100, 500))
            if r < 490 and rng.random() < 0.3
            else rng.randrange(500, 2000)
            for r in range(500)
        ]
        words = [k << kid_shift | rng.getrandbits(kid_shift) for k in kids]
        p = row_pack.pack_rows(words, kid_shift, keys)
        assert p is not None
        # The index takes the bits above F + L: as few tops as that leaves room for.
        assert len(p.tops) <= 1 << (32 - kid_shift - p.low_bits)
        assert len({k >> (p.low_bits + 1) for k in keys}) > 1 << (31 - kid_shift - p.low_bits)
        assert all(v < 1 << 32 for v in p.rows)
        for r, (w, k) in enumerate(zip(words, keys, strict=True)):
            assert p.threshold(r) == k
            assert p.kid(r) == w >> kid_shift
            assert p.rows[r] & ((1 << kid_shift) - 1) == w & ((1 << kid_shift) - 1)
        # A right child row as its distance, after it the leaves and pairs: 11 bits, not 12.
        assert p.near == max(k - r - 1 for r, k in enumerate(kids) if k < 500) >= 90
        assert p.kid_bits == (max(kids) - 500 + p.near).bit_length() == 11


def test_what_does_not_fit_is_not_packed() -> None:
    keys = list(range(0, 1 << 32, (1 << 32) // 1000))  # 1,000 distinct tops at any L
    assert row_pack.pack_rows([len(keys) << 4] * len(keys), 4, keys) is not None
    assert row_pack.pack_rows([1 << 31] * 3, 31, [1, 2, 3]) is None  # no bit for a key
    wide = [1 << (5 + row_pack.MAX_KID_BITS)]  # an 18-bit kid
    assert row_pack.pack_rows(wide, 4, [7]) is None
    assert not row_pack.worth_packing(None, 2)
    small = row_pack.pack_rows([0x20, 0x31], 4, [5, 6])
    assert small is not None and not row_pack.worth_packing(small, 2)  # the code costs more


def _view(ens: Ensemble) -> tuple[NodeTable, TableView]:
    ir = lower_ensemble(ens, ExportOptions(prefix="e"))
    pay = payloads(ir, fractions=True)
    table = node_table(ir, pay, bitsets(ir)[1])
    return table, table_view(ir, table)


def test_packing_only_where_it_is_smaller() -> None:
    chosen = {}
    for name in ("forest", "extra", "boosting", "leaf_forest"):
        table, view = _view(fit_setup(name))
        words = table.words()
        word_bytes = smallest_uint(max((1 << table.word.bits) - 1, 1)).range[1].bit_length() // 8
        keys = [int(t) for t in _keys(fit_setup(name))]
        p = row_pack.pack_rows(words, table.word.kid_shift, keys)
        assert (view.packed is not None) == row_pack.worth_packing(p, word_bytes), name
        chosen[name] = view.packed is not None
        if p is not None and view.packed is not None:
            for r in range(len(words)):
                assert p.threshold(r) == keys[r] and p.kid(r) == table.kid[r]
    assert chosen["forest"] and chosen["extra"]
    assert not chosen["leaf_forest"]  # no row or a few: the reader costs more


def _keys(ens: Ensemble) -> list[int]:
    ir = lower_ensemble(ens, ExportOptions(prefix="e"))
    return [int(ir.key_threshold(s)) for s in splits(ir)]


def test_the_c_declares_the_rows_and_info_counts_them(tmp_path: Path) -> None:
    # 9-bit kids: a field spans three bytes.  (A forest's kids, pairs and count rows are
    # its node stream: tests/ensemble/test_node_stream.py.)
    ens = fit_setup("boosting")
    table, view = _view(ens)
    p = view.packed
    assert p is not None and p.kid_bits > 8 and p.near > 0
    r = render(ens, ExportOptions(prefix="p", style="table"))
    text = r.files["p_predict.c"]
    assert f"static const uint32_t p_row[{len(p.rows)}] P_ROM" in text
    assert f"static const uint8_t p_kid[{len(p.kids)}] P_ROM" in text
    assert "p_word" not in text and "p_thr" not in text
    sizes = table_sizes(r, "p_predict.c", tmp_path)  # boosting: no divisor to fold
    assert sizes["p_row"] + sizes["p_kid"] + sizes["p_top"] == p.table_bytes


# The host's answers on every row: tests/ensemble/test_ensemble_c.py (every mode).
@pytest.mark.toolchain
@pytest.mark.parametrize("name", ["extra", "boosting"])
def test_the_chips_walk_to_the_same_leaves(name: str) -> None:
    chips = [c for c in ("avr", "m0plus", "m4f") if targets.available(targets.target(c), run=True)]
    if len(chips) < 3:
        pytest.skip("a chip's compiler or simulator is not installed")
    result = verify_on(fit_setup(name), ExportOptions(prefix="p"), [], chips, n_random=300)
    assert result.report.ok, result.report.text()
    assert all(run.done.all() for run in result.runs.values())
    first = result.runs[chips[0]].cls
    assert all(np.array_equal(first, result.runs[c].cls) for c in chips[1:])
