"""Measured, not assumed: is avr-libc's own ``float`` (binary32) arithmetic correctly
rounded IEEE arithmetic?  On a simulated ATmega328P (avr-gcc, simavr), a + b, a - b,
a * b, a / b, <, <=, ==, > and >= on every pair of the binary32 edge values and on
random pairs (cancellation, alignment, subnormals: tests/support/softfloat.py), each
held against the host's binary32 (numpy).  What this finds is what docs/softfloat.md
states, with these counts: add, subtract, multiply and every comparison exact (NaN by
class: avr-libc's NaNs are negative with varying payloads; subnormals are not
flushed), division wrong only where the quotient is subnormal, by one unit toward
zero."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from support import avr_float
from support.softfloat import edge_pairs, f32_edges, f32_pairs

pytestmark = pytest.mark.toolchain

ARITH = ("add", "sub", "mul", "div")
COMPARE = ("lt", "le", "eq", "gt", "ge")


def _subnormal(v: np.ndarray) -> np.ndarray:
    bits = v.view(np.uint32)
    return ((bits >> np.uint32(23)) & np.uint32(0xFF) == 0) & (bits & np.uint32(0x7FFFFF) != 0)


@pytest.mark.parametrize("n_random, seed, div_wrong", [(6_000, 6, None), (60_000, 5, 31)])
def test_avr_libc_float(tmp_path: Path, n_random: int, seed: int, div_wrong: int | None) -> None:
    missing = avr_float.missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    ea, eb = edge_pairs(f32_edges())
    ra, rb = f32_pairs(np.random.default_rng(seed), n_random)
    a, b = np.concatenate([ea, ra]), np.concatenate([eb, rb])
    lines = avr_float.run_pairs(np.stack([a, b], axis=1), tmp_path, f64=False)
    x, y = a.view(np.float32), b.view(np.float32)
    assert _subnormal(x).sum() > len(a) // 20  # the operands include many subnormals
    with np.errstate(all="ignore"):
        want = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y}
        exact_div = x.astype(np.float64) / y.astype(np.float64)
        truth = {"lt": x < y, "le": x <= y, "eq": x == y, "gt": x > y, "ge": x >= y}
    for k, op in enumerate(ARITH):
        got = np.array([int(r[k], 16) for r in lines], np.uint32)
        nan = np.isnan(want[op])
        assert np.array_equal(np.isnan(got.view(np.float32)), nan), op
        wrong = np.flatnonzero(~nan & (got != want[op].view(np.uint32)))
        if op != "div":
            assert len(wrong) == 0, (op, [(hex(a[i]), hex(b[i]), hex(got[i])) for i in wrong[:5]])
            continue
        # Division: only subnormal quotients (or quotients that round to zero or up to
        # the smallest normal), one unit in the last place toward zero.
        q = want["div"][wrong]
        assert (_subnormal(q) | (np.abs(q) <= np.float32(2.0**-126))).all()
        assert (np.abs(exact_div[wrong]) < 2.0**-126).all()
        assert (want["div"].view(np.uint32)[wrong] - got[wrong] == 1).all()
        if div_wrong is not None:
            assert len(wrong) == div_wrong
        else:
            assert len(wrong) > 0  # the rounding flaw shows on any sizeable sample
    for k, op in enumerate(COMPARE):
        got_cmp = np.array([r[len(ARITH)][k] == "1" for r in lines])
        assert np.array_equal(got_cmp, truth[op]), op
