"""The accelerator's ``libm_exp`` (model/native/libm.c) is the C library's ``expf`` and
``exp``, bit for bit: one ctypes call per value gives the same on random and edge
operands (where numpy's own vectorised ``exp`` differs in many float32 values)."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from types import ModuleType

import numpy as np
import pytest

from treegen.model import native

from support.floatbits import same_bits

EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 88.7, -88.7, 89.0, -104.0, -150.0, 1e-40]


def _module() -> ModuleType:
    if native.cclassify is None:
        pytest.skip("the C accelerator is not built (or TREEGEN_NO_NATIVE is set)")
    return native.cclassify


def _libm() -> ctypes.CDLL:
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("no C math library to compare with")
    lib = ctypes.CDLL(name)
    lib.expf.restype, lib.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    lib.exp.restype, lib.exp.argtypes = ctypes.c_double, [ctypes.c_double]
    return lib


def test_expf_is_the_c_librarys() -> None:
    cc, lib = _module(), _libm()
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.normal(0, 30, 20000), EDGES]).astype(np.float32)
    y = x.copy()
    cc.libm_exp(y, True)
    ref = np.array([lib.expf(float(v)) for v in x], dtype=np.float32)
    assert np.array_equal(y.view(np.uint32), ref.view(np.uint32))


def test_exp_is_the_c_librarys() -> None:
    cc, lib = _module(), _libm()
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.normal(0, 300, 20000), EDGES, [709.78, 710.0, -745.1, -746.0]])
    y = x.copy()
    cc.libm_exp(y, False)
    ref = np.array([lib.exp(v) for v in x.tolist()])
    assert same_bits(y, ref)


def test_wrong_buffers_are_refused() -> None:
    cc = _module()
    with pytest.raises(ValueError):
        cc.libm_exp(np.zeros(4, dtype=np.float32)[::2], True)  # not contiguous
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        cc.libm_exp(frozen, False)
