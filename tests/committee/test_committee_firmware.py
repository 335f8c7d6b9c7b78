"""A committee's C on the simulated chips: ATmega328P (simavr), Cortex-M0+ (qemu) and
RV32IMC (qemu), boosted and bagged, float and integer-key inputs, every row equal to the
Python committee (0 mismatches)."""

from __future__ import annotations

import functools

import pytest

from treegen.codegen.options import ExportOptions
from treegen.committee.bag import bag
from treegen.committee.boost import boost
from treegen.committee.core import Committee
from treegen.data.readers import read_dataset
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.trainer import TrainOptions

from support.weka import REF

pytestmark = pytest.mark.toolchain

CHIPS = ["avr", "m0plus", "rv32imc"]


@functools.cache
def _committee(method: str) -> Committee:
    ds = read_dataset(str(REF / "hypo" / "hypo.arff"), float32=False)
    opts = TrainOptions(flavor="j48")
    return boost(ds, opts, 4) if method == "boost" else bag(ds, opts, 3, 1)


@pytest.mark.parametrize("mode", [{}, {"float_compare": "int"}, {"style": "ifs"}])
@pytest.mark.parametrize("method", ["boost", "bag"])
def test_committees_on_the_chips(method: str, mode: dict[str, object]) -> None:
    chips = [c for c in CHIPS if targets.available(targets.target(c), run=True)]
    if not chips:
        pytest.skip("no simulated chip is installed")
    opts = ExportOptions(prefix="cm", **mode)  # type: ignore[arg-type]
    result = verify_on(_committee(method), opts, [], chips, n_random=150)
    assert result.report.ok and result.report.failed_rows == 0, result.report.text()
    assert set(result.runs) == set(chips)
    assert all(run.done.all() for run in result.runs.values())
