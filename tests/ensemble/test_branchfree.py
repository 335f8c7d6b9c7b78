"""The ifs style's select expressions (treegen.ensemble.branchfree): which subtrees become
one, how they read, and that both forms of PREFIX_SEL (the masks of a host, the ``?:`` of
a microcontroller) return what the nested ifs would, bit for bit, on one host."""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.keys import float_key, float_keys
from treegen.codegen.options import ExportOptions
from treegen.ensemble import branchfree, classify
from treegen.ensemble.ir import LeafRow, Split
from treegen.ensemble.regress import from_estimator
from treegen.ensemble.view_ifs import float_test
from treegen.kinds.export import render
from treegen.verify.build import STRICT_FLAGS, build

from support.floatbits import bits, same_bits
from support.sklearn_models import fit_setup, sklearn_thresholds, threshold_rows
from support.sklearn_regressors import fit_regressor, regression_data

pytest.importorskip("sklearn")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _split(f: int, right: int) -> Split:
    return Split(f, "le", 100 + f, False, right, float(f))


def _lines(nodes: list[Any]) -> list[str]:
    return branchfree.select_lines(
        nodes,
        0,
        "return ",
        "SEL",
        lambda n: f"k[{n.feature}] <= {n.threshold}u",
        lambda n: f"x{n.feature}",
        lambda leaf: leaf.row + 10,
    )


def test_heights_count_levels_of_tests_and_refuse_other_tests() -> None:
    full = [_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), _split(2, 6), LeafRow(2),
            LeafRow(3)]  # fmt: skip
    assert branchfree.heights(full) == [2, 1, 0, 0, 1, 0, 0]
    assert branchfree.heights(full, key_walk=False)[0] > branchfree.HEIGHT
    missing_only = [Split(0, "left", 0, True, 2, 0.0), LeafRow(0), LeafRow(1)]
    assert branchfree.heights(missing_only)[0] > branchfree.HEIGHT
    # On integer inputs a missing-only test is one compare with the sentinel: a level.
    assert branchfree.heights(missing_only, missing=True) == [1, 0, 0]
    zero = [Split(0, "le", 5, False, 2, 0.0, zero=True), LeafRow(0), LeafRow(1)]
    assert branchfree.heights(zero)[0] > branchfree.HEIGHT


def test_select_lines_read_as_the_subtree() -> None:
    full = [_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), _split(2, 6), LeafRow(2),
            LeafRow(3)]  # fmt: skip
    assert _lines(full) == [
        "return SEL(k[0] <= 100u, /* x0 */",
        "    SEL(k[1] <= 101u, 10u, 11u), /* x1 */",
        "    SEL(k[2] <= 102u, 12u, 13u)); /* x2 */",
    ]
    assert _lines([_split(0, 4), _split(1, 3), LeafRow(0), LeafRow(1), LeafRow(2)]) == [
        "return SEL(k[0] <= 100u, /* x0 */",
        "    SEL(k[1] <= 101u, 10u, 11u), /* x1 */",
        "    12u);",
    ]
    assert _lines([_split(0, 2), LeafRow(0), _split(1, 4), LeafRow(1), LeafRow(2)]) == [
        "return SEL(k[0] <= 100u, 10u, /* x0 */",
        "    SEL(k[1] <= 101u, 11u, 12u)); /* x1 */",
    ]
    assert _lines([_split(0, 2), LeafRow(0), LeafRow(1)]) == [
        "return SEL(k[0] <= 100u, 10u, 11u); /* x0 */"
    ]


def _selects(text: str, prefix: str) -> int:
    """The PREFIX_SEL calls (tests in selects; each reads a key)."""
    return len(re.findall(rf"\b{prefix}_SEL\(k\[", text))


