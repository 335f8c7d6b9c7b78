"""The table style's pair table with 9-bit entries (256 to 511 payloads: the low bytes
and a bitmap of the top bits, treegen.ensemble.view_table.pair_columns): the C reaches the
same leaves, on the host and on the chips, and the bitmap form is chosen only there."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.core import Ensemble
from treegen.ensemble.layout import node_table, payloads
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.ensemble.view_table import pair_columns
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.objsizes import table_sizes
from support.sklearn_models import _data, with_nan

pytest.importorskip("sklearn")


@cache
def _forest() -> Ensemble:
    """ExtraTrees whose leaves need 256 to 511 payloads, some of them in pairs."""
    from sklearn.ensemble import ExtraTreesClassifier

    X, y = _data(seed=4, n=1500)
    est = ExtraTreesClassifier(12, max_depth=8, random_state=0).fit(with_nan(X, 0.05, 2), y)
    return ensemble_from_sklearn(est)


def _table(ens: Ensemble) -> Any:
    ir = lower_ensemble(ens, ExportOptions(prefix="p"))
    return node_table(ir, payloads(ir, fractions=True), {})


def test_pair_columns_split_9_bit_entries_only() -> None:
    table = _table(_forest())
    flat = [p for pair in table.pairs for p in pair]
    assert 0xFF < max(flat) <= 0x1FF
    low, hi = pair_columns(table)
    assert len(low) == len(flat) and len(hi) == (len(flat) + 7) // 8
    assert [lo | ((hi[q // 8] >> (q % 8)) & 1) << 8 for q, lo in enumerate(low)] == flat
    assert max(low) <= 0xFF
    from support.sklearn_models import fit_setup

    small = _table(fit_setup("forest"))  # fewer than 256 payloads: one byte an entry
    assert pair_columns(small) == ([p for pair in small.pairs for p in pair], [])


def test_the_c_declares_the_bitmap_and_info_counts_it(tmp_path: Path) -> None:
    """The C holds a byte an entry and the bitmap; ``info``'s table bytes equal the sizes
    of predict.o's constant objects (the soft path, where every constant is a table)."""
    ens = _forest()
    # Double inputs: no key walk, so pairs rather than the node stream of float inputs
    # (tests/ensemble/test_node_stream.py).
    r = render(ens, ExportOptions(prefix="p", style="table", input_type="double"))
    text = r.files["p_predict.c"]
    assert "p_node" not in text
    n = 2 * len(_table(ens).pairs)
    assert f"static const uint8_t p_pair[{n}] P_ROM" in text
    assert f"static const uint8_t p_pair_hi[{(n + 7) // 8}] P_ROM" in text
    sizes = table_sizes(r, "p_predict.c", tmp_path)
    assert sizes["p_pair"] == n and sizes["p_pair_hi"] == (n + 7) // 8


# Float inputs read the node stream, double inputs the 9-bit pairs.
@pytest.mark.parametrize("input_type", ["float", "double"])
@pytest.mark.parametrize("proba", [False, True])
def test_host_verify(proba: bool, input_type: str) -> None:
    opts = ExportOptions(prefix="p", proba=proba or None, input_type=input_type)  # type: ignore[arg-type]
    report = verify(_forest(), opts, n_random=2000)
    assert report.ok, report.text()


@pytest.mark.toolchain
def test_on_every_chip() -> None:
    for chip in ("avr", "m0plus"):
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    result = verify_on(_forest(), ExportOptions(prefix="p"), [], ["avr", "m0plus"], n_random=300)
    assert result.report.ok, result.report.text()
    assert all(run.done.all() for run in result.runs.values())
    assert np.array_equal(result.runs["avr"].cls, result.runs["m0plus"].cls)
