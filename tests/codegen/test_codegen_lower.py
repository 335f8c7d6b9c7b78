"""Property tests of the lowering rules, fixed-point rules and literal formatting
(no compiler needed): each rule in treegen.codegen is checked at its boundaries."""

from __future__ import annotations

import math
import struct
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treegen.codegen.ctype import INT_TYPES, TYPES
from treegen.codegen.ir import Compare, Encoding
from treegen.codegen.keys import float_key, float_keys
from treegen.codegen.literals import c_double, c_float, c_string
from treegen.codegen.lower import (
    float32_floor,
    fold_note,
    fold_of,
    known_range,
    lower,
    lower_continuous,
)
from treegen.codegen.options import ExportOptions
from treegen.model import bounds, fixedpoint
from treegen.model.core import ContinuousTest, Leaf
from treegen.model.fixedpoint import ONE, W_ONE, FixedPointClassifier
from treegen.model.options import ModelOptions, TrainOptions
from treegen.verify.inputs import comparison_inputs
from treegen.verify.oracle import evaluate

from support import codegen_models as cm
from support.modes import CORE, EXPORT_MODES

f32 = st.floats(width=32, allow_nan=False)
f64 = st.floats(allow_nan=False)


def _bits_to_f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


@given(f64, f32)
def test_float32_floor_preserves_every_comparison(t: float, x: float) -> None:
    f = float32_floor(t)
    assert f <= t and (x <= t) == (x <= f)
    if not math.isinf(t):
        assert float(np.float32(f)) == f


@given(f32)
def test_float32_floor_is_identity_on_float32(x: float) -> None:
    assert float32_floor(x) == x


@given(f32, f32)
def test_float_key_orders_like_float(a: float, b: float) -> None:
    # -0.0 and +0.0 compare equal as floats; lowering never uses -0.0 as a threshold.
    tb = 0.0 if b == 0 else b
    assert (a <= tb) == (float_key(a) <= float_key(tb))
    assert float_key(a) >= 0x007FFFFF


@given(st.integers(0, 0xFFFFFFFF))
def test_float_key_nan_and_vectorized(bits: int) -> None:
    x = _bits_to_f32(bits)
    assert (float_key(x) == 0) == math.isnan(x)
    assert int(float_keys(np.array([x], dtype=np.float32))[0]) == float_key(x)


# --scale accepts any positive fraction: powers of ten, other integers, fractions, and
# scales so large that x/K needs rounding to a double before rounding to float32.
SCALES = [Fraction(k) for k in (1, 10, 100, 1000, 10**4, 10**5, 10**6, 3, 7, 12, 1024)] + [
    Fraction(5, 2),
    Fraction(1, 3),
    Fraction(1, 1000),
    Fraction(10**9),
    Fraction(3**19),
]


def _read(x: int, k: Fraction) -> float:
    """The double nearest x/K, as reading the decimal x/K gives it (treegen predict):
    Python's int / int is correctly rounded."""
    return (x * k.denominator) / k.numerator


def _f32_le(v: float, t: float) -> bool:
    """The c45 model's test, computed the way Python's classifier does it."""
    with np.errstate(over="ignore"):
        return bool(np.float32(v) <= np.float32(float32_floor(t)))


def _model_le(v: float, t: float, narrow32: bool) -> bool:
    return _f32_le(v, t) if narrow32 else v <= t


@pytest.mark.parametrize("narrow32", [False, True])
@given(data=st.data())
def test_int_cut_follows_the_model_on_x_over_k_read_as_a_double(
    narrow32: bool, data: st.DataObject
) -> None:
    # The integer x means the decimal x/K; the model sees it as the double nearest
    # x/K (j48: double(x/K) <= t; c45: float32(double(x/K)) <= t).  Thresholds: a
    # training value n/K as the flavour stores it (a double, or a float32 for c45),
    # its neighbours, or any value; x: around n and the cut itself.
    k = data.draw(st.sampled_from(SCALES), label="k")
    n = data.draw(st.integers(-(1 << 32), 1 << 32), label="n")
    v = _read(n, k)
    stored = float(np.float32(v)) if narrow32 else v
    near = [stored, float(np.nextafter(stored, -np.inf)), float(np.nextafter(stored, np.inf))]
    t = data.draw(st.sampled_from(near) | f64.filter(math.isfinite), label="t")
    c = bounds.bound_int(bounds.read_bound(t, narrow32), k)
    for y in (n - 2, n - 1, n, n + 1, n + 2, c - 1, c, c + 1):
        try:
            r = _read(y, k)
        except OverflowError:  # x/K beyond the doubles: rounds to +-inf
            r = math.inf if y > 0 else -math.inf
        assert _model_le(r, t, narrow32) == (y <= c), (t, y, k, c)


