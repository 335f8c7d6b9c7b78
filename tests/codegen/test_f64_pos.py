"""add_pos and div_pos (treegen/codegen/f64.py POS_OPS) give add's and div's bits on
their domain: operands +0 or positive normal, a finite sum, a normal quotient.

The operands (tests/support/f64pos.py) are a forest's and random ones over the whole
domain.  Each result is held against the host's double (numpy), Berkeley SoftFloat
(softfloatpy) and the generic routines compiled alongside.  The routines compile
warning-free under the strict flags.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.f64 import POS_OPS, f64_source, needed
from treegen.verify.build import STRICT_FLAGS

from support.f64pos import add_pairs, div_pairs, in_domain
from support.floatbits import U64, bits
from support.softfloat import HostF64, hexes, softfloat_f64


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> HostF64:
    return HostF64(tmp_path_factory.mktemp("f64pos"), ops=(*POS_OPS, "add", "div"))


def _check(lib: HostF64, op: str, a: U64, b: U64, softfloat: bool) -> None:
    keep = in_domain(op, a, b)
    assert keep.mean() > 0.95  # the operands are meant to be in the domain
    a, b = a[keep], b[keep]
    got = lib.run(op, a, b)
    generic = op.removesuffix("_pos")
    with np.errstate(all="ignore"):
        x, y = a.view(np.float64), b.view(np.float64)
        want = bits(x + y if op == "add_pos" else x / y)
    refs = {"host": want, "generic": lib.run(generic, a, b)}
    if softfloat:
        refs["softfloat"] = softfloat_f64(generic, a, b)
    for name, ref in refs.items():
        bad = np.flatnonzero(got != ref)
        sample = list(zip(hexes(a[bad][:5]), hexes(b[bad][:5]), hexes(got[bad][:5]), strict=True))
        assert len(bad) == 0, f"{op} vs {name}: {len(bad)} of {len(a)} differ, e.g. {sample}"


@pytest.mark.parametrize("op", list(POS_OPS))
def test_against_the_host_and_softfloat(lib: HostF64, op: str) -> None:
    rng = np.random.default_rng(21)
    a, b = (add_pairs if op == "add_pos" else div_pairs)(rng, 20_000)
    _check(lib, op, a, b, softfloat=True)


@pytest.mark.slow
@pytest.mark.parametrize("op", list(POS_OPS))
def test_many_against_the_host(lib: HostF64, op: str) -> None:
    rng = np.random.default_rng(22)
    a, b = (add_pairs if op == "add_pos" else div_pairs)(rng, 2_000_000)
    _check(lib, op, a, b, softfloat=False)


def test_ties_and_carries(lib: HostF64) -> None:
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
        got = lib.run(op, bits(np.array([x])), bits(np.array([y])))
        assert int(got[0]) == int(bits(np.array([want]))[0]), (op, x, y, hex(int(got[0])))


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


def test_add_once_keeps_add_pos_out_of_line_and_the_same() -> None:
    plain = f64_source("tg", list(POS_OPS))
    once = f64_source("tg", list(POS_OPS), add_once=True)
    assert "NOINLINE" not in plain
    assert "#define TG_F64_NOINLINE __attribute__((noinline))" in once
    assert "static TG_F64_NOINLINE tg_f64 tg_f64_add_pos(tg_f64 a, tg_f64 b)" in once
    # The same routines otherwise: the body of add_pos and everything else unchanged.
    body = plain[plain.index("static tg_f64 tg_f64_add_pos") :].split("\n", 1)[1]
    assert once.endswith(body) and plain.startswith(once[: once.index("/* Called once")])


@pytest.mark.toolchain
@pytest.mark.parametrize("add_once", [False, True])
@pytest.mark.parametrize("cc", list(CROSS))
def test_strict_flags(tmp_path: Path, cc: str, add_once: bool) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    user = (
        "int tg_use(tg_f64 a, tg_f64 b, tg_f64 *out);\n"
        "int tg_use(tg_f64 a, tg_f64 b, tg_f64 *out)\n{\n"
        "    out[0] = tg_f64_add_pos(a, b);\n    out[1] = tg_f64_div_pos(a, b);\n"
        "    return 0;\n}\n"
    )
    src = tmp_path / "pos.c"
    src.write_text("#include <stdint.h>\n" + f64_source("tg", list(POS_OPS), add_once) + user)
    strict = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    for std in ("c89", "c99"):
        r = subprocess.run(
            [*CROSS[cc], f"-std={std}", *strict, "-c", str(src), "-o", str(tmp_path / "p.o")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert r.returncode == 0 and not r.stderr.strip(), r.stderr[:2000]