def test_only_the_last_two_levels_of_a_key_walk_are_selects() -> None:
    """Every test of the ifs is in a select or an if; no select holds more than
    HEIGHT levels; a walk without keys (double input) has none."""
    est = fit_regressor("forest")
    ens = from_estimator(est)
    text = render(ens, ExportOptions(prefix="r", name="predict", style="ifs")).files["predict.c"]
    ifs = len(re.findall(r"^\s*if \(k\[", text, flags=re.M))
    sels = _selects(text, "R")
    n_splits = sum(1 for t in est.estimators_ for f in t.tree_.feature if f >= 0)
    assert sels > 0 and ifs > 0 and ifs + sels == n_splits
    stmts = re.findall(r"^( *)return \(uint\d+_t\)R_SEL(.*?;)", text, flags=re.S | re.M)
    assert len(stmts) > 10
    for pad, stmt in stmts:
        # Each nested select's line is 4 spaces further in than its parent's.
        levels = [(len(m) - len(pad)) // 4 for m in re.findall(r"\n( *)R_SEL", stmt)]
        assert max(levels, default=0) + 1 <= branchfree.HEIGHT
    double = ExportOptions(prefix="r", name="predict", style="ifs", input_type="double")
    assert _selects(render(ens, double).files["predict.c"], "R") == 0


@needs_gcc
@pytest.mark.parametrize("branchfree_on", ["0", "1"])
@pytest.mark.parametrize("name", ["extra", "forest", "boosting", "hist"])
def test_both_select_forms_give_predict_bits(name: str, branchfree_on: str, tmp_path: Any) -> None:
    """Forced either way on the host, the ifs returns classify's float64 bits (which
    equal estimator.predict's: tests/ensemble/test_regress.py)."""
    est = fit_regressor(name)
    ens = from_estimator(est)
    r = render(ens, ExportOptions(prefix="r", name="predict", style="ifs"))
    assert _selects(r.files["predict.c"], "R") > 1
    X, _ = regression_data(name)
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    X = np.vstack([X, threshold_rows(np.nan_to_num(X), finite)])
    X32 = X.astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DR_BRANCHFREE={branchfree_on}")
    _, words = built.run(X32)
    got = (words[:, 0::2].astype(np.uint64) << np.uint64(32)) | words[:, 1::2]
    assert np.array_equal(got, bits(classify.values(ens, X32.astype(np.float64))))


@needs_gcc
@pytest.mark.parametrize("branchfree_on", ["0", "1"])
@pytest.mark.parametrize("name", ["extra", "forest"])
def test_both_select_forms_give_the_class(name: str, branchfree_on: str, tmp_path: Any) -> None:
    ens = fit_setup(name)
    r = render(ens, ExportOptions(prefix="c", name="predict", style="ifs", proba=True))
    assert _selects(r.files["predict.c"], "C") > 1
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 6, 3000), rng.uniform(-5, 5, 3000)])
    X[rng.random(X.shape) < 0.1] = np.nan
    X32 = X.astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DC_BRANCHFREE={branchfree_on}")
    cls, proba = built.run(X32)
    X64 = X32.astype(np.float64)
    assert np.array_equal(cls, classify.predict(ens, X64))
    assert same_bits(proba, classify.predict_proba(ens, X64))


@needs_gcc
@pytest.mark.parametrize("floats", ["0", "1"])
@pytest.mark.parametrize("name", ["tree", "multi_tree"])
def test_one_tree_floats_or_keys_give_predict_bits(name: str, floats: str, tmp_path: Any) -> None:
    """One tree's ifs may compare the float inputs (PREFIX_FLOATCMP 1, x86 and AArch64)
    or key every input first (0): the same bits either way, NaN included; a forest keys
    first always."""
    est = fit_regressor(name)
    ens = from_estimator(est)
    r = render(ens, ExportOptions(prefix="r", name="predict", style="ifs"))
    text = r.files["predict.c"]
    assert "R_FLOATCMP" in text and re.search(r"\bR_LE\(\d+, 0x[0-9A-F]+u, !?\(?x\[\d+\] ", text)
    X, _ = regression_data(name)
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    nan = np.repeat(X[:8], X.shape[1], axis=0)
    nan[np.arange(len(nan)), np.arange(len(nan)) % X.shape[1]] = np.nan
    X32 = np.vstack([X, threshold_rows(np.nan_to_num(X), finite), nan]).astype(np.float32)
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DR_FLOATCMP={floats}")
    _, words = built.run(X32)
    got = (words[:, 0::2].astype(np.uint64) << np.uint64(32)) | words[:, 1::2]
    assert np.array_equal(got, bits(classify.values(ens, X32.astype(np.float64))))
    forest = render(from_estimator(fit_regressor("forest")), ExportOptions(prefix="r", style="ifs"))
    assert "FLOATCMP" not in forest.files["r_predict.c"]