@pytest.mark.parametrize("narrow32", [False, True])
@given(f64.filter(math.isfinite))
def test_read_bound_is_where_rounding_to_double_crosses(narrow32: bool, t: float) -> None:
    # At the boundary B itself the value rounds to a double halfway between two
    # (ties to even decide); just below it always passes, just above never does.
    b, incl = bounds.read_bound(t, narrow32)
    eps = Fraction(1, 1 << 1200)  # far below any double spacing at B

    def passes(v: Fraction) -> bool:
        try:
            d = float(v)  # Fraction -> float is correctly rounded
        except OverflowError:
            d = math.inf if v > 0 else -math.inf
        return _model_le(d, t, narrow32)

    assert passes(b) == incl and passes(b - eps) and not passes(b + eps), (t, b, incl)


def test_scaled_j48_cut_at_a_decimal_training_value() -> None:
    # J48 picks the training value 0.3 as threshold: the double 0.29999999999999998...,
    # below 3/10.  x = 3 means 0.3, which treegen predict reads as that same double
    # and sends left, so the cut is 3, not floor(t * 10) = 2.
    t = 0.3
    assert Fraction(t) < Fraction(3, 10)
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=0, threshold=t, children=(1, 2))
    for itype in ("int16", "int32", "uint32"):
        enc = Encoding(itype, "float", TYPES[itype].range[0], (Fraction(10),))
        assert lower_continuous(node, 0, enc, False) == ("le", 3)


def test_c45_cut_rounds_x_over_k_to_double_first() -> None:
    # x/K a hair above a float32 midpoint m (less than half a double step): rounded
    # straight to float32 it goes above m, but its double is m itself, which ties to
    # the even float32 below, as treegen predict (and Release 8) see the decimal.
    k = 3**19
    odd = next(
        o
        for o in range((1 << 24) + 1, 1 << 25, 2)
        if (k * o) % (1 << 24) == (1 << 24) - 1 and ((o - 1) // 2) % 2 == 0
    )
    x = (k * odd + 1) >> 24  # x * 2**24 - k * odd == 1
    m = Fraction(odd, 1 << 24)
    assert Fraction(x, k) > m and Fraction(_read(x, k)) == m
    t = float(m - Fraction(1, 1 << 24))  # the even float32 just below m
    assert _f32_le(_read(x, k), t) and not _f32_le(_read(x + 1, k), t)
    # The exact x/K lies above the rounding boundary: a rule that skipped the double
    # would cut one lower.
    assert bounds.bound_int(bounds.model_bound(t, True), Fraction(k)) == x - 1
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=0, threshold=t, children=(1, 2))
    enc = Encoding("uint32", "float", 0, (Fraction(k),))
    assert lower_continuous(node, 0, enc, True) == ("le", x)


@given(f64.filter(math.isfinite), f64)
def test_model_bound_matches_float32_rounding(t: float, v: float) -> None:
    b, incl = bounds.bound_float(bounds.model_bound(t, True))
    # v itself, and the boundary with its double neighbours (where rounding ties).
    for x in (v, b, float(np.nextafter(b, -np.inf)), float(np.nextafter(b, np.inf))):
        assert _f32_le(x, t) == (x < b or (incl and x == b)), (t, x, b, incl)


@given(f32.filter(math.isfinite), st.integers(-(1 << 52), 1 << 52), st.integers(0, 20))
def test_bound_int_matches_float32_rounding(t: float, x: int, shift: int) -> None:
    # With K a power of two, x/K is an exact double, so numpy's rounding of it to
    # float32 is an independent oracle for the c45 integer rule.
    k = Fraction(2) ** shift
    c = bounds.bound_int(bounds.model_bound(t, True), k)
    for y in (x, c - 1, c, c + 1):
        if abs(y) <= 1 << 52:
            assert _f32_le(y / float(k), t) == (y <= c), (t, y, k, c)


