"""The exported C, compiled through cffi, against the Python models: classes and
fixed-point probabilities must be array_equal on every input verify uses.

Models: golf and a small synthetic tree (hand-built; continuous, nominal, subset and
empty-leaf nodes), trees trained on reference datasets, and a synthetic tree of
6,000+ nodes and depth 235.  Modes: both styles x float, double, int16, uint8,
--float-compare int and fixed point (--scale).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.errors import EncodingError
from treegen.model.core import Model
from treegen.model.fixedpoint import FixedPointClassifier
from treegen.verify.build import Built, build, have_compiler
from treegen.verify.inputs import comparison_inputs, model_values, to_c_domain
from treegen.verify.oracle import evaluate
from treegen.verify.tree import classify_comparable

from support import codegen_models as cm
from support.modes import STYLES, modes

pytestmark = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")

MODES = modes()


def check(
    model: Model,
    opts: ExportOptions,
    workdir: Path,
    data: Dataset | None = None,
    n_random: int = 300,
) -> int:
    ir = lower(model, opts)
    built: Built = build(ir, emit(ir, opts.style or "ifs"), workdir)
    X = comparison_inputs(ir, data, n_random=n_random)
    c_cls, c_proba = built.run(X)
    f_cls, f_proba = FixedPointClassifier(model, ir.encoding).predict(X)
    e_cls, e_proba = evaluate(ir, X)
    assert np.array_equal(c_cls, f_cls) and np.array_equal(c_proba, f_proba)
    assert np.array_equal(c_cls, e_cls) and np.array_equal(c_proba, e_proba)
    assert (c_proba.astype(np.int64).sum(axis=1) <= 32768).all()
    # Rows without missing values: the float classifier's class, given the values the
    # C inputs stand for (a scaled integer x as the double nearest x/K).
    from treegen.model.classify import predict

    sel = classify_comparable(model, ir, X)
    assert sel.any()
    assert np.array_equal(c_cls[sel], predict(model, model_values(ir, X)[sel]))
    return len(X)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("which", ["golf", "synthetic", "tiny", "leaf"])
def test_hand_built_models(which: str, mode: str, style: str, tmp_path: Path) -> None:
    model = {"golf": cm.golf, "tiny": cm.tiny, "leaf": cm.single_leaf}.get(
        which, lambda: cm.synthetic(5, 120)
    )()
    opts = ExportOptions(prefix=which, style=style, **MODES[mode])  # type: ignore[arg-type]
    assert check(model, opts, tmp_path) > 50


REFERENCES = ["crx", "labor-neg", "soybean-r8"]


@pytest.fixture(scope="module")
def trained(reference_dir: Path) -> dict[str, tuple[Model, Dataset]]:
    trainer = pytest.importorskip("treegen.trainer")
    from treegen.data.readers import read_dataset

    out = {}
    for name in REFERENCES:
        ds = read_dataset(str(reference_dir / name / f"{name}.data"))
        out[name] = (trainer.train(ds, trainer.TrainOptions()), ds)
    return out


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("mode", ["float", "keys", "int16"])
@pytest.mark.parametrize("name", REFERENCES)
def test_trained_reference_trees(
    trained: dict[str, tuple[Model, Dataset]], name: str, mode: str, style: str, tmp_path: Path
) -> None:
    model, ds = trained[name]
    kw = dict(MODES[mode])
    if mode == "int16":
        kw["scale"] = Fraction(1)  # crx values reach 100000: an int16 scale would overflow
    opts = ExportOptions(prefix="ref", style=style, **kw)  # type: ignore[arg-type]
    assert check(model, opts, tmp_path, ds) > ds.n_rows


@pytest.mark.parametrize("style,mode", [("ifs", "float"), ("table", "keys"), ("table", "int16")])
@pytest.mark.slow
def test_big_deep_tree(style: str, mode: str, tmp_path: Path) -> None:
    model = cm.synthetic(2, 50, spine=230)
    assert model.size >= 6000 and model.depth() >= 200
    opts = ExportOptions(prefix="big", style=style, **MODES[mode])  # type: ignore[arg-type]
    assert check(model, opts, tmp_path, n_random=500) > 2 * model.size


def test_data_rows_convert_to_the_c_domain() -> None:
    model = cm.golf()
    ir = lower(model, ExportOptions(prefix="g", input_type="int16", scale=Fraction(10)))
    X = np.array([[0.0, 72.25, np.nan, 1.0], [np.nan, -1.04, 1e9, 0.0]])
    got = to_c_domain(ir, X)
    assert got.dtype == np.int16
    assert got.tolist() == [[0, 722, -32768, 1], [-32768, -10, 32767, 0]]


@pytest.mark.parametrize(
    "style,mode",
    [("ifs", "float"), ("table", "float"), ("ifs", "keys"), ("table", "double"), ("ifs", "int16")],
)
def test_nominal_codes_decoded_exactly(style: str, mode: str, tmp_path: Path) -> None:
    """Every way a value can be or fail to be a code 0..k-1: integers around the range,
    +-0, fractions, subnormals, huge values, infinities, NaNs and random bit patterns."""
    model = cm.wide_nominal(200)
    opts = ExportOptions(prefix="w", style=style, **MODES[mode])  # type: ignore[arg-type]
    ir = lower(model, opts)
    built = build(ir, emit(ir, style), tmp_path)
    rng = np.random.default_rng(1)
    special = [
        0.0,
        -0.0,
        0.5,
        1.5,
        199.0,
        199.5,
        200.0,
        255.0,
        256.0,
        1e-45,
        -1e-45,
        1e30,
        np.inf,
        -np.inf,
        np.nan,
        -1.0,
        127.0,
        128.0,
        2.0**-126,
    ]
    bits = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    ints = np.arange(-5, 300, dtype=np.float32)
    ulps = [np.nextafter(ints, np.float32(-np.inf)), np.nextafter(ints, np.float32(np.inf))]
    fixed = np.concatenate(
        [ints.astype(np.float64), *(u.astype(np.float64) for u in ulps), special]
    )
    col: np.ndarray
    if ir.encoding.is_int:
        lo, hi = ir.encoding.int_range
        values = np.concatenate([fixed, float32_bits_as_float64(bits)])
        col = np.unique(
            np.clip(np.nan_to_num(values, nan=lo, posinf=hi, neginf=lo), lo, hi).round()
        )
    elif ir.encoding.input_type == "float":
        # the random bit patterns reach the C unchanged, signalling NaNs included
        col = np.concatenate([fixed.astype(np.float32), bits.view(np.float32)])
    else:
        col = np.concatenate([fixed, float32_bits_as_float64(bits)])
    X = np.stack([col, np.zeros_like(col)], axis=1).astype(ir.encoding.ctype.dtype)
    c_cls, c_proba = built.run(X)
    f_cls, f_proba = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(c_cls, f_cls) and np.array_equal(c_proba, f_proba)
    # and the codes decoded are exactly the integral values in range
    from treegen.model.fixedpoint import leaf_proba

    with np.errstate(invalid="ignore"):  # signalling NaNs become quiet ones here
        v = X[:, 0].astype(np.float64)
        is_code = (v >= 0) & (v < 200) & (v == np.floor(v))
    assert is_code.sum() >= 200
    for r in np.flatnonzero(is_code):
        assert tuple(c_proba[r]) == leaf_proba(model.nodes[int(v[r]) + 1], 3)
    for r in np.flatnonzero(~is_code):  # missing: a mixture over all 200 leaves
        assert tuple(c_proba[r]) not in {leaf_proba(n, 3) for n in model.nodes[1:4]}


def float32_bits_as_float64(bits: np.ndarray) -> np.ndarray:
    """The float32 values with these bit patterns, as float64; a NaN keeps its sign,
    payload and signalling bit (a float cast would quiet it and raise 'invalid')."""
    bits = bits.astype(np.uint64)
    is_nan = (bits & 0x7F800000 == 0x7F800000) & (bits & 0x007FFFFF != 0)
    finite_or_inf = np.where(is_nan, 0, bits).astype(np.uint32).view(np.float32)
    nan = ((bits & 0x80000000) << 32) | (0x7FF << 52) | ((bits & 0x007FFFFF) << 29)
    return np.where(is_nan, nan.view(np.float64), finite_or_inf.astype(np.float64))


@pytest.mark.slow
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**6),
    mode=st.sampled_from(sorted(MODES)),
    style=st.sampled_from(STYLES),
    size=st.integers(1, 150),
)
def test_random_trees_any_mode(
    seed: int, mode: str, style: str, size: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    model = cm.synthetic(seed, size)
    opts = ExportOptions(prefix="r", style=style, **MODES[mode])  # type: ignore[arg-type]
    try:
        lower(model, opts)
    except EncodingError:
        assume(False)  # a --scale that overflows: rejected, as it must be
    check(model, opts, tmp_path_factory.mktemp("r"), n_random=100)


@pytest.mark.parametrize("flavor", ["j48", "c45"])
@pytest.mark.parametrize("itype,digits", [("int16", 1), ("int32", 3), ("uint32", 6)])
def test_scaled_decimals_agree_with_predict(
    flavor: str, itype: str, digits: int, tmp_path: Path
) -> None:
    """A tree trained on decimals with ``digits`` places (its thresholds are training
    values), exported with --scale 10**digits: the C on the integer x = value * K
    predicts what the Python model predicts for the decimal text of the value, read as
    treegen predict reads it (j48 thresholds are doubles, often just below the
    decimal, so a cut of floor(t * K) was one short)."""
    trainer = pytest.importorskip("treegen.trainer")
    from treegen.data.readers import read_dataset
    from treegen.model.classify import predict

    rng = np.random.default_rng(digits)
    k = 10**digits
    top = min(30000, 40 * k)
    ints = rng.integers(0, top, size=(400, 2))  # the values times K
    # Bands along both axes: an unpruned tree with many thresholds.
    label = np.where(ints[:, 1] < top // 2, ints[:, 0] // (top // 12), ints[:, 0] // (top // 7)) % 3
    text = "a,b,class\n" + "".join(
        f"{a // k}.{a % k:0{digits}d},{b // k}.{b % k:0{digits}d},c{c}\n"
        for (a, b), c in zip(ints.tolist(), label.tolist(), strict=True)
    )
    (tmp_path / "d.csv").write_text(text)
    ds = read_dataset(str(tmp_path / "d.csv"))
    model = trainer.train(ds, trainer.TrainOptions(min_cases=1, prune=False, flavor=flavor))
    assert model.size > 25
    ir = lower(model, ExportOptions(prefix="d", input_type=itype, scale=Fraction(k)))
    built = build(ir, emit(ir, "ifs"), tmp_path)
    c_cls, _ = built.run(ints.astype(ir.encoding.ctype.dtype))
    assert np.array_equal(c_cls, predict(model, ds.X))
    check(model, ExportOptions(prefix="d", input_type=itype, scale=Fraction(k)), tmp_path / "t", ds)
