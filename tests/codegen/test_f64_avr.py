"""The binary64 routines on a simulated ATmega328P (avr-gcc, simavr) give the host's
results bit for bit: every pair of the edge values and a few thousand random pairs,
each result held against the host's double (numpy; NaN by class) and against the same
routines compiled for the host (every bit, NaN included); add_pos and div_pos on pairs
of their own domain (a forest's sums and quotients among them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.f64 import OPS, POS_OPS

from support import avr_float
from support.f64pos import add_pairs, div_pairs, in_domain
from support.softfloat import HostF64, edge_pairs, f64_edges, f64_pairs, host_f64, mismatches

pytestmark = pytest.mark.toolchain

# The fields avr_float.c prints for a pair (after its index).
ARITH = ("add", "sub", "div", "neg", "from_f32", "from_u32", "add_pos", "div_pos", "to_f32")
FLAGS = ("lt", "le", "eq", "isnan")


def _words(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lo = np.uint64(0xFFFFFFFF)
    return np.stack([a >> np.uint64(32), a & lo, b >> np.uint64(32), b & lo], axis=1).astype(
        np.uint32
    )


def _parse(lines: list[list[str]]) -> dict[str, np.ndarray]:
    got = {op: np.array([int(r[k], 16) for r in lines], np.uint64) for k, op in enumerate(ARITH)}
    flags = [r[len(ARITH)] for r in lines]
    for k, op in enumerate(FLAGS):
        got[op] = np.array([int(f[k]) for f in flags], np.int64)
    got["sign"] = np.array([int(f[len(FLAGS)]) - 1 for f in flags], np.int64)
    got["cycles_add"] = np.array([int(r[-2]) for r in lines], np.int64)
    got["cycles_div"] = np.array([int(r[-1]) for r in lines], np.int64)
    return got


@pytest.mark.parametrize("which", ["random", "edges"])
def test_avr_equals_the_host(tmp_path: Path, which: str) -> None:
    missing = avr_float.missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    if which == "edges":
        a, b = edge_pairs(f64_edges())
    else:
        a, b = f64_pairs(np.random.default_rng(11), 3000)
    got = _parse(avr_float.run_pairs(_words(a, b), tmp_path, f64=True))
    host = HostF64(tmp_path)
    assert set(OPS) <= set(got)
    for op in OPS:
        want = host_f64(op, a, b)
        bad = mismatches(op, got[op], want, any_nan=True)
        assert len(bad) == 0, (op, [(hex(a[i]), hex(b[i]), hex(got[op][i])) for i in bad[:5]])
        same = host.run(op, a, b)
        bad = np.flatnonzero(got[op] != same)
        assert len(bad) == 0, (op, "differs from the host build", bad[:5])
    # The timer window measured something: a call costs cycles, never nothing.
    assert got["cycles_add"].min() > 20 and got["cycles_div"].min() > 20


def test_pos_routines_on_avr(tmp_path: Path) -> None:
    missing = avr_float.missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    rng = np.random.default_rng(12)
    pairs = {"add_pos": add_pairs(rng, 1200), "div_pos": div_pairs(rng, 1200)}
    assert set(pairs) == set(POS_OPS)
    a = np.concatenate([p[0] for p in pairs.values()])
    b = np.concatenate([p[1] for p in pairs.values()])
    got = _parse(avr_float.run_pairs(_words(a, b), tmp_path, f64=True))
    start = 0
    for op, (pa, pb) in pairs.items():
        rows = np.arange(start, start + len(pa))[in_domain(op, pa, pb)]
        start += len(pa)
        assert len(rows) > 0.95 * len(pa)  # the operands are meant to be in the domain
        want = host_f64(op.removesuffix("_pos"), a[rows], b[rows])
        bad = np.flatnonzero(got[op][rows] != want)
        assert len(bad) == 0, (op, [(hex(a[i]), hex(b[i])) for i in rows[bad][:5]])
