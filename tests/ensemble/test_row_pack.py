"""A key walk's rows packed (treegen.ensemble.row_pack): every threshold key, kid and
field comes back as the C reads it, packing is chosen only where it is smaller, and the
C walks to the same leaves (the same classes) on the chips."""

from __future__ import annotations

import random
import subprocess
from dataclasses import replace
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
from treegen.verify.build import have_compiler

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


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_the_c_rebuilds_every_key_by_byte_shifts(tmp_path: Path) -> None:
    """The C's top index and ``top << L`` (written as whole-byte shifts and a rest, for
    avr-gcc) give the key the Python model does, for every way of writing them: a top
    index from bit 24 or more, 16 to 23 and below 16; 16-bit tops shifted within 16 bits
    or not, 32-bit tops."""
    rng = random.Random(7)
    tables, body, want = [], [], []
    for n, (field_bits, low_bits) in enumerate(
        ((5, 21), (3, 23), (2, 16), (1, 18), (4, 12), (9, 7), (0, 24), (8, 8))
    ):
        index_bits = 32 - field_bits - low_bits
        tops = sorted(rng.sample(range(1 << (32 - low_bits)), min(1 << index_bits, 40)))
        p = row_pack.PackedRows((), tuple(tops), field_bits, low_bits, 8, (), 0)
        tables.append(
            f"static const uint{8 * p.top_bytes}_t top{n}[{len(tops)}] = "
            + "{"
            + ", ".join(f"{t}u" for t in tops)
            + "};"
        )
        index = p.top_index("w")
        top = f"top{n}[{index}]"
        key = f"{p.high(top)} | ((w >> {field_bits}) & {p.low_mask}UL)"
        for _ in range(50):
            w = rng.randrange(len(tops)) << (32 - index_bits) | rng.getrandbits(32 - index_bits)
            body.append(f'    w = {w}UL;\n    printf("%lu\\n", (unsigned long)({key}));')
            want.append(replace(p, rows=(w,)).threshold(0))
    src = tmp_path / "keys.c"
    src.write_text(
        "#include <stdint.h>\n#include <stdio.h>\n"
        + "\n".join(tables)
        + "\nint main(void)\n{\n    uint32_t w;\n"
        + "\n".join(body)
        + "\n    return 0;\n}\n"
    )
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Werror"]
    subprocess.run(["gcc", *flags, str(src), "-o", str(tmp_path / "keys")], check=True)
    out = subprocess.run([str(tmp_path / "keys")], capture_output=True, text=True, check=True)
    assert [int(v) for v in out.stdout.split()] == want


@pytest.mark.toolchain
@pytest.mark.parametrize("leaves", [150, 255])
def test_a_lean_tree_walks_to_the_same_leaves_on_the_chips(leaves: int) -> None:
    """A single tree's lean table with its rows packed: kids of 7 bits (read from the
    stream) and of 8 (a byte a row), exact on the 8-bit AVR and on Cortex-M."""
    chips = [c for c in ("avr", "m0plus", "m4f") if targets.available(targets.target(c), run=True)]
    if len(chips) < 3:
        pytest.skip("a chip's compiler or simulator is not installed")
    from sklearn.datasets import make_classification
    from sklearn.tree import DecisionTreeClassifier

    import treegen

    X, y = make_classification(
        n_samples=3000, n_features=20, n_informative=10, n_classes=3, random_state=0
    )
    est = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
    ens = treegen.from_sklearn(est).value
    opts = ExportOptions(prefix="p", style="table", missing="none")
    text = render(ens, opts).files["p_predict.c"]
    assert "p_row[" in text
    assert ("p_kid[e]" in text) == (leaves == 255) and ("e * 7u" in text) == (leaves == 150)
    result = verify_on(ens, opts, [], chips, n_random=300)
    assert result.report.ok, result.report.text()
    assert all(run.done.all() for run in result.runs.values())