def _edge_floats() -> npt.NDArray[np.float32]:
    """Zeros, subnormals, the float32 extremes, infinities, NaNs and random values."""
    f32 = np.finfo(np.float32)
    tiny = np.float32(f32.smallest_subnormal)
    edge = [0.0, -0.0, tiny, -tiny, f32.tiny, -f32.tiny, f32.max, -f32.max, np.inf, -np.inf]
    rand = np.random.default_rng(7).standard_normal(40).astype(np.float32)
    vals = np.array(edge + list(rand), dtype=np.float32)
    with np.errstate(over="ignore"):  # FLT_MAX's neighbour above is inf: intended
        up, down = np.nextafter(vals, np.float32(np.inf)), np.nextafter(vals, np.float32(-np.inf))
    near = np.concatenate([up, down])
    nan = np.array([np.nan, -np.nan], dtype=np.float32)
    return np.concatenate([np.unique(np.concatenate([vals, near])), nan]).astype(np.float32)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_float_test_is_the_key_test(cc: str, tmp_path: Any) -> None:
    """view_ifs.float_test on the float equals the key compare it stands for, NaN both
    ways, at every edge threshold key (zero, subnormals, the extremes, the infinities),
    compiled with the strict flags."""
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    vals = _edge_floats()
    thresholds = [float(v) for v in vals if not np.isnan(v) and not (v == 0 and np.signbit(v))]
    cases = [(float_key(t), left) for t in thresholds for left in (False, True)]
    body = "".join(
        f"    out[{j}] = ({float_test('x[0]', key, left)}) ? 1 : 0;\n"
        for j, (key, left) in enumerate(cases)
    )
    src = tmp_path / "t.c"
    src.write_text(
        "#include <stdio.h>\n"
        f"static void tests(const float *x, int *out)\n{{\n{body}}}\n"
        "int main(void)\n{\n    float x[1];\n"
        f"    int out[{len(cases)}];\n    unsigned j;\n"
        "    while (fread(x, sizeof x, 1u, stdin) == 1u) {\n        tests(x, out);\n"
        f"        for (j = 0u; j < {len(cases)}u; j++) {{\n"
        "            putchar(out[j] ? '1' : '0');\n        }\n        putchar('\\n');\n"
        "    }\n    return 0;\n}\n"
    )
    exe = tmp_path / "t"
    subprocess.run([cc, *STRICT_FLAGS, "-O1", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], input=vals.tobytes(), capture_output=True, check=True)
    got = np.array([[c == "1" for c in line] for line in out.stdout.decode().split()])
    keys = float_keys(vals)  # NaN keys to 0 here; the C walk keys it above every threshold
    k = np.where(np.isnan(vals), 0xFFFFFFFF, keys).astype(np.uint64)
    want = np.array(
        [[(kv + left) % 2**32 <= key + left for key, left in cases] for kv in k.tolist()]
    )
    assert got.shape == want.shape and np.array_equal(got, want)


