"""A committee's C: verify holds it to the Python committee (the fixed-point trees, the IR
evaluator and the classifier, all with the integer vote) in every export mode, with 0
mismatches; it compiles warning-free under the strict flags as C89 and C99; its bytes
are deterministic; and with ``--float-compare int`` or an integer input type it has no
floating-point arithmetic at all (no float or double in the compiled object)."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.flash import TARGETS, table_bytes, value_kind
from treegen.codegen.options import ExportOptions
from treegen.committee.bag import bag
from treegen.committee.boost import boost
from treegen.committee.core import Committee
from treegen.committee.show import format_info
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.firmware import targets
from treegen.firmware.report import compile_object
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.trainer import TrainOptions

from support.modes import EXPORT_MODES
from support.strict import compile_strict
from support.weka import REF

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

# Boosted and bagged, both flavours: vote-r8 (nominal, missing values), hypo (five
# classes, continuous and nominal, missing values), monk2 (nominal only).
SETUPS = {
    "boost-j48-vote": ("vote-r8", "boost", "j48"),
    "bag-j48-hypo": ("hypo", "bag", "j48"),
    "boost-c45-hypo": ("hypo", "boost", "c45"),
    "bag-c45-monk2": ("monk2", "bag", "c45"),
}
MODES = ["float", "double", "int16", "uint8", "keys", "fixed", "lean_float", "lean_keys"]


@functools.cache
def _committee(setup: str) -> Committee:
    name, method, flavor = SETUPS[setup]
    ds = read_dataset(str(REF / name / f"{name}.arff"), float32=flavor == "c45")
    opts = TrainOptions(flavor=flavor)  # type: ignore[arg-type]
    return boost(ds, opts, 5) if method == "boost" else bag(ds, opts, 5, 1)


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("setup", list(SETUPS))
def test_verify_every_mode(setup: str, mode: str, style: str) -> None:
    c = _committee(setup)
    name = SETUPS[setup][0]
    kw = dict(EXPORT_MODES[mode], style=style)
    ds = read_dataset(str(REF / name / f"{name}.arff"), float32=c.compares_float32)
    report = verify(c, ExportOptions(prefix="cm", **kw), [ds], n_random=400)  # type: ignore[arg-type]
    assert report.ok and report.failed_rows == 0, report.text()
    assert report.rows > ds.n_rows + 400
    assert any("integer vote vs" in line for line in report.lines)


@pytest.mark.slow
@pytest.mark.parametrize("std", ["-std=c89", "-std=c99"])
@pytest.mark.parametrize("setup", list(SETUPS))
def test_strict_c89_and_c99(setup: str, std: str, tmp_path: Path) -> None:
    for style in ("table", "ifs"):
        for mode in ("float", "int16", "keys"):
            opts = ExportOptions(prefix="cm", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
            compile_strict("gcc", std, render(_committee(setup), opts).files, tmp_path)


@pytest.mark.parametrize("setup", list(SETUPS))
def test_the_same_committee_gives_the_same_bytes(setup: str) -> None:
    opts = ExportOptions(prefix="cm", style="table")
    a = render(_committee(setup), opts).files
    b = render(_committee(setup), opts).files
    assert a == b
    bagged = SETUPS[setup][1] == "bag"
    # An explicit prefix names the files (cm_predict.c, cm_predict.h).
    assert sorted(a) == ["cm_predict.c", "cm_predict.h"]
    assert ("void cm_predict_proba(" in a["cm_predict.h"]) == bagged
    assert "int cm_predict(" in a["cm_predict.h"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nm") is None, reason="nm is not installed")
@pytest.mark.parametrize("mode", ["keys", "int16"])
def test_integer_modes_use_no_floating_point(mode: str, tmp_path: Path) -> None:
    """Compiled for a soft-float core, the C of a committee in an integer mode calls
    no floating-point helper: the vote is integer sums only."""
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc is not installed")
    for setup in SETUPS:
        opts = ExportOptions(prefix="cm", style="table", **EXPORT_MODES[mode])  # type: ignore[arg-type]
        files = render(_committee(setup), opts).files
        obj = compile_strict(
            "arm-none-eabi-gcc", "-std=c99", files, tmp_path, ["-mcpu=cortex-m0", "-Os"]
        )
        syms = subprocess.run(
            ["nm", "-u", str(obj)], cwd=tmp_path, check=True, capture_output=True, text=True
        ).stdout
        assert "__aeabi_f" not in syms and "__aeabi_d" not in syms, (setup, syms)


def _constant() -> Dataset:
    """Every case one class: every tree of a committee is a single leaf."""
    schema = Schema((Attribute("a", "continuous"),), ("lo", "hi"), "const")
    x = np.arange(30, dtype=np.float64)[:, None]
    return Dataset(schema, x, np.zeros(30, dtype=np.int32), "const")


def _golf() -> Dataset:
    return read_dataset(str(REF / "golf" / "golf.arff"), float32=False)


@pytest.mark.parametrize("mode", ["float", "keys", "int16"])
def test_one_leaf_trees_in_the_shared_table(mode: str) -> None:
    """A tree that is one leaf starts its walk at an outcome: golf bagged with seed 4
    mixes such trees with others, a constant class makes every tree one (no test in
    the table at all)."""
    golf = bag(_golf(), TrainOptions(flavor="j48"), 10, 4)
    const = bag(_constant(), TrainOptions(flavor="j48"), 3, 1)
    assert any(m.size == 1 for m in golf.members) and any(m.size > 1 for m in golf.members)
    assert all(m.size == 1 for m in const.members)
    for c, ds in ((golf, _golf()), (const, _constant())):
        opts = ExportOptions(prefix="cm", style="table", **EXPORT_MODES[mode])  # type: ignore[arg-type]
        report = verify(c, opts, [ds], n_random=200)
        assert report.ok and report.failed_rows == 0, report.text()


@pytest.mark.parametrize("setup", list(SETUPS))
def test_the_table_style_walks_every_tree_with_one_loop(setup: str) -> None:
    """In the table style the trees share one table and one walk (the helpers and the
    walk appear once, with a table of roots); in the ifs style each tree has its own C."""
    c = _committee(setup)
    table = render(c, ExportOptions(prefix="cm", style="table")).files["cm_predict.c"]
    run = "void" if SETUPS[setup][1] == "bag" else "int"
    assert table.count(f"static {run} cm_run(") == 1
    assert table.count("cm_walk0(const cm_input_t *x, cm_state *s, ") == 1
    assert table.count("static uint32_t cm_mul(") == 1
    assert f"cm_roots[{c.n_members}]" in table
    assert "cm_t0_" not in table
    ifs = render(c, ExportOptions(prefix="cm", style="ifs")).files["cm_predict.c"]
    assert ifs.count("_mul(uint32_t w, uint32_t s)") == c.n_members


@pytest.mark.parametrize("setup", list(SETUPS))
def test_only_boosting_s_table_c_has_a_class_table(setup: str) -> None:
    """A bagged committee adds its trees' distributions: its table-style C declares no
    table of each outcome's class (nothing would read it) and its walk returns none; a
    boosted one's votes for the class each tree returns, read from that table."""
    c = _committee(setup)
    table = render(c, ExportOptions(prefix="cm", style="table")).files["cm_predict.c"]
    boosted = SETUPS[setup][1] == "boost"
    assert ("static const uint8_t cm_class[" in table) == boosted
    assert ("cm_class[out]" in table) == boosted
    assert ("c = cm_run(x, 0, " in table) == boosted


