"""The binary64 routines (treegen/codegen/f64.py) give the IEEE result bit for bit.

Each routine, compiled for the host with the strict flags, is held against two
references on the same operands: the host's binary64 hardware (numpy) and Berkeley
SoftFloat (the softfloatpy binding).  The operands are every ordered pair of the edge
values (zeros, subnormal and normal limits, infinities, NaNs, exact ties, overflow
and underflow) and random pairs of every class, close in value (cancellation) and a
few binades apart (alignment); many more in the slow set.  NaN results are compared
by class against the host (x86 keeps payloads and makes its default NaN negative)
and bit for bit against SoftFloat, whose RISC-V build has the same NaN rule as the
routines.  The AVR run is in test_f64_avr.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.f64 import (
    NAN_BITS,
    OPS,
    double_literal,
    f64_bits,
    f64_initializer,
    f64_source,
    needed,
)
from treegen.verify.build import SHARED_FLAGS, STRICT_FLAGS

from support.floatbits import bits
from support.softfloat import (
    HostF64,
    edge_pairs,
    f64_edges,
    f64_pairs,
    hexes,
    host_f64,
    mismatches,
    softfloat_f64,
)

STRICT = [f for f in STRICT_FLAGS if not f.startswith("-std=")]


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> HostF64:
    return HostF64(tmp_path_factory.mktemp("f64"))


def _report(op: str, bad: np.ndarray, a: np.ndarray, b: np.ndarray, got: np.ndarray,
            want: np.ndarray) -> str:  # fmt: skip
    rows = [
        f"{x} {y} -> {g} want {w}"
        for x, y, g, w in zip(
            hexes(a[bad]), hexes(b[bad]), hexes(got[bad]), hexes(want[bad]), strict=True
        )
    ]
    return f"{op}: {len(bad)} of {len(a)} differ, e.g.\n" + "\n".join(rows[:8])


def _check(host: HostF64, a: np.ndarray, b: np.ndarray, *, softfloat: bool) -> None:
    for op in OPS:
        got = host.run(op, a, b)
        if softfloat and op not in ("sign", "isnan"):  # SoftFloat has no such routine
            want = softfloat_f64(op, a, b)
            bad = mismatches(op, got, want, any_nan=False)
        else:
            want = host_f64(op, a, b)
            bad = mismatches(op, got, want, any_nan=True)
        assert len(bad) == 0, _report(op, bad, a, b, got, want)


# --------------------------------------------------------------------------- the C text


def test_only_the_routines_asked_for_and_what_they_call() -> None:
    src = f64_source("tg", ["lt"])
    defined = set(re.findall(r"^static \w+ (\w+)\(", src, flags=re.M))
    assert defined == {"tg_f64_lt", "tg_f64_isnan", "tg_u64_lt"}
    full = f64_source("tg", OPS)
    defined = set(re.findall(r"^static \w+ (\w+)\(", full, flags=re.M))
    assert {f"tg_f64_{op}" for op in OPS} <= defined
    # Every identifier the C defines (functions, the type) carries the prefix.
    assert all(name.startswith("tg_") for name in defined)
    assert re.findall(r"\} (\w+);", full) == ["tg_f64"]
    assert f64_source("tg", OPS) == full  # deterministic bytes
    assert needed(["sub"]) >= {"add", "round_pack", "u64_shr_jam"}


def test_an_unknown_routine_is_refused() -> None:
    with pytest.raises(AssertionError, match="unknown binary64 routines"):
        f64_source("tg", ["mul"])


def _compile(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return "" if r.returncode == 0 and not r.stderr.strip() else (r.stderr or "failed")[:2000]


def _sources(d: Path) -> dict[str, Path]:
    """Every routine alone (with what it calls) and all together, each with a user so
    that no static function is unused: any warning left is the routines' own."""
    out = {}
    for name, ops in [*((op, [op]) for op in OPS), ("all", list(OPS))]:
        calls = []
        for op in ops:
            arg = {"from_f32": "x", "from_u32": "x"}.get(op, "a")
            second = ", b" if op in ("add", "sub", "div", "lt", "le", "eq") else ""
            fn = f"tg_f64_{op}({arg}{second})"
            returns_f64 = op in ("add", "sub", "div", "neg", "from_f32", "from_u32")
            if op == "to_f32":
                calls.append(f"    n += (int){fn};")
            else:
                calls.append(f"    *out = {fn};" if returns_f64 else f"    n += {fn};")
        user = (
            "int tg_use(tg_f64 a, tg_f64 b, uint32_t x, tg_f64 *out);\n"
            "int tg_use(tg_f64 a, tg_f64 b, uint32_t x, tg_f64 *out)\n{\n    int n = 0;\n"
            + "\n".join(calls)
            + "\n    (void)a;\n    (void)b;\n    (void)x;\n    (void)out;\n    return n;\n}\n"
        )
        path = d / f"f64_{name}.c"
        path.write_text("#include <stdint.h>\n" + f64_source("tg", ops) + user)
        out[name] = path
    return out


