"""An IsolationForest's scores: glibc's ``pow(2, y)`` reproduced, in Python
(treegen.ensemble.pow2) and in the generated C (integers only), each held to
``math.pow`` -- which calls this machine's glibc ``pow``, the reference -- over many
exponents and every path-length sum a small forest can make; then the exported
``score_samples``/``decision_function`` through verify, on the host and the chips."""

from __future__ import annotations

import ctypes
import math
import platform
import re
import shutil
import subprocess
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify, isolation, pow2
from treegen.ensemble.core import Ensemble
from treegen.ensemble.regress import from_estimator
from treegen.errors import TreegenError
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import STRICT_FLAGS

from support.floatbits import bits, same_bits

sklearn = pytest.importorskip("sklearn")


def _glibc_with_fma() -> bool:
    """glibc's pow is the reference; on x86-64 its FMA build, the one a CPU with FMA runs."""
    if platform.libc_ver()[0] != "glibc":
        return False
    if platform.machine() in ("x86_64", "AMD64"):
        try:
            return " fma " in Path("/proc/cpuinfo").read_text() + " "
        except OSError:
            return False
    return True


needs_glibc = pytest.mark.skipif(
    not _glibc_with_fma(), reason="the reference is glibc's pow as built for CPUs with FMA"
)
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _exponents() -> list[float]:
    """Exponents across pow's fast path for negative y: uniform, near every table
    boundary k/128 and integer, near the path's ends, and the score range's usual part."""
    rng = np.random.default_rng(0)
    ys = list(-rng.uniform(0, 4, 6000)) + list(-rng.uniform(0, 737, 2000))
    ys += list(-np.exp(rng.uniform(math.log(2.0**-53), 0, 1500)))
    for k in range(1, 3 * 128):
        c = k / 128
        ys += [-c, float(-np.nextafter(c, 0)), float(-np.nextafter(c, 9))]
    ys += [-737.0, -(2.0**-53), -(2.0**-50), -1.0, -0.5]
    return [y for y in ys if pow2.fast(y)]


@cache
def _small_forest() -> Ensemble:
    from sklearn.ensemble import IsolationForest

    X = np.random.default_rng(0).normal(size=(301, 4))
    est = IsolationForest(n_estimators=4, max_samples=32, random_state=0).fit(X)
    return from_estimator(est)


def _every_sum(ens: Ensemble) -> list[float]:
    """Every float64 path-length sum the forest can make (one leaf per tree, in order)."""
    sums = {0.0}
    for tree in ens.trees:
        leaves = {ens.values[tree.value[i]][0] for i in range(tree.n_nodes) if tree.is_leaf(i)}
        sums = {s + v for s in sums for v in leaves}
    return sorted(sums)


def test_the_table_is_two_to_the_k_over_128() -> None:
    t = pow2.table()
    for k in range(0, 128, 7):
        h = pow2.as_float((t[2 * k + 1] + (k << 45)) & pow2.MASK)
        tail = pow2.as_float(t[2 * k])
        assert h == 2.0 ** (k / 128) or abs(h / 2.0 ** (k / 128) - 1) < 2.0**-52
        assert abs(tail) < 2.0**-53


@pytest.mark.slow
@needs_glibc
def test_python_pow2_is_glibc_pow() -> None:
    ys = _exponents()
    assert len(ys) > 9000
    bad = [y for y in ys if pow2.pow2(y) != math.pow(2.0, y)]
    assert bad == []