def test_c45_double_input_follows_the_float_classifier_at_a_data_value() -> None:
    # Release 8 stores 27.05 as float32(27.05) and picks that as the threshold; a
    # double input 27.05 (above float32(27.05)) must still go left, as in Python.
    t = float(np.float32(27.05))
    assert 27.05 > t
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=0, threshold=t, children=(1, 2))
    enc = Encoding("double", "float", None, ())
    op, thr = lower_continuous(node, 0, enc, narrow32=True)
    assert op == "le" and 27.05 <= float(thr)
    op, thr = lower_continuous(node, 0, enc, narrow32=False)
    assert op == "le" and float(thr) == t
    enc = Encoding("int16", "float", -32768, (Fraction(100),))
    assert lower_continuous(node, 0, enc, True) == ("le", 2705)
    assert lower_continuous(node, 0, enc, False) == ("le", 2704)


@pytest.mark.parametrize("narrow32", [False, True])
@pytest.mark.parametrize("itype", sorted(t.name for t in INT_TYPES))
@given(data=st.data())
def test_integer_lowering_and_folding(itype: str, narrow32: bool, data: st.DataObject) -> None:
    lo, hi = TYPES[itype].range
    missing = data.draw(st.sampled_from([lo, hi, 0]))
    enc = Encoding(itype, "float", missing, (Fraction(1),) * 4)
    t = data.draw(
        st.one_of(
            st.floats(lo - 3.0, hi + 3.0),
            st.sampled_from([lo - 0.5, lo, lo + 0.5, hi - 0.5, hi, hi + 0.5, 0.0, -0.5, 0.5]),
        )
    )
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=1, threshold=t, children=(1, 2))
    op, thr = lower_continuous(node, 0, enc, narrow32=narrow32)
    klo, khi = known_range(enc)
    xs = {lo, hi, klo, khi, min(max(math.floor(t), lo), hi)} | {
        min(max(math.floor(t) + d, lo), hi) for d in (-1, 1)
    }
    for x in xs:
        if x == missing:
            continue
        want = _f32_le(x, t) if narrow32 else x <= t
        got = {"le": x <= int(thr), "left": True, "right": False}[op]
        assert got == want, (op, thr, x)
    if op == "le":
        assert klo <= int(thr) < khi
        for x in (int(thr), int(thr) + 1):  # the cut itself and the first value past it
            want = _f32_le(x, t) if narrow32 else x <= t
            assert want == (x <= int(thr)), (x, thr)


def test_a_scale_that_overflows_folds() -> None:
    """One rule at every scale: golf's humidity <= 75 at scale 100 is x <= 7500, above
    every int8 value, so the test folds left (it was an error with an explicit scale),
    and the IR says so for the export's note."""
    ir = lower(cm.golf(), ExportOptions(prefix="golf", input_type="int8", scale=Fraction(100)))
    node = next(n for n in ir.nodes if isinstance(n, Compare) and n.source == 1)
    assert node.op == "left"
    assert [(f.source, f.cut, f.side) for f in ir.folds] == [(1, 7500, "left")]
    note = fold_note(ir)
    assert note.startswith("1 threshold outside int8's known values folds to a constant branch")
    assert "model node 1 (humidity <= 75.0, x <= 7500 at scale 100: left)" in note


def test_a_j48_fold_notes_the_cut_its_c_uses() -> None:
    """A j48 test sends v left when v - t < 1e-6 (J48's cut), so 253.9999995 on uint8
    (known values 0..254) sends 254 left too: the C folds the test left, and the note
    names that cut, x <= 254, not the model threshold's 253 (one unit off)."""
    t = 253.9999995
    model = replace(cm.stump(), options=ModelOptions(TrainOptions(flavor="j48")))
    model = replace(model, nodes=(replace(model.nodes[0], threshold=t), *model.nodes[1:]))
    ir = lower(model, ExportOptions(prefix="s", input_type="uint8"))
    assert isinstance(ir.nodes[0], Compare) and ir.nodes[0].op == "left"
    assert [(f.source, f.threshold, f.cut, f.side) for f in ir.folds] == [(0, t, 254, "left")]
    assert f"model node 0 (humidity <= {t!r}, x <= 254 at scale 1: left)" in fold_note(ir)


@pytest.mark.parametrize("itype,t", [("int8", -12.8), ("uint8", 25.45)])
def test_scaled_threshold_next_to_the_default_missing_value(itype: str, t: float) -> None:
    # At scale 10, -12.8 cuts at x <= -128 (only int8's default missing value passes)
    # and 25.45 at x <= 254 (only uint8's, 255, fails): every known value goes one way,
    # so the test folds, with the default missing value as with one the user chose.
    lo, hi = TYPES[itype].range
    missing = lo if lo < 0 else hi
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=0, threshold=t, children=(1, 2))
    enc = Encoding(itype, "float", missing, (Fraction(10),))
    side = "right" if lo < 0 else "left"
    assert lower_continuous(node, 0, enc, False) == (side, 0)
    fold = fold_of(node, 0, enc, False, side)  # type: ignore[arg-type]
    assert fold is not None and fold.cut == (lo if lo < 0 else hi - 1)


