"""A forest's count rows bit-packed (treegen.ensemble.count_pack): the stream gives back
every count, packing is chosen only where it is smaller, and the C reads the same counts
(the same classes and probabilities) on the host and on the chips."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import count_pack
from treegen.ensemble.core import Ensemble
from treegen.ensemble.layout import Payloads, payloads
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.objsizes import table_sizes
from support.sklearn_models import _data, fit_setup, with_nan

pytest.importorskip("sklearn")


def _read(p: count_pack.Packed, first: int, payload: int, k: int) -> list[int]:
    """The counts of ``payload`` as the C reads them (3 bytes from a field's first)."""
    bit, start, g = 0, first, 0
    while payload >= p.ends[g]:
        bit += (p.ends[g] - start) * k * p.widths[g]
        start = p.ends[g]
        g += 1
    w = p.widths[g]
    bit += (payload - start) * k * w
    out = []
    for _ in range(k):
        at = bit >> 3
        v = p.stream[at] | p.stream[at + 1] << 8 | p.stream[at + 2] << 16
        out.append((v >> (bit & 7)) & ((1 << w) - 1))
        bit += w
    return out


def test_the_stream_gives_back_every_row() -> None:
    rng = random.Random(11)
    for k in (2, 3, 5):
        rows = {
            tuple(rng.choice([0, rng.randrange(1, 1 << rng.randrange(1, 17))]) for _ in range(k))
            for _ in range(300)
        }
        ordered = sorted((r for r in rows if max(r) > 0), key=lambda r: (count_pack.width(r), r))
        p = count_pack.pack(ordered, k)
        assert list(p.widths) == sorted(set(p.widths)) and p.ends[-1] == k + len(ordered)
        assert p.bits == sum(count_pack.width(r) * k for r in ordered)
        for i, row in enumerate(ordered):
            assert _read(p, k, k + i, k) == list(row)


def _pay(ens: Ensemble) -> Payloads:
    return payloads(lower_ensemble(ens, ExportOptions(prefix="e")), True)


def test_packing_only_where_it_is_smaller() -> None:
    for name in ("forest", "extra", "wide_forest", "leaf_forest"):
        pay = _pay(fit_setup(name))
        rows = pay.counts
        packed = count_pack.pack(
            sorted(rows, key=lambda r: (count_pack.width(r), r)), pay.n_pure
        ).table_bytes
        smaller = packed + count_pack.CODE_BYTES < count_pack.byte_rows_size(rows)
        assert (pay.packed is not None) == smaller, name
        if pay.packed is not None:  # sorted by width, the 8-bit rows still first
            assert [count_pack.width(r) for r in rows] == sorted(count_pack.width(r) for r in rows)
            assert all(max(r) <= 0xFF for r in rows[: pay.n_narrow])
            assert all(max(r) > 0xFF for r in rows[pay.n_narrow :])
    assert _pay(fit_setup("forest")).packed is not None
    assert _pay(fit_setup("leaf_forest")).packed is None  # 3 rows: the reader costs more


@cache
def _forest() -> Ensemble:
    """A forest whose count rows need 1 to 11 bits (counts above 255), with NaN."""
    from sklearn.ensemble import RandomForestClassifier

    X, y = _data(seed=6, n=6000)
    est = RandomForestClassifier(10, max_depth=7, random_state=0).fit(with_nan(X, 0.05, 3), y)
    return ensemble_from_sklearn(est)


def test_the_c_declares_the_stream_and_info_counts_it(tmp_path: Path) -> None:
    pay = _pay(_forest())
    assert pay.packed is not None and max(pay.packed.widths) > 8
    # Double inputs: no key walk, so no node stream (tests/ensemble/test_node_stream.py).
    r = render(_forest(), ExportOptions(prefix="p", style="table", input_type="double"))
    text = r.files["p_predict.c"]
    assert f"static const uint8_t p_cnt[{len(pay.packed.stream)}] P_ROM" in text
    assert "p_narrow" not in text and "p_wide" not in text
    sizes = table_sizes(r, "p_predict.c", tmp_path)
    assert sizes["p_cnt"] == len(pay.packed.stream)


# Float inputs read the node stream, double inputs the packed count rows.
@pytest.mark.parametrize("input_type", ["float", "double"])
@pytest.mark.parametrize("proba", [False, True])
def test_host_verify(proba: bool, input_type: str) -> None:
    opts = ExportOptions(prefix="p", proba=proba or None, input_type=input_type)  # type: ignore[arg-type]
    report = verify(_forest(), opts, n_random=2000)
    assert report.ok, report.text()


@pytest.mark.toolchain
def test_on_every_chip() -> None:
    chips = ["avr", "m0plus", "m4f"]
    for chip in chips:
        if not targets.available(targets.target(chip), run=True):
            pytest.skip(f"{chip}: its compiler or simulator is not installed")
    # The AVR image's 1,919 rows take about 1.2e9 simulated cycles (the soft doubles of
    # ten trees' fractions): 30-60 s of simavr on a loaded machine, the default limit.
    result = verify_on(
        _forest(), ExportOptions(prefix="p"), [], chips, n_random=300, time_limit=300
    )
    assert result.report.ok, result.report.text()
    assert all(run.done.all() for run in result.runs.values())
    assert np.array_equal(result.runs["avr"].cls, result.runs["m0plus"].cls)
    assert np.array_equal(result.runs["avr"].cls, result.runs["m4f"].cls)