def test_off_the_fast_path_is_refused() -> None:
    assert pow2.domain_error(1.0, 10.0, 20.0) is None
    assert "fast path" in str(pow2.domain_error(1.0, 1e6, 1.0))
    assert "denominator" in str(pow2.domain_error(1.0, 2.0, -1.0))
    assert "denominator" in str(pow2.domain_error(1.0, 2.0, math.inf))
    assert pow2.domain_error(1.0, 2.0, 0.0) is None  # scikit-learn's quotient: 1
    assert pow2.score(7.0, 0.0) == -0.5
    with pytest.raises(ValueError, match="off the reproduced path"):
        pow2.pow2(-1000.0)
    ens = _small_forest()
    assert ens.anomaly is not None
    tiny = replace(ens, anomaly=replace(ens.anomaly, denominator=1e-3))
    with pytest.raises(TreegenError, match="scores are not exported"):
        render(tiny, ExportOptions(prefix="i", scores=True))
    with pytest.raises(TreegenError, match="no class probabilities"):
        render(ens, ExportOptions(prefix="i", proba=True))


def _c_library(tmp_path: Path) -> Any:
    """The exported predict.c with a test entry to its pow and scores (same unit)."""
    files = dict(
        render(_small_forest(), ExportOptions(prefix="i", name="predict", scores=True)).files
    )
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "t.c").write_text(
        '#include "predict.c"\n'
        "void t_pow2(const uint64_t *y, uint64_t *out, long n);\n"
        "void t_pow2(const uint64_t *y, uint64_t *out, long n)\n{\n    long i;\n"
        "    for (i = 0; i < n; i++) {\n        out[i] = i_pw_pow2(y[i]);\n    }\n}\n"
        "void t_bits(const float *x, uint32_t *out, long n);\n"
        "void t_bits(const float *x, uint32_t *out, long n)\n{\n    long i;\n"
        "    for (i = 0; i < n; i++) {\n"
        "        i_scores_bits(x + i * I_N_FEATURES, out + 4 * i);\n    }\n}\n"
    )
    lib = tmp_path / "t.so"
    subprocess.run(
        ["gcc", *STRICT_FLAGS, "-O1", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "t.c")],
        check=True,
        capture_output=True,
    )
    return ctypes.CDLL(str(lib))


def _c_pow2(lib: Any, ys: npt.ArrayLike) -> npt.NDArray[np.float64]:
    y = bits(ys)
    out = np.zeros_like(y)
    p = ctypes.POINTER(ctypes.c_uint64)
    lib.t_pow2(y.ctypes.data_as(p), out.ctypes.data_as(p), ctypes.c_long(len(y)))
    return out.view(np.float64)


@needs_glibc
@needs_gcc
def test_c_pow2_is_glibc_pow(tmp_path: Path) -> None:
    """The C's integer pow on every exponent above, and on -(s / denominator) for every
    sum s the small forest can make (the score of each row it can see)."""
    lib = _c_library(tmp_path)
    ens = _small_forest()
    assert ens.anomaly is not None
    sums = _every_sum(ens)
    assert len(sums) > 500
    ys = _exponents() + [-(s / ens.anomaly.denominator) for s in sums]
    got = _c_pow2(lib, ys)
    want = np.array([math.pow(2.0, y) for y in ys])
    assert same_bits(got, want)
    assert _c_pow2(lib, [0.0, -0.0]).tolist() == [1.0, 1.0]


@needs_gcc
def test_scores_bits_are_the_float64_values(tmp_path: Path) -> None:
    """PREFIX_scores_bits: score_samples' and decision_function's words, high first."""
    lib = _c_library(tmp_path)
    ens = _small_forest()
    X = np.random.default_rng(3).uniform(-4, 4, (500, 4)).astype(np.float32)
    X[::7, 1] = np.nan
    out = np.zeros((len(X), 4), dtype=np.uint32)
    lib.t_bits(
        X.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
        out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
        ctypes.c_long(len(X)),
    )
    got = (out[:, 0::2].astype(np.uint64) << np.uint64(32)) | out[:, 1::2].astype(np.uint64)
    want = isolation.glibc_scores(ens, X.astype(np.float64))
    assert np.array_equal(got, bits(want))


@needs_glibc
def test_every_score_of_the_small_forest_is_glibc_s() -> None:
    ens = _small_forest()
    assert ens.anomaly is not None
    den = ens.anomaly.denominator
    for s in _every_sum(ens):
        assert pow2.score(s, den) == -math.pow(2.0, -(s / den))