@given(f32.filter(math.isfinite))
def test_c_float_literal_round_trips(x: float) -> None:
    text = c_float(x)
    assert text.endswith("f") and ("." in text or "e" in text)
    body = text[:-1]
    assert float(np.float32(float(body))) == x  # via double
    assert np.float32(Fraction(body)) == np.float32(x) or Fraction(body) == Fraction(x)


@given(f64.filter(math.isfinite))
def test_c_double_literal_round_trips(x: float) -> None:
    assert float(c_double(x)) == x


@given(st.text())
def test_c_string_has_no_trigraph_or_raw_controls(s: str) -> None:
    lit = c_string(s)
    assert "??" not in lit and "\n" not in lit and all(32 <= ord(c) < 127 for c in lit)


@given(st.floats(0, 1e6), st.lists(st.floats(0, 1e6), min_size=1, max_size=8))
def test_shares_never_sum_above_one(parent: float, children: list[float]) -> None:
    shares = fixedpoint.branch_shares(parent, children)
    assert sum(shares) <= W_ONE and min(shares) >= 0
    den = max(Fraction(parent), sum((Fraction(c) for c in children), Fraction(0)))
    if den > 0:  # the definition, in exact rational arithmetic
        assert shares == tuple(math.floor(W_ONE * Fraction(c) / den) for c in children)


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=6), st.floats(0, 1e6))
def test_leaf_proba_never_sums_above_one(dist: list[float], items: float) -> None:
    node = Leaf(0, items, 0.0, tuple(dist))
    p = fixedpoint.leaf_proba(node, len(dist))
    assert sum(p) <= ONE and min(p) >= 0
    if items > 0 and sum(dist) <= items:
        # floor(ONE * d / items): within one unit of the exact share
        for d, q in zip(dist, p, strict=False):
            assert q <= ONE * d / items < q + 1 + 1e-9


@given(st.integers(0, W_ONE), st.integers(0, W_ONE))
def test_weights_shrink(w: int, share: int) -> None:
    assert fixedpoint.scaled_weight(w, share) <= w


@pytest.mark.parametrize("mode", CORE)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_ir_evaluator_matches_fixed_point_model(mode: str, seed: int) -> None:
    model = cm.synthetic(seed, 40)
    # No threshold refuses a mode: one outside the type folds, at every --scale.
    ir = lower(model, ExportOptions(prefix="m", **EXPORT_MODES[mode]))  # type: ignore[arg-type]
    X = comparison_inputs(ir, n_random=50, seed=seed)
    c1, p1 = evaluate(ir, X)
    c2, p2 = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(c1, c2) and np.array_equal(p1, p2)


def test_vectorized_fixed_point_matches_row_by_row() -> None:
    model = cm.synthetic(7, 80)
    ir = lower(model, ExportOptions(prefix="m"))
    X = comparison_inputs(ir, n_random=100)
    fp = FixedPointClassifier(model, ir.encoding)
    cls, proba = fp.predict(X)
    for r in range(len(X)):
        c, p = fp.predict_row([float(v) for v in X[r]])
        assert c == cls[r] and p == tuple(proba[r])


@pytest.mark.parametrize("flavor", ["j48", "c45"])
@pytest.mark.parametrize("itype", ["float", "double", "int32"])
def test_fully_known_rows_match_the_float_classifier(flavor: str, itype: str) -> None:
    from treegen.model.classify import predict

    model = cm.synthetic(11, 200)
    if flavor == "c45":
        model = cm.as_c45(model)
    ir = lower(model, ExportOptions(prefix="m", input_type=itype))
    X = comparison_inputs(ir, n_random=300)
    if itype == "int32":  # rows there leave untested features missing: make them 0
        X = np.where(X == ir.encoding.missing, 0, X)
    keep = np.ones(len(X), dtype=bool)
    for j, f in enumerate(ir.features):
        col = X[:, j]
        if f.kind == "nominal":
            keep &= (col >= 0) & (col < len(f.values)) & (col == np.floor(col))
        elif f.kind == "continuous":
            keep &= ~np.isnan(col)
    assert keep.sum() > 50
    cls, _ = FixedPointClassifier(model, ir.encoding).predict(X[keep])
    assert np.array_equal(cls, predict(model, X[keep].astype(np.float64)))