@needs_gcc
@pytest.mark.parametrize("branchfree_on", ["0", "1"])
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_integer_inputs_selects_give_the_class(
    missing: str, branchfree_on: str, tmp_path: Any
) -> None:
    """Integer inputs (``--input-type int16``) compare the values themselves: the last
    two levels are selects of those tests (with the missing value's check unless
    ``--missing none``), and either form returns the classes and probabilities of the
    values as floats, the missing value (-32768) as NaN under c45."""
    ens = fit_setup("forest")
    opts = ExportOptions(
        prefix="c", name="predict", style="ifs", input_type="int16", missing=missing, proba=True
    )
    r = render(ens, opts)
    text = r.files["predict.c"]
    sels = len(re.findall(r"\bC_SEL\(\(?x\[\d+\]", text))
    ifs = len(re.findall(r"^\s*if \(x\[", text, flags=re.M))
    assert sels > 1 and ifs > 0
    assert ("C_MISSING" in text) == (missing == "c45")
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(-3, 4, 3000), rng.integers(-1, 7, 3000),
                         rng.integers(-6, 7, 3000)])  # fmt: skip
    if missing == "c45":
        X[rng.random(X.shape) < 0.1] = -32768
    built = build(r.lowered, r.files, tmp_path, cc=f"gcc -DC_BRANCHFREE={branchfree_on}")
    cls, proba = built.run(X.astype(np.int16))
    X64 = np.where(X == -32768, np.nan, X).astype(np.float64)
    assert np.array_equal(cls, classify.predict(ens, X64))
    assert same_bits(proba, classify.predict_proba(ens, X64))


@needs_gcc
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="an x86/AArch64 host")
@pytest.mark.parametrize(("flag", "masks"), [("-O2", "1"), ("-Os", "0")])
def test_selects_mask_on_a_host_unless_optimising_for_size(
    flag: str, masks: str, tmp_path: Any
) -> None:
    """On an x86 or AArch64 host the selects are masks (every test computed, none a
    branch), except where the compiler optimises for size (-Os): there ?: (the nested
    ifs' branches), whose code is smaller."""
    ens = fit_setup("forest")
    opts = ExportOptions(prefix="c", name="predict", style="ifs", input_type="int16")
    files = render(ens, opts).files
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    p = subprocess.run(
        ["gcc", flag, "-dM", "-E", "predict.c"], cwd=tmp_path, capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    assert f"#define C_BRANCHFREE {masks}" in p.stdout.splitlines()


def test_integer_inputs_selects_hold_int_height_levels() -> None:
    """On integer inputs every test is in a select or an if, and a select holds up to
    INT_HEIGHT levels (one): some hold that many, none more, and the comment says so."""
    est = fit_regressor("forest")
    ens = from_estimator(est)
    opts = ExportOptions(prefix="r", name="predict", style="ifs", input_type="int16", scale=100)
    text = render(ens, opts).files["predict.c"]
    ifs = len(re.findall(r"^\s*if \(x\[", text, flags=re.M))
    sels = len(re.findall(r"\bR_SEL\(\(?x\[", text))
    n_splits = sum(1 for t in est.estimators_ for f in t.tree_.feature if f >= 0)
    assert sels > 0 and ifs > 0 and ifs + sels == n_splits
    stmts = re.findall(r"^( *)return \(uint\d+_t\)R_SEL(.*?;)", text, flags=re.S | re.M)
    deepest = [
        max(((len(m) - len(pad)) // 4 for m in re.findall(r"\n( *)R_SEL", stmt)), default=0) + 1
        for pad, stmt in stmts
    ]
    assert max(deepest) == branchfree.INT_HEIGHT == 1
    assert "The last level of tests above the leaves is one expression" in text


def test_a_tree_root_is_a_test_on_integer_inputs() -> None:
    """A depth-3 tree on integer inputs is a root test with selects below it of at most
    INT_HEIGHT levels, never one select of three (which computes every test: measured
    slower), and its function says nothing of a leaf; the comment names the levels the
    selects hold."""
    ens = fit_setup("binary_boosting")
    opts = ExportOptions(prefix="c", name="predict", style="ifs", input_type="int16", scale=10)
    text = render(ens, opts).files["predict.c"]
    stmts = re.findall(r"^( *)return \(uint\d+_t\)C_SEL(.*?;)", text, flags=re.S | re.M)
    assert stmts
    for pad, stmt in stmts:
        assert len(pad) > 4  # under the root's if
        levels = [(len(m) - len(pad)) // 4 for m in re.findall(r"\n( *)C_SEL", stmt)]
        assert max(levels, default=0) + 1 <= min(branchfree.INT_HEIGHT, branchfree.HEIGHT)
    assert "the tree is one leaf" not in text
    assert "The last level of tests above the leaves is one expression" in text
