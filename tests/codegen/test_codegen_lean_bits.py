"""The lean ifs style with ``--float-compare int`` compares a float's bit pattern with
the threshold's (treegen.codegen.conditions.key_bits_test), one form for thresholds >= +0 and
one below, instead of calling a key function per test.  On every value next to every
threshold (one ulp either side), +-0, +-inf, subnormals and NaNs of both signs (which
go right, the none rule) the C takes the branch of the float compare ``x <= t``, and
the oracle agrees -- on the host, and on the simulated chips when they are installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.conditions import key_bits_test
from treegen.codegen.emit import emit
from treegen.codegen.ir import IR, Compare, Member
from treegen.codegen.keys import float_key
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Schema
from treegen.firmware import targets
from treegen.firmware.sim import run_vectors
from treegen.firmware.vectors import vectors_c
from treegen.model.core import ContinuousTest, Leaf, Model, Node
from treegen.model.options import ModelOptions, TrainOptions
from treegen.verify.build import build, have_compiler
from treegen.verify.oracle import evaluate

from support import codegen_models as cm

F32 = np.float32
TRUE_MIN = float(np.finfo(F32).smallest_subnormal)
MIN_NORMAL = float(np.finfo(F32).tiny)
MAX = float(np.finfo(F32).max)
# Thresholds of both signs, ascending, float32 values (as a c45 model holds them):
# the infinities, the extremes, subnormals, zero.
THRESHOLDS = tuple(
    float(F32(t))
    for t in (
        -np.inf,
        -MAX,
        -1e30,
        -75.5,
        -1.0,
        -MIN_NORMAL,
        -TRUE_MIN,
        0.0,
        TRUE_MIN,
        float(np.nextafter(F32(MIN_NORMAL), F32(0))),  # the largest subnormal
        MIN_NORMAL,
        1.0,
        75.0,
        1e30,
        MAX,
        np.inf,
    )
)
NAN_BITS = (
    0x7FC00000,  # the default quiet NaN
    0x7F800001,  # signalling, smallest payload
    0x7FFFFFFF,
    0xFFC00000,  # negative NaNs: sign bit set, as the key of -inf's neighbours
    0xFF800001,
    0xFFBFFFFF,
    0xFFFFFFFF,
)
OPTS = ExportOptions(prefix="lb", style="ifs", float_compare="int", missing="none")


@np.errstate(over="ignore")
def _values() -> npt.NDArray[np.float32]:
    vals: list[float] = [0.0, -0.0, np.inf, -np.inf]
    for t in THRESHOLDS:
        f = F32(t)
        # nextafter(+-inf) is +-FLT_MAX one way and the infinity itself the other.
        vals += [
            float(f),
            float(np.nextafter(f, F32(-np.inf))),
            float(np.nextafter(f, F32(np.inf))),
        ]
        vals.append(-float(f))
    out = np.array(vals, dtype=np.float32)
    nans = np.array(NAN_BITS, dtype=np.uint32).view(np.float32)
    rnd = np.random.default_rng(11).integers(0, 2**32, 400, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([out, nans, rnd.view(np.float32)])


def _leaf(cls: int, n: int) -> Node:
    dist = tuple(1.0 if c == cls else 0.0 for c in range(n))
    return Leaf(cls, 1.0, 0.0, dist)


def ladder(thresholds: tuple[float, ...], left_goes_on: bool) -> Model:
    """One test ``x <= t`` per threshold, on one feature.  ``left_goes_on``: the left
    branch is the next test and the right one leaf i (class i is the first test x
    fails); else the left branch is leaf i (the first test x passes).  The last
    branch is class n."""
    n = len(thresholds) + 1
    schema = Schema((Attribute("x", "continuous"),), tuple(f"c{i}" for i in range(n)), "class")
    nodes: list[Node] = []
    for k, t in enumerate(thresholds):
        i = len(nodes)
        kids = (i + 2, i + 1) if left_goes_on else (i + 1, i + 2)
        nodes.append(
            ContinuousTest(0, 2.0, 0.0, (1.0,) * n, attribute=0, threshold=t, children=kids)
        )
        nodes.append(_leaf(k, n))
    nodes.append(_leaf(n - 1, n))
    return Model(schema, tuple(nodes), ModelOptions(TrainOptions(flavor="c45")))


def expected(
    x: npt.NDArray[np.float32], thresholds: tuple[float, ...], left_goes_on: bool
) -> npt.NDArray[np.int32]:
    """Classes by the float compare x <= t (float32, NaN fails it), never by keys."""
    t = np.array(thresholds, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        le = x[:, None] <= t[None, :]
    hit = ~le if left_goes_on else le
    return np.where(hit.any(axis=1), hit.argmax(axis=1), len(thresholds)).astype(np.int32)


CASES = {
    "first-passed": (THRESHOLDS, False),  # negative thresholds met first
    "first-failed": (tuple(reversed(THRESHOLDS)), True),  # positive ones met first
}


def _ir(case: str) -> tuple[IR, tuple[float, ...], bool]:
    thresholds, left_goes_on = CASES[case]
    ir = lower(ladder(thresholds, left_goes_on), OPTS)
    tests = [n for n in ir.nodes if isinstance(n, Compare)]
    # Every threshold is a test of its own, at the float32 value itself.
    assert [int(n.threshold) for n in tests] == [float_key(t) for t in thresholds]
    return ir, thresholds, left_goes_on


def test_key_bits_test_by_threshold_sign() -> None:
    assert key_bits_test(float_key(75.0)) == ("bits_pos", 0x42960000)
    assert key_bits_test(float_key(0.0)) == ("bits_pos", 0)
    assert key_bits_test(float_key(np.inf)) == ("bits_pos", 0x7F800000)
    assert key_bits_test(float_key(-75.5)) == ("bits_neg", 0xC2970000)
    assert key_bits_test(float_key(-TRUE_MIN)) == ("bits_neg", 0x80000001)
    assert key_bits_test(float_key(-np.inf)) == ("bits_neg", 0xFF800000)


def test_lean_ifs_keys_calls_no_key_function() -> None:
    files = emit(_ir("first-passed")[0], "ifs")
    c = files["predict.c"]
    assert "lb_key" not in c
    assert "lb_bits(" in c
    ifs = re.findall(r"if \(\(u = lb_bits\(x\[0\]\)\) (<=|>=) (0x[0-9A-F]+u)", c)
    # One test per threshold, the form by its sign (-inf's bits compare with >=).
    assert [op for op, _ in ifs] == ["<=" if t >= 0 else ">=" for t in THRESHOLDS]


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
@pytest.mark.parametrize("case", sorted(CASES))
def test_bits_compare_is_the_float_compare_on_the_host(case: str, tmp_path: Path) -> None:
    ir, thresholds, left_goes_on = _ir(case)
    x = _values()
    want = expected(x, thresholds, left_goes_on)
    # Every threshold decides some row both ways, and NaN rows are there of both signs.
    assert len(set(want.tolist())) == len(thresholds) + 1
    built = build(ir, emit(ir, "ifs"), tmp_path)
    got, _ = built.run(x[:, None])
    assert np.array_equal(got, want)
    oracle, _ = evaluate(ir, x[:, None])
    assert np.array_equal(oracle, want)


@pytest.mark.parametrize("target", ["avr", "m0plus", "rv32imc", "rv32imafc"])
def test_bits_compare_is_the_float_compare_on_the_chip(target: str) -> None:
    t = targets.target(target)
    missing = targets.missing_tools(t)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian packages {t.packages})")
    for case in sorted(CASES):
        ir, thresholds, left_goes_on = _ir(case)
        x = _values()
        run = run_vectors(ir, emit(ir, "ifs"), x[:, None], t)
        assert run.ok, run.failure
        assert np.array_equal(run.cls, expected(x, thresholds, left_goes_on)), case


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_firmware_vectors_keep_a_nans_bits(tmp_path: Path) -> None:
    """The chips' test vectors hold each NaN as given (sign, quiet bit, payload), not
    as the default NaN: else a negative NaN could never be tested on a chip."""
    ir, _, _ = _ir("first-passed")
    x = np.array(NAN_BITS, dtype=np.uint32).view(np.float32)[:, None]
    (tmp_path / "vectors.c").write_text(vectors_c(ir, x))
    (tmp_path / "predict.h").write_text(emit(ir, "ifs")["predict.h"])
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include <string.h>\n#include "predict.h"\n'
        "extern const uint16_t tg_n_vectors;\n"
        "extern const lb_input_t tg_vectors[][LB_N_FEATURES];\n"
        "int main(void)\n{\n    uint16_t i;\n    uint32_t u;\n"
        "    for (i = 0; i < tg_n_vectors; i++) {\n"
        "        memcpy(&u, &tg_vectors[i][0], sizeof u);\n"
        '        printf("%08lx\\n", (unsigned long)u);\n    }\n    return 0;\n}\n'
    )
    exe = tmp_path / "bits"
    cc = ["gcc", "-std=c99", "-Wall", "-Werror", "-o", str(exe)]
    subprocess.run([*cc, str(tmp_path / "main.c"), str(tmp_path / "vectors.c")], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert [int(v, 16) for v in out.split()] == list(NAN_BITS)


def test_lean_ifs_keys_calls_nothing_on_avr(tmp_path: Path) -> None:
    """At -Os on the AVR a test is inline code: the only calls are to the walk
    functions a big tree is split into (the key function was a call per test)."""
    avr = shutil.which("avr-gcc")
    if avr is None:
        pytest.skip("avr-gcc not installed (Debian package gcc-avr)")
    ir = lower(cm.synthetic(5, 160), replace(OPTS, prefix="syn"))
    (tmp_path / "predict.c").write_text(emit(ir, "ifs")["predict.c"])
    (tmp_path / "predict.h").write_text(emit(ir, "ifs")["predict.h"])
    asm = subprocess.run(
        [avr, "-mmcu=atmega328p", "-Os", "-S", "-o", "-", str(tmp_path / "predict.c")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    tests = sum(isinstance(n, Compare | Member) for n in ir.nodes)
    assert tests > 20  # enough tests that gcc would not inline a key function
    # Calls and tail calls to functions (not jumps to a local label such as 2f).
    calls = re.findall(r"^\s*r?(?:call|jmp)\s+([A-Za-z_]\w*)", asm, flags=re.M)
    # A member test (a subset test whose codes interleave) looks its code up in
    # syn_in, which keys the value: the one other call.
    members = {"syn_in", "syn_key"} if any(isinstance(n, Member) for n in ir.nodes) else set()
    assert {c for c in calls if not re.fullmatch(r"syn_walk\d+", c)} <= members