@pytest.mark.parametrize("setup", ["boost-j48-vote", "bag-j48-hypo"])
def test_info_estimates_the_shared_table_flash(setup: str, tmp_path: Path) -> None:
    """``info``'s flash estimate counts the one walk once: within 20% of the Cortex-M0+
    object of the default export (counting it per tree, as before the shared table,
    was twice that)."""
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc is not installed")
    c = _committee(setup)
    line = next(ln for ln in format_info(c, "float").splitlines() if "cortex-m0" in ln)
    low, high = (
        int(v.replace(",", "")) for v in line.split(": ")[1].split(" bytes")[0].split(" to ")
    )
    estimate = (low + high) // 2
    info = compile_object(
        targets.target("m0plus"), render(c, ExportOptions(prefix="cm")).files, tmp_path, "cm"
    )
    assert abs(estimate - info.flash) <= 0.2 * info.flash, (low, high, info.flash)


@pytest.mark.parametrize("setup", ["boost-j48-vote", "bag-j48-hypo"])
@pytest.mark.parametrize("input_type", ["float", "int16"])
def test_info_counts_the_tables_the_committee_s_c_declares(setup: str, input_type: str) -> None:
    """``info``'s tables are those of the committee's own table-style predict.c, exact
    as a tree's: summing each tree's tables as if exported alone counted other tables
    than the shared one (crx: 3,608 bytes for the 3,304 of ten bagged trees; 7,788 for
    the 8,476 of ten boosted ones, below the object's size)."""
    c = _committee(setup)
    source = render(c, ExportOptions(prefix="cm", style="table", input_type=input_type))
    c_text = source.files["cm_predict.c"]
    info = format_info(c, input_type)
    for t in TARGETS:
        if value_kind(input_type) not in t.code:
            continue
        (line,) = [ln for ln in info.splitlines() if ln.startswith(f"  {t.target}: ")]
        assert f"(tables {table_bytes(c_text, t.double_bytes):,}, code " in line, line


def _depth(model: object) -> int:
    """Tests on the longest root-to-leaf path of a tree's nodes."""
    nodes = model.nodes  # type: ignore[attr-defined]
    depth = {0: 0}
    for i, node in enumerate(nodes):
        for child in node.children:
            depth[child] = depth[i] + 1
    return max(depth[i] for i, node in enumerate(nodes) if not node.children)


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_predict_h_counts_every_trees_work(style: str) -> None:
    """predict.h's paragraph on calling predict adds up every member tree (it was worked
    out from a one-leaf stub and said 0 tests)."""
    c = _committee("boost-j48-vote")
    header = render(c, ExportOptions(prefix="cm", style=style)).files["cm_predict.h"]
    text = " ".join(header.split())
    longest = sum(_depth(m) for m in c.members)
    assert longest > 0
    assert f"{len(c.members)} trees walked in turn, {longest} tests on their longest paths" in text


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("setup", ["boost-c45-hypo", "bag-j48-hypo"])
def test_thresholds_folded_by_the_input_type_are_noted(setup: str, style: str) -> None:
    # A tree's export warns of each test whose threshold lies outside the integer type
    # (it folds to a constant branch); a committee's trees folded theirs in silence.
    c = _committee(setup)
    opts = ExportOptions(prefix="cm", style=style, input_type="int8", scale=100.0)
    notes = render(c, opts).notes
    # Each tree's folds, as its own export lists them: "model node 3 (TSH <= 6.05, ...)".
    named = [
        f"tree {i} node {f.source} ("
        for i, tree in enumerate(c.members)
        for f in render(tree, opts).lowered.folds
    ]
    assert named, "no threshold folds: the test would test nothing"
    assert len(notes) == 1 and notes[0].startswith(f"{len(named)} thresholds outside int8's ")
    at = [notes[0].find(n) for n in named[:20]]
    assert -1 not in at and at == sorted(at), (named[:20], notes[0])
    assert render(c, ExportOptions(prefix="cm", style=style, input_type="int16")).notes == ()
