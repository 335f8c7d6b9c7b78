"""add_pos and div_pos (treegen/codegen/f64.py POS_OPS) give add's and div's bits on
their domain: operands +0 or positive normal, a finite sum, a normal quotient.

The operands are a forest's (class fractions n / N, their sums over up to 1,000 trees,
those sums divided by the number of trees) and random ones over the whole domain: every
exponent, close in value and many binades apart (alignment, sticky bits), exact ties,
rounding up to the next binade and up to the top of the range.  Each result is held
against the host's double (numpy), Berkeley SoftFloat (softfloatpy) and the generic
routines compiled alongside.  The routines compile warning-free under the strict flags.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.f64 import POS_OPS, f64_source, needed
from treegen.verify.build import SHARED_FLAGS, STRICT_FLAGS

from support.softfloat import hexes, softfloat_f64

U64 = npt.NDArray[np.uint64]
LEAST_NORMAL = 0x0010000000000000
EXP = np.uint64(52)

_WRAPPER = """
static tg_f64 from_bits(uint64_t v)
{
    tg_f64 r;
    r.hi = (uint32_t)(v >> 32);
    r.lo = (uint32_t)v;
    return r;
}

static uint64_t to_bits(tg_f64 v)
{
    return (uint64_t)v.hi << 32 | v.lo;
}

void batch(int op, const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n);

