"""Operands and references for the soft-float tests (tests/codegen/test_f64.py and
tests/codegen/test_avr_float.py).

Values travel as bit patterns (uint64 for binary64, uint32 for binary32) so that signed
zeros and NaN payloads survive.  Three references compute what each operation must give:
the host's IEEE hardware through numpy, Berkeley SoftFloat through the ``softfloatpy``
binding (a test dependency), and the C routines themselves compiled for the host
(:func:`build_f64`), for AVR or for avr-libc's own ``float``.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.f64 import OPS, f64_source
from treegen.verify.build import SHARED_FLAGS, STRICT_FLAGS

from support.floatbits import U64, bits

U32 = npt.NDArray[np.uint32]

BINARY_OPS = ("add", "sub", "div")
COMPARE_OPS = ("lt", "le", "eq")


# ---------------------------------------------------------------------------
# binary64 operands
# ---------------------------------------------------------------------------


def _f64(*values: float) -> list[int]:
    return [int(v) for v in bits(values)]


def f64_edges() -> U64:
    """Both signs of the values where rounding and special cases live: zeros, the
    subnormal and normal limits, infinities, NaNs (quiet, signalling, with payloads),
    operands whose sums or quotients are exact ties (1 + 2**-53, 1 + 3 * 2**-53, half
    the smallest subnormal), overflow and underflow to subnormal and to zero."""
    words = [
        0x0000000000000000,  # +0
        0x0000000000000001,  # smallest subnormal
        0x0000000000000002,
        0x0000000000000003,  # 3 * 2**-1074: halved, a tie between 1 and 2 ulps
        0x000FFFFFFFFFFFFF,  # largest subnormal
        0x0008000000000000,  # 2**-1023
        0x0010000000000000,  # smallest normal
        0x0010000000000001,
        0x001FFFFFFFFFFFFF,
        0x7FEFFFFFFFFFFFFF,  # largest finite
        0x7FE0000000000000,  # 2**1023
        0x7CA0000000000000,  # half an ulp of the largest finite: its sum is a tie
        0x7FF0000000000000,  # inf
        0x7FF8000000000000,  # quiet NaN
        0x7FF0000000000001,  # signalling NaN
        0x7FFC00000000ABCD,  # quiet NaN with a payload
        0x3FF0000000000000,  # 1
        0x3FF0000000000001,  # 1 + 2**-52
        0x3FEFFFFFFFFFFFFF,  # 1 - 2**-53
        0x3CA0000000000000,  # 2**-53: 1 + 2**-53 is a tie, to even (1)
        0x3CB8000000000000,  # 3 * 2**-53: 1 + 3 * 2**-53 is a tie, to even (1 + 2**-51)
        0x3C90000000000000,  # 2**-54
        0x3CA0000000000001,  # just above half an ulp of 1
        0x3FFFFFFFFFFFFFFF,  # the largest below 2
        0x4000000000000000,  # 2
        0x4008000000000000,  # 3
        0x4340000000000000,  # 2**53
        0x4340000000000001,
        0x0340000000000000,  # 2**-971: 2**-971 / 2**53 and the like leave the normal range
        *_f64(0.1, 1 / 3, 10.0, 1e300, 1e-300, 2.5e-308, 4.9e-324 * 7, 12345.678),
    ]
    both = words + [b | 0x8000000000000000 for b in words]
    return np.array(both, dtype=np.uint64)


def _f64_class_operand(rng: np.random.Generator, n: int) -> U64:
    """Random operands of every class: exponents drawn from the edges of the range
    (0, 1, 2, 0x7FD..0x7FF, near the bias) as often as from anywhere, fractions random,
    zero, all ones or a few bits."""
    special = np.array([0, 0, 1, 2, 0x7FD, 0x7FE, 0x7FF, 1023, 1022, 1024, 1075, 971], np.uint64)
    exp = np.where(
        rng.random(n) < 0.5,
        rng.integers(0, 0x800, n, dtype=np.uint64),
        special[rng.integers(0, len(special), n)],
    )
    kind = rng.integers(0, 8, n)
    frac = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    frac = np.where(kind == 0, np.uint64(0), frac)
    frac = np.where(kind == 1, np.uint64((1 << 52) - 1), frac)
    few = np.uint64(1) << rng.integers(0, 52, n, dtype=np.uint64)
    frac = np.where(kind == 2, few, frac)
    frac = np.where(kind == 3, few | np.uint64(1), frac)
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    out: U64 = sign | (exp << np.uint64(52)) | frac
    return out


def f64_pairs(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """n operand pairs: a quarter raw random bit patterns, a quarter of random classes,
    a quarter close in value (a few ulps apart, either sign: cancellation and quotients
    near 1), a quarter a few binades apart (alignment shifts and sticky bits)."""
    q = n // 4
    raw = rng.integers(0, 1 << 63, (2, q), dtype=np.uint64) << np.uint64(1)
    raw |= rng.integers(0, 2, (2, q), dtype=np.uint64)
    cls = np.stack([_f64_class_operand(rng, q), _f64_class_operand(rng, q)])
    near_a = _f64_class_operand(rng, q)
    step = rng.integers(-300, 300, q).astype(np.int64)
    step[rng.random(q) < 0.1] = 0  # equal magnitudes: exact cancellation to a zero
    near_b = (near_a.astype(np.int64) + step).astype(np.uint64)  # wraps: any pattern is fine
    near_b ^= rng.integers(0, 2, q, dtype=np.uint64) << np.uint64(63)
    m = n - 3 * q
    far_a = _f64_class_operand(rng, m)
    exp_a = (far_a >> np.uint64(52)) & np.uint64(0x7FF)
    shift = rng.integers(0, 70, m).astype(np.int64) * rng.choice([-1, 1], m)
    exp_b = np.clip(exp_a.astype(np.int64) + shift, 0, 0x7FE).astype(np.uint64)
    frac_b = rng.integers(0, 1 << 52, m, dtype=np.uint64)
    sign_b = rng.integers(0, 2, m, dtype=np.uint64) << np.uint64(63)
    far_b = sign_b | (exp_b << np.uint64(52)) | frac_b
    a = np.concatenate([raw[0], cls[0], near_a, far_a])
    b = np.concatenate([raw[1], cls[1], near_b, far_b])
    return a, b


def edge_pairs(edges: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Every ordered pair of the edge values."""
    a, b = np.meshgrid(edges, edges, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def f32_edges() -> U32:
    """Both signs of the binary32 values where rounding and special cases live (as
    :func:`f64_edges` for binary64)."""
    words = [
        0x00000000,  # +0
        0x00000001,  # smallest subnormal
        0x00000003,
        0x007FFFFF,  # largest subnormal
        0x00400000,  # 2**-127
        0x00800000,  # smallest normal
        0x00800001,
        0x00FFFFFF,
        0x7F7FFFFF,  # largest finite
        0x7F000000,  # 2**127
        0x73000000,  # half an ulp of the largest finite
        0x7F800000,  # inf
        0x7FC00000,  # quiet NaN
        0x7F800001,  # signalling NaN
        0x3F800000,  # 1
        0x3F800001,  # 1 + 2**-23
        0x3F7FFFFF,  # 1 - 2**-24
        0x33800000,  # 2**-24: 1 + 2**-24 is a tie
        0x34400000,  # 3 * 2**-24
        0x40000000,  # 2
        0x40400000,  # 3
        0x4B800000,  # 2**24
        0x0C800000,  # 2**-102: products and quotients leave the normal range
        0x3DCCCCCD,  # 0.1
        0x3EAAAAAB,  # 1/3
        0x501502F9,  # 1e10
        0x2EDBE6FF,  # 1e-10
    ]
    both = words + [b | 0x80000000 for b in words]
    return np.array(both, dtype=np.uint32)


def f32_pairs(rng: np.random.Generator, n: int) -> tuple[U32, U32]:
    """n binary32 operand pairs made as :func:`f64_pairs` makes binary64 ones: the
    binary64 pairs' sign, exponent (scaled to binary32's range) and top fraction bits."""
    a, b = f64_pairs(rng, n)

    def narrow(x: U64) -> U32:
        sign = (x >> np.uint64(32)) & np.uint64(0x80000000)
        e64 = ((x >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
        # 0, 1, 2 and 0x7FD..0x7FF stay at the ends of binary32's range; the rest is scaled.
        e32 = np.where(
            e64 <= 2, e64, np.where(e64 >= 0x7FD, e64 - 0x7FF + 0xFF, e64 * 0xFF // 0x7FF)
        )
        e32 = np.clip(e32, 0, 0xFF).astype(np.uint64)
        frac = (x >> np.uint64(29)) & np.uint64(0x7FFFFF)
        out: U32 = (sign | (e32 << np.uint64(23)) | frac).astype(np.uint32)
        return out

    return narrow(a), narrow(b)


# ---------------------------------------------------------------------------
# binary64 references
# ---------------------------------------------------------------------------


def host_f64(op: str, a: U64, b: U64) -> npt.NDArray[Any]:
    """What the host's binary64 hardware gives: bits (uint64) for arithmetic, 0/1 or the
    sign (int64) for the tests."""
    x, y = a.view(np.float64), b.view(np.float64)
    with np.errstate(all="ignore"):
        if op in BINARY_OPS:
            fn = {"add": np.add, "sub": np.subtract, "div": np.divide}[op]
            return bits(fn(x, y))
        if op in COMPARE_OPS:
            cmp = {"lt": np.less, "le": np.less_equal, "eq": np.equal}[op]
            return cmp(x, y).astype(np.int64)
        if op == "sign":
            return np.nan_to_num(np.sign(x), nan=0.0).astype(np.int64)
        if op == "isnan":
            return np.isnan(x).astype(np.int64)
        if op == "neg":
            return bits(np.negative(x))
        if op == "from_f32":
            lo = (a & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            return bits(lo.view(np.float32))
        if op == "from_u32":
            lo = (a & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            return bits(lo)
        if op == "to_f32":
            return x.astype(np.float32).view(np.uint32).astype(np.uint64)
    raise AssertionError(op)


def softfloat_f64(op: str, a: U64, b: U64) -> npt.NDArray[Any]:
    """What Berkeley SoftFloat (softfloatpy; round to nearest even, its RISC-V NaN rule:
    every NaN result is 0x7FF8000000000000) gives, as :func:`host_f64` returns it."""
    import softfloatpy as sf

    def f64(v: np.uint64) -> Any:
        return sf.Float64.from_bytes(int(v).to_bytes(8, "big"))

    def word(v: Any) -> int:
        # A SoftFloat number's bits, from its own bytes (support.floatbits.bits reads
        # numpy floats, which a SoftFloat number is not).
        return int.from_bytes(v.to_bytes(), "big")

    sf.set_rounding_mode(sf.RoundingMode.NEAR_EVEN)
    if op in BINARY_OPS or op in COMPARE_OPS:
        fn = {
            "add": sf.f64_add,
            "sub": sf.f64_sub,
            "div": sf.f64_div,
            "lt": sf.f64_lt_quiet,
            "le": sf.f64_le_quiet,
            "eq": sf.f64_eq,
        }[op]
        raw = [fn(f64(x), f64(y)) for x, y in zip(a, b, strict=True)]
        if op in BINARY_OPS:
            return np.array([word(v) for v in raw], dtype=np.uint64)
        return np.array(raw, dtype=np.int64)
    if op == "neg":
        return np.array([word(sf.f64_neg(f64(x))) for x in a], dtype=np.uint64)
    if op == "from_f32":
        return np.array(
            [
                word(sf.f32_to_f64(sf.Float32.from_bytes((int(x) & 0xFFFFFFFF).to_bytes(4, "big"))))
                for x in a
            ],
            dtype=np.uint64,
        )
    if op == "from_u32":
        return np.array(
            [word(sf.ui32_to_f64(sf.UInt32.from_int(int(x) & 0xFFFFFFFF))) for x in a],
            dtype=np.uint64,
        )
    if op == "to_f32":
        return np.array([word(sf.f64_to_f32(f64(x))) for x in a], dtype=np.uint64)
    raise AssertionError(op)


def is_nan64(words: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    return np.isnan(words.view(np.float64))


# ---------------------------------------------------------------------------
# The routines compiled for the host
# ---------------------------------------------------------------------------

# The test's batch wrapper: one function over arrays of bit patterns, the operation
# chosen by its index in the routines compiled (CASES: one line per routine).
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
CASES        }
    }
}
"""
# What out[i] is for each routine (any other: its binary64 result's bits).
_RESULT = {
    "lt": "(uint64_t)tg_f64_lt(x, y)",
    "le": "(uint64_t)tg_f64_le(x, y)",
    "eq": "(uint64_t)tg_f64_eq(x, y)",
    "sign": "(uint64_t)(int64_t)tg_f64_sign(x)",
    "isnan": "(uint64_t)tg_f64_isnan(x)",
    "neg": "to_bits(tg_f64_neg(x))",
    "from_f32": "to_bits(tg_f64_from_f32((uint32_t)a[i]))",
    "from_u32": "to_bits(tg_f64_from_u32((uint32_t)a[i]))",
    "to_f32": "(uint64_t)tg_f64_to_f32(x)",
}


class HostF64:
    """The routines ``ops`` (names of OPS and POS_OPS; all of OPS unless given),
    rendered for prefix ``tg`` and compiled with the strict flags into a shared library;
    :meth:`run` applies one to arrays of bit patterns."""

    def __init__(self, workdir: Path, cc: str = "gcc", ops: Sequence[str] = tuple(OPS)) -> None:
        import cffi

        self.codes = {op: k for k, op in enumerate(ops)}
        result = {op: _RESULT.get(op, f"to_bits(tg_f64_{op}(x, y))") for op in ops}
        cases = "".join(
            f"        case {k}: out[i] = {result[op]}; break;\n" for op, k in self.codes.items()
        )
        source = (
            "#include <stddef.h>\n#include <stdint.h>\n"
            + f64_source("tg", ops)
            + _WRAPPER.replace("CASES", cases)
        )
        digest = hashlib.sha256(source.encode()).hexdigest()[:12]
        c = workdir / f"f64_{digest}.c"
        c.write_text(source)
        lib = workdir / f"libf64_{cc}_{digest}.so"
        r = subprocess.run(
            [cc, *SHARED_FLAGS, *STRICT_FLAGS, "-o", str(lib), str(c)],
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

    def run(self, op: str, a: U64, b: U64) -> npt.NDArray[Any]:
        a = np.ascontiguousarray(a, dtype=np.uint64)
        b = np.ascontiguousarray(b, dtype=np.uint64)
        out = np.zeros(len(a), dtype=np.uint64)
        self.lib.batch(
            self.codes[op],
            self.ffi.from_buffer("uint64_t[]", a),
            self.ffi.from_buffer("uint64_t[]", b),
            self.ffi.from_buffer("uint64_t[]", out),
            len(a),
        )
        if op in COMPARE_OPS or op in ("sign", "isnan"):
            return out.view(np.int64)
        return out


def mismatches(
    op: str, got: npt.NDArray[Any], want: npt.NDArray[Any], *, any_nan: bool
) -> npt.NDArray[np.intp]:
    """Indices where ``got`` differs from ``want``.  Bit patterns must be equal, except
    that where ``want`` is a NaN and ``any_nan`` (the host's NaN rule differs: x86
    propagates payloads and makes its default NaN negative) ``got`` must be the routines'
    one NaN; neg flips the sign of any NaN, payload kept, so it is compared exactly."""
    if op == "to_f32":
        if any_nan:
            wn = np.isnan(want.astype(np.uint32).view(np.float32))
            return np.flatnonzero(np.where(wn, got != np.uint64(0x7FC00000), got != want))
        return np.flatnonzero(got != want)
    if op in BINARY_OPS or op in ("from_f32", "from_u32", "neg"):
        if any_nan and op != "neg":
            wn = is_nan64(want)
            bad = np.where(wn, got != np.uint64(0x7FF8000000000000), got != want)
            return np.flatnonzero(bad)
        return np.flatnonzero(got != want)
    return np.flatnonzero(got != want)


def hexes(values: npt.NDArray[Any]) -> list[str]:
    return [f"{int(v) & 0xFFFFFFFFFFFFFFFF:016x}" for v in values]