@pytest.mark.slow
@needs_gcc
@pytest.mark.parametrize("setup", ["auto", "contamination", "features", "nan"])
def test_c_scores_on_the_host(setup: str) -> None:
    """verify --scores: score_samples and decision_function bit for bit against the
    glibc-pow arithmetic, with predict's class, on every verify row."""
    from sklearn.ensemble import IsolationForest

    rng = np.random.default_rng(0)
    X = rng.normal(size=(301, 4))
    if setup == "nan":
        X[rng.random(X.shape) < 0.05] = np.nan
    kw: dict[str, Any] = {
        "auto": {},
        "contamination": {"contamination": 0.1},
        "features": {"max_features": 0.5, "n_estimators": 20},
        "nan": {"contamination": 0.1},
    }[setup]
    kw.setdefault("n_estimators", 30)
    ens = from_estimator(IsolationForest(random_state=0, **kw).fit(X))
    for style in ("table", "ifs"):
        opts = ExportOptions(prefix="i", name="predict", scores=True, style=style)
        report = verify(ens, opts, n_random=300)
        assert report.ok and report.rows > 300, report.text()
        assert "classes and scores identical" in report.text()
    # Against scikit-learn where numpy's power is glibc's: Python's glibc scores, and
    # numpy's, on the training rows (they differ where numpy's SIMD power does).
    got = isolation.glibc_scores(ens, X)
    sums = classify.raw_scores(ens, X)[:, 0]
    assert ens.anomaly is not None
    want = np.array([-math.pow(2.0, -(s / ens.anomaly.denominator)) for s in sums])
    if _glibc_with_fma():
        assert same_bits(got[:, 0], want)
    assert np.array_equal(got[:, 1], got[:, 0] - ens.anomaly.offset)


@pytest.mark.toolchain
def test_c_scores_on_the_chips() -> None:
    """Where double has 32 bits (AVR) the scores run in integers and are returned as the
    nearest binary32; on the M0+ as doubles: both against the same glibc-pow values."""
    chips = [c for c in ("avr", "m0plus") if targets.available(targets.target(c), run=True)]
    if not chips:
        pytest.skip("no simulated chip is installed")
    opts = ExportOptions(prefix="i", name="predict", scores=True)
    result = verify_on(_small_forest(), opts, [], chips, n_random=60)
    assert result.report.ok, result.report.text()
    assert result.report.text().count("classes and scores identical") == len(chips)


def test_no_constant_needs_more_than_32_bits() -> None:
    """C89 has no integer constant beyond unsigned long, 32 bits on the chips: the 64-bit
    constants of the scores are built from 32-bit halves."""
    files = render(_small_forest(), ExportOptions(prefix="i", scores=True)).files
    text = re.sub(r"/\*.*?\*/", "", files["i_predict.c"], flags=re.S)  # code, not comments
    assert "i_pw_pow2" in text
    assert re.findall(r"\b0[xX]0*[0-9A-Fa-f]{9,}", text) == []
    integers = re.findall(r"(?<![\w.])(\d+)[uUlL]*(?![\w.])", text)  # not a double's digits
    assert integers and [d for d in integers if int(d) > 0xFFFFFFFF] == []


@pytest.mark.toolchain
@pytest.mark.parametrize(
    "cc",
    [
        ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb"],
        ["avr-gcc", "-mmcu=atmega328p"],
        ["riscv64-unknown-elf-gcc", "-march=rv32imc", "-mabi=ilp32", "-ffreestanding"],
    ],
)
def test_scores_compile_as_c89_where_long_has_32_bits(cc: list[str], tmp_path: Path) -> None:
    if shutil.which(cc[0]) is None:
        pytest.skip(f"{cc[0]} is not installed")
    files = render(_small_forest(), ExportOptions(prefix="i", scores=True)).files
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    strict = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    r = subprocess.run(
        [*cc, "-std=c89", "-Os", *strict, "-c", str(tmp_path / "i_predict.c"), "-o", "/dev/null"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