void batch(int op, const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        tg_f64 x = from_bits(a[i]), y = from_bits(b[i]);
        switch (op) {
        case 0: out[i] = to_bits(tg_f64_add_pos(x, y)); break;
        case 1: out[i] = to_bits(tg_f64_div_pos(x, y)); break;
        case 2: out[i] = to_bits(tg_f64_add(x, y)); break;
        default: out[i] = to_bits(tg_f64_div(x, y)); break;
        }
    }
}
"""
CODES = {"add_pos": 0, "div_pos": 1, "add": 2, "div": 3}


class _Lib:
    def __init__(self, d: Path) -> None:
        import cffi

        src = d / "pos.c"
        src.write_text(
            "#include <stddef.h>\n#include <stdint.h>\n"
            + f64_source("tg", [*POS_OPS, "add", "div"])
            + _WRAPPER
        )
        lib = d / "libpos.so"
        r = subprocess.run(
            ["gcc", *SHARED_FLAGS, *STRICT_FLAGS, "-o", str(lib), str(src)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert r.returncode == 0 and not r.stderr, r.stderr
        self.ffi = cffi.FFI()
        self.ffi.cdef(
            "void batch(int op, const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n);"
        )
        self.lib = self.ffi.dlopen(str(lib))

    def run(self, op: str, a: U64, b: U64) -> U64:
        a = np.ascontiguousarray(a, dtype=np.uint64)
        b = np.ascontiguousarray(b, dtype=np.uint64)
        out = np.zeros(len(a), dtype=np.uint64)
        self.lib.batch(
            CODES[op],
            self.ffi.from_buffer("uint64_t[]", a),
            self.ffi.from_buffer("uint64_t[]", b),
            self.ffi.from_buffer("uint64_t[]", out),
            len(a),
        )
        return out


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> _Lib:
    return _Lib(tmp_path_factory.mktemp("f64pos"))


def _bits(x: npt.NDArray[Any]) -> U64:
    out: U64 = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
    return out


def _positive(rng: np.random.Generator, n: int, lo: int = 1, hi: int = 0x7FE) -> U64:
    """Positive normal numbers: exponents lo..hi (the ends as often as the rest),
    fractions random, zero, all ones or one bit; a tenth +0."""
    exp = rng.integers(lo, hi + 1, n, dtype=np.uint64)
    ends = rng.random(n) < 0.2
    exp[ends] = np.where(rng.random(int(ends.sum())) < 0.5, lo, hi).astype(np.uint64)
    frac = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    kind = rng.integers(0, 6, n)
    frac[kind == 0] = 0
    frac[kind == 1] = (1 << 52) - 1
    frac[kind == 2] = np.uint64(1) << rng.integers(0, 52, int((kind == 2).sum()), dtype=np.uint64)
    out: U64 = (exp << EXP) | frac
    out[rng.random(n) < 0.1] = 0
    return out


def _add_pairs(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """Pairs with a finite sum: random, close (same or neighbouring binade), a few to
    70 binades apart, ties (b half an ulp of a, or one and a half), and the forest's
    sums of fractions."""
    q = n // 5
    a = _positive(rng, q, hi=0x7FD)
    b = _positive(rng, q, hi=0x7FD)
    near_a = _positive(rng, q, hi=0x7FD)
    near_b = near_a + rng.integers(-300, 300, q).astype(np.uint64)  # wraps: masked below
    near_b[(near_b >> EXP) >= np.uint64(0x7FE)] = np.uint64(0x3FF) << EXP
    near_b[near_b < LEAST_NORMAL] = LEAST_NORMAL
    far_a = _positive(rng, q, lo=80, hi=0x7FD)
    shift = rng.integers(0, 70, q).astype(np.uint64)
    far_b = (((far_a >> EXP) - shift) << EXP) | rng.integers(0, 1 << 52, q, dtype=np.uint64)
    far_b[far_a == 0] = 0
    # Ties: b is half an ulp of a (or 3/2, 5/2): to even decides.
    tie_a = _positive(rng, q, lo=60, hi=0x7FD)
    tie_a[tie_a == 0] = np.uint64(0x3FF) << EXP
    k = rng.choice(np.array([1, 3, 5], dtype=np.uint64), q)
    tie_b = _bits(k.astype(np.float64) * np.ldexp(1.0, ((tie_a >> EXP).astype(np.int64) - 1076)))
    m = n - 4 * q
    fa, fb = _forest_sums(rng, m)
    return (
        np.concatenate([a, near_a, far_a, tie_a, fa]),
        np.concatenate([b, near_b, far_b, tie_b, fb]),
    )


def _forest_sums(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """A forest's additions: a running sum of fractions n / N (N up to 65,535) over up
    to 1,000 trees, and the next fraction."""
    total = rng.integers(1, 65536, n)
    count = rng.integers(1, total + 1)
    frac = count.astype(np.float64) / total.astype(np.float64)
    trees = rng.integers(0, 1000, n).astype(np.float64)
    running = trees * rng.random(n)
    return _bits(running), _bits(frac)


def _div_pairs(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """Pairs with a normal (or zero) quotient: random exponents that keep it in range,
    close significands (quotients near 1, exact ones), and a forest's: n / N and
    sums divided by the number of trees."""
    q = n // 3
    a = _positive(rng, q)
    ea = (a >> EXP).astype(np.int64)
    eb = np.clip(ea - rng.integers(-1000, 1000, q), 1, 0x7FE)
    eb = np.clip(eb, ea - 1020, ea + 1020)  # the quotient's exponent stays normal
    eb = np.clip(eb, 1, 0x7FE).astype(np.uint64)
    b = (eb << EXP) | rng.integers(0, 1 << 52, q, dtype=np.uint64)
    same = rng.random(q) < 0.2
    b[same] = (eb[same] << EXP) | (a[same] & np.uint64((1 << 52) - 1))  # a power of two
    m = n - 2 * q
    total = rng.integers(1, 65536, m)
    count = rng.integers(1, total + 1)
    trees = rng.integers(1, 2000, m)
    sums = _bits(rng.random(m) * trees)
    return (
        np.concatenate([a, _bits(count.astype(np.float64)), sums]),
        np.concatenate([b, _bits(total.astype(np.float64)), _bits(trees.astype(np.float64))]),
    )


def _in_domain(op: str, a: U64, b: U64) -> npt.NDArray[np.bool_]:
    x, y = a.view(np.float64), b.view(np.float64)
    with np.errstate(all="ignore"):
        r = x + y if op == "add_pos" else x / y
    normal = (r == 0) | (r >= np.ldexp(1.0, -1022))
    ok = (a == 0) | (a >= LEAST_NORMAL)
    ok &= ((b == 0) | (b >= LEAST_NORMAL)) if op == "add_pos" else (b >= LEAST_NORMAL)
    ok &= np.isfinite(x) & np.isfinite(y) & np.isfinite(r) & normal
    return ok


def _check(lib: _Lib, op: str, a: U64, b: U64, softfloat: bool) -> None:
    keep = _in_domain(op, a, b)
    assert keep.mean() > 0.95  # the operands are meant to be in the domain
    a, b = a[keep], b[keep]
    got = lib.run(op, a, b)
    generic = op.removesuffix("_pos")
    with np.errstate(all="ignore"):
        x, y = a.view(np.float64), b.view(np.float64)
        want = _bits(x + y if op == "add_pos" else x / y)
    refs = {"host": want, "generic": lib.run(generic, a, b)}
    if softfloat:
        refs["softfloat"] = softfloat_f64(generic, a, b)
    for name, ref in refs.items():
        bad = np.flatnonzero(got != ref)
        sample = list(zip(hexes(a[bad][:5]), hexes(b[bad][:5]), hexes(got[bad][:5]), strict=True))
        assert len(bad) == 0, f"{op} vs {name}: {len(bad)} of {len(a)} differ, e.g. {sample}"


@pytest.mark.parametrize("op", list(POS_OPS))
def test_against_the_host_and_softfloat(lib: _Lib, op: str) -> None:
    rng = np.random.default_rng(21)
    a, b = (_add_pairs if op == "add_pos" else _div_pairs)(rng, 20_000)
    _check(lib, op, a, b, softfloat=True)


@pytest.mark.slow
@pytest.mark.parametrize("op", list(POS_OPS))
def test_many_against_the_host(lib: _Lib, op: str) -> None:
    rng = np.random.default_rng(22)
    a, b = (_add_pairs if op == "add_pos" else _div_pairs)(rng, 2_000_000)
    _check(lib, op, a, b, softfloat=False)


def test_ties_and_carries(lib: _Lib) -> None:
    """Named cases: ties to even both ways, a carry into the next binade, the largest
    finite sum, the least normal quotient, 0 + x and 0 / x."""
    cases = [
        ("add_pos", 1.0, 2.0**-53),  # tie: to even (1)
        ("add_pos", 1.0, 3 * 2.0**-53),  # tie: to even (up)
        ("add_pos", 1.0 + 2.0**-52, 2.0**-53),  # tie from odd: up
        ("add_pos", 2.0 - 2.0**-52, 2.0**-52),  # carry: exactly 2
        ("add_pos", 2.0 - 2.0**-52, 2.0**-53),  # tie at the top of a binade: up to 2
        ("add_pos", 2.0**1022, 2.0**1022 - 2.0**970),  # the largest finite sum
        ("add_pos", 0.0, 0.0),
        ("add_pos", 0.0, 0.75),
        ("add_pos", 0.75, 0.0),
        ("add_pos", 2.0**-1022, 2.0**-1022),
        ("div_pos", 1.0, 3.0),
        ("div_pos", 2.0, 3.0),
        ("div_pos", 7.0, 7.0),
        ("div_pos", 2.0**-1021, 2.0),  # the least normal quotient
        ("div_pos", 0.0, 10.0),
        ("div_pos", 65535.0, 65534.0),
        ("div_pos", 2.0**1023, 0.5),  # just below the top is not asked for: 2**1023 * 2
    ]
    for op, x, y in cases:
        with np.errstate(all="ignore"):
            want = x + y if op == "add_pos" else x / y
        if not np.isfinite(want):
            continue
        got = lib.run(op, _bits(np.array([x])), _bits(np.array([y])))
        assert int(got[0]) == int(_bits(np.array([want]))[0]), (op, x, y, hex(int(got[0])))


def test_only_what_they_call() -> None:
    assert needed(["add_pos"]) == {"add_pos", "u64_lt", "u64_add", "u64_shl", "u64_shr_jam",
                                   "round_pos"}  # fmt: skip
    assert needed(["div_pos"]) == {"div_pos", "u64_lt", "u64_shl", "u64_shr_jam", "round_pos"}
    src = f64_source("tg", list(POS_OPS))
    assert "tg_f64_round_pack" not in src and "tg_u64_clz" not in src and "isnan" not in src


CROSS = {
    "gcc": ["gcc", "-O2"],
    "clang": ["clang", "-O3"],
    "arm-none-eabi-gcc": ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb", "-Os"],
    "avr-gcc": ["avr-gcc", "-mmcu=atmega328p", "-Os"],
}


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", list(CROSS))
def test_strict_flags(tmp_path: Path, cc: str) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    user = (
        "int tg_use(tg_f64 a, tg_f64 b, tg_f64 *out);\n"
        "int tg_use(tg_f64 a, tg_f64 b, tg_f64 *out)\n{\n"
        "    out[0] = tg_f64_add_pos(a, b);\n    out[1] = tg_f64_div_pos(a, b);\n"
        "    return 0;\n}\n"
    )
    src = tmp_path / "pos.c"
    src.write_text("#include <stdint.h>\n" + f64_source("tg", list(POS_OPS)) + user)
    strict = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    for std in ("c89", "c99"):
        r = subprocess.run(
            [*CROSS[cc], f"-std={std}", *strict, "-c", str(src), "-o", str(tmp_path / "p.o")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert r.returncode == 0 and not r.stderr.strip(), r.stderr[:2000]