@pytest.mark.slow
@pytest.mark.parametrize("std", ["c89", "c99"])
def test_strict_flags_gcc(tmp_path: Path, std: str) -> None:
    errors = {
        name: _compile(["gcc", f"-std={std}", opt, *STRICT, "-c", str(p), "-o", str(p) + ".o"])
        for name, p in _sources(tmp_path).items()
        for opt in ("-O0", "-O3")
    }
    assert {k: v for k, v in errors.items() if v} == {}


CROSS = {
    "clang": ["clang", "-O3"],
    "arm-none-eabi-gcc": ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb", "-Os"],
    "avr-gcc": ["avr-gcc", "-mmcu=atmega328p", "-Os"],
}


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", list(CROSS))
def test_strict_flags_cross(tmp_path: Path, cc: str) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    errors = {
        f"{name}-{std}": _compile(
            [*CROSS[cc], f"-std={std}", *STRICT, "-c", str(p), "-o", str(p) + f".{std}.o"]
        )
        for name, p in _sources(tmp_path).items()
        for std in ("c89", "c99")
    }
    assert {k: v for k, v in errors.items() if v} == {}


# --------------------------------------------------------------------------- constants


def test_constants_read_back_exactly(tmp_path: Path) -> None:
    """Each edge value, written as a PREFIX_f64 initializer and (finite ones) as a double
    literal, compiles to exactly its bits."""
    values = [float(v) for v in f64_edges().view(np.float64)]
    finite = [v for v in values if np.isfinite(v)]
    src = (
        "#include <stdint.h>\n"
        + f64_source("tg", [])
        + "const tg_f64 tg_inits[] = {\n"
        + ",\n".join(f"    {f64_initializer(v)}" for v in values)
        + "\n};\nconst double tg_doubles[] = {\n"
        + ",\n".join(f"    {double_literal(v)}" for v in finite)
        + "\n};\n"
    )
    c = tmp_path / "consts.c"
    c.write_text(src)
    lib = tmp_path / "libconsts.so"
    r = subprocess.run(
        ["gcc", *SHARED_FLAGS, *STRICT_FLAGS, "-o", str(lib), str(c)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0 and not r.stderr, r.stderr
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(
        "typedef struct { uint32_t hi; uint32_t lo; } tg_f64;"
        f"extern const tg_f64 tg_inits[{len(values)}];"
        f"extern const double tg_doubles[{len(finite)}];"
    )
    so = ffi.dlopen(str(lib))
    got = [so.tg_inits[i].hi << 32 | so.tg_inits[i].lo for i in range(len(values))]
    assert got == [f64_bits(v) for v in values]
    assert [f64_bits(so.tg_doubles[i]) for i in range(len(finite))] == [f64_bits(v) for v in finite]
    assert f64_initializer(1.0) == "{0x3FF00000u, 0x00000000u}"
    assert f64_initializer(-0.0) == "{0x80000000u, 0x00000000u}"
    assert double_literal(-0.0) == "-0.0"


# --------------------------------------------------------------------------- arithmetic


def test_edges_against_the_host(host: HostF64) -> None:
    a, b = edge_pairs(f64_edges())
    assert len(a) > 4000
    _check(host, a, b, softfloat=False)


def test_edges_against_softfloat(host: HostF64) -> None:
    a, b = edge_pairs(f64_edges())
    _check(host, a, b, softfloat=True)


def test_named_cases(host: HostF64) -> None:
    """The cases the issue names, spelled out: ties to even, overflow, underflow to a
    subnormal and to zero, division by zero and by a subnormal."""
    f = np.float64
    cases = [
        ("add", 1.0, 2.0**-53, 1.0),  # tie: to even
        ("add", 1.0, 3 * 2.0**-53, 1.0 + 2.0**-51),  # tie: to even (up)
        ("add", 1.0 + 2.0**-52, 2.0**-53, 1.0 + 2.0**-51),  # tie from odd: up
        ("add", 1.7976931348623157e308, 2.0**970, np.inf),  # tie at the top: to even = inf
        ("add", 1.7976931348623157e308, 1.7976931348623157e308, np.inf),
        ("sub", 2.0**-1022, 2.0**-1074, 2.0**-1022 - 2.0**-1074),  # largest subnormal
        ("sub", 1.0, 1.0, 0.0),
        ("add", -0.0, -0.0, -0.0),
        ("add", -0.0, 0.0, 0.0),
        ("div", 2.0**-1074, 2.0, 0.0),  # half the smallest subnormal: tie to even (0)
        ("div", 3 * 2.0**-1074, 2.0, 2 * 2.0**-1074),  # 1.5 ulps: tie to even (2)
        ("div", 1.0, 2.0**-1074, np.inf),  # overflow
        ("div", 2.0**-1060, 2.0**-1074, 2.0**14),  # by a subnormal
        ("div", 1.0, 3.0, 1.0 / 3.0),
        ("div", -1.0, 0.0, -np.inf),
        ("div", 1.0, -0.0, -np.inf),
        ("div", 2.0**-1000, 2.0**100, 0.0),  # underflow to zero
        ("div", 1.0, 2.0**1023 * 1.5, 2.0**-1023 / 1.5),  # underflow to a subnormal
    ]
    for op, x, y, want in cases:
        got = host.run(op, np.array([x]).view(np.uint64), np.array([y]).view(np.uint64))
        assert got.view(np.float64)[0] == want or np.isnan(want), (op, x, y)
        assert f64_bits(float(got.view(f)[0])) == f64_bits(float(want)), (op, x, y, got)
    nan = host.run("div", np.array([0.0]).view(np.uint64), np.array([0.0]).view(np.uint64))
    assert int(nan[0]) == NAN_BITS
    nan = host.run("sub", np.array([np.inf]).view(np.uint64), np.array([np.inf]).view(np.uint64))
    assert int(nan[0]) == NAN_BITS


@pytest.mark.parametrize("n, seed", [(20_000, 1), (1_000_000, 2), (1_000_000, 3)])
def test_random_against_the_host(host: HostF64, n: int, seed: int) -> None:
    a, b = f64_pairs(np.random.default_rng(seed), n)
    _check(host, a, b, softfloat=False)


@pytest.mark.parametrize("n, seed", [(20_000, 4), (400_000, 5)])
def test_random_against_softfloat(host: HostF64, n: int, seed: int) -> None:
    a, b = f64_pairs(np.random.default_rng(seed), n)
    _check(host, a, b, softfloat=True)


def test_operands_reach_every_result_class() -> None:
    """The random operands are not all easy: sums and quotients fall in every class,
    and some sums are exact ties (the rounding rule decides them)."""
    a, b = f64_pairs(np.random.default_rng(1), 20_000)
    for op in ("add", "div"):
        r = host_f64(op, a, b).view(np.float64)
        e = (r.view(np.uint64) >> np.uint64(52)) & np.uint64(0x7FF)
        counts = {
            "nan": np.isnan(r).sum(),
            "inf": np.isinf(r).sum(),
            "zero": (r == 0).sum(),
            "subnormal": ((e == 0) & (r != 0)).sum(),
        }
        assert min(counts.values()) >= 20, (op, counts)
    # A tie: the exact sum lies half way between two doubles.  With Fraction, on a sample.
    from fractions import Fraction

    x, y = a.view(np.float64)[::5], b.view(np.float64)[::5]
    ties = 0
    with np.errstate(all="ignore"):
        s = x + y
        for xi, yi, si in zip(x, y, s, strict=True):
            if not (np.isfinite(si) and np.isfinite(xi) and np.isfinite(yi)):
                continue
            exact = Fraction(float(xi)) + Fraction(float(yi))
            if exact == si:
                continue
            other = np.nextafter(si, np.inf if exact > si else -np.inf)
            ties += bool(np.isfinite(other)) and abs(exact - Fraction(float(si))) == abs(
                Fraction(float(other)) - exact
            )
    assert ties >= 50, ties


def _conversion_operands(rng: np.random.Generator) -> np.ndarray:
    """binary64 values at binary32's edges: its overflow threshold and the tie just below
    it, its subnormal range and the ties there, exact float32 values and their neighbours
    a few binary64 ulps away (ties to even among them), and random values of every
    magnitude a float32 can hold or just misses."""
    f32 = np.array(
        [3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, 1.0, 0.1,
         2.0**-149 * 3, 2.0**-126 - 2.0**-149, 65504.0, 16777216.0, 16777217.0],
        dtype=np.float64,
    )  # fmt: skip
    special = [
        3.4028235677973366e38,  # FLT_MAX + half an ulp: the tie, to even (infinity)
        3.4028235677973362e38,  # just below that tie: FLT_MAX
        2.0**-150,  # half the least subnormal: the tie, to even (zero)
        2.0**-150 * 1.0000001,  # just above: the least subnormal
        2.0**-149 * 1.5,  # a tie between 1 and 2 units: to even (2)
        2.0**-149 * 2.5,  # to even (2)
        1.0 + 2.0**-24,  # a tie at 1: to even (1)
        1.0 + 3 * 2.0**-24,  # to even (1 + 2**-22)
        2.0**-127,
        2.0**128,
        1e-50,
        1e50,
    ]
    near = (
        f32.view(np.uint64)[:, None] + np.arange(-3, 4, dtype=np.int64)[None, :].astype(np.uint64)
    ).ravel()
    randoms = rng.uniform(-1, 1, 3000) * 2.0 ** rng.integers(-160, 130, 3000)
    widened = rng.standard_normal(2000).astype(np.float32).astype(np.float64)
    half_ulps = widened.view(np.uint64) + np.uint64(1 << 28)  # exactly half a binary32 ulp
    vals = np.concatenate([np.array(special), f32, randoms, widened]).view(np.uint64)
    out = np.concatenate([vals, near, half_ulps, f64_edges()])
    return np.concatenate([out, out | np.uint64(1 << 63)])


def test_to_f32_is_the_nearest_binary32(host: HostF64) -> None:
    a = _conversion_operands(np.random.default_rng(4))
    b = np.zeros_like(a)
    got = host.run("to_f32", a, b)
    for want, any_nan in ((host_f64("to_f32", a, b), True), (softfloat_f64("to_f32", a, b), False)):
        bad = mismatches("to_f32", got, want, any_nan=any_nan)
        assert len(bad) == 0, _report("to_f32", bad, a, b, got, want)
    # Every class of result was reached: zeros, subnormals, normals, infinities, NaN.
    f = got.astype(np.uint32).view(np.float32)
    assert np.isinf(f).any() and np.isnan(f).any() and (f == 0).any()
    assert ((np.abs(f) > 0) & (np.abs(f) < np.float32(2.0**-126))).any()


def test_from_u32_is_exact(host: HostF64) -> None:
    n = np.concatenate(
        [np.arange(0, 70000, dtype=np.uint64), np.uint64(1) << np.arange(32, dtype=np.uint64),
         (np.uint64(1) << np.arange(1, 33, dtype=np.uint64)) - np.uint64(1),
         np.random.default_rng(2).integers(0, 2**32, 5000, dtype=np.uint64)]
    )  # fmt: skip
    got = host.run("from_u32", n, np.zeros_like(n))
    assert np.array_equal(got, bits(n))
