"""The rows ``treegen verify`` (and the parity tests) feed to the C and to Python.

All rows are in the C input domain (numpy ``Encoding.ctype.dtype``, see treegen.codegen.ctype):

* the user's data rows, converted (:func:`to_c_domain`);
* for every test node, a row that follows the path from the root to that node, with
  the tested value set to the threshold and its neighbours (one float32 ulp or one
  integer step either side), then missing; nominal tests get every code, an
  out-of-range code and a non-integer;
* special values: +-inf, -0.0 and NaN of both signs (floats), the type's limits
  (integers);
* random rows mixing threshold neighbours, random values and missing values.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from treegen.codegen.ir import IR, Compare, Leaf, Member, Switch
from treegen.data.dataset import Dataset


def missing_value(ir: IR) -> float:
    m = ir.encoding.missing
    return float("nan") if m is None else float(m)


def to_c_domain(ir: IR, X: npt.NDArray[np.float64]) -> npt.NDArray[np.generic]:
    """Dataset encoding (NaN missing, nominal codes, raw continuous values) -> C rows.
    Integer types: continuous values are multiplied by their scale, rounded to
    nearest and clamped; NaN becomes the missing value."""
    enc = ir.encoding
    dtype = enc.ctype.dtype
    if not enc.is_int:
        with np.errstate(over="ignore"):
            return np.asarray(X, dtype=dtype)
    lo, hi = enc.int_range
    assert enc.missing is not None
    out = np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        col = X[:, j].astype(np.float64)
        # Every K is within a double's range (check_scale), so float(K) cannot
        # overflow; x * K past the doubles is inf, clamped to the type's range below.
        scale = float(enc.scales[j]) if ir.features[j].kind == "continuous" else 1.0
        with np.errstate(invalid="ignore", over="ignore"):
            v = np.clip(np.round(np.nan_to_num(col * scale, nan=0.0)), lo, hi).astype(np.int64)
        out[:, j] = np.where(np.isnan(col), enc.missing, v)
    return out.astype(dtype)


def model_values(ir: IR, X: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
    """C rows -> the values the Python model's classifier takes for them (float64):
    an integer x of a continuous feature with scale K stands for the decimal x/K, so
    it becomes the double nearest x/K, exactly what reading that decimal gives;
    every other value is exact in float64 as it is (missing sentinels stay numbers:
    callers pick the rows without missing values)."""
    values = np.asarray(X).astype(np.float64)
    enc = ir.encoding
    if not enc.is_int:
        return values
    for j, f in enumerate(ir.features):
        k = enc.scales[j]
        if f.kind != "continuous" or k == 1:
            continue
        uniq, inv = np.unique(np.asarray(X)[:, j].astype(np.int64), return_inverse=True)
        values[:, j] = np.asarray(
            [_nearest_double(int(x) * k.denominator, k.numerator) for x in uniq.tolist()],
            dtype=np.float64,
        )[inv]
    return values


def _nearest_double(n: int, d: int) -> float:
    """n / d correctly rounded (Python's int / int is), +-inf past the doubles (``d`` is
    positive: a scale's numerator)."""
    try:
        return n / d
    except OverflowError:
        # The sign of n, not n itself: float(n) overflows as the division did.
        return -math.inf if n < 0 else math.inf


def _neighbours(ir: IR, t: float) -> list[float]:
    enc = ir.encoding
    if enc.is_int:
        lo, hi = enc.int_range
        return [float(v) for v in (t - 1, t, t + 1) if lo <= v <= hi]
    dt = enc.ctype.dtype
    f = dt(t)
    # The neighbours of the largest finite value are +-inf: an intended overflow.
    with np.errstate(over="ignore"):
        down, up = np.nextafter(f, dt(-np.inf)), np.nextafter(f, dt(np.inf))
    return [float(down), float(f), float(up)]


def key_to_float(key: int) -> float:
    """The float32 whose order key is ``key`` (treegen.codegen.lower.float_key's inverse)."""
    bits = (key & 0x7FFFFFFF) if key & 0x80000000 else (~key) & 0xFFFFFFFF
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


def random_rows(
    rng: np.random.Generator, choices: list[list[float]], miss: float, n: int
) -> list[list[float]]:
    """``n`` random rows: per feature missing with probability 0.15, else one of its
    ``choices`` (a random integer in -3..299 where it has none)."""
    rows = []
    for _ in range(n):
        r = []
        for f in range(len(choices)):
            u = rng.random()
            if u < 0.15 or not choices[f]:
                r.append(miss if u < 0.15 else float(rng.integers(-3, 300)))
            else:
                r.append(choices[f][int(rng.integers(len(choices[f])))])
        rows.append(r)
    return rows


def c_values(ir: IR, values: object) -> npt.NDArray[np.generic]:
    """Numbers (floats, or lists of them for rows) as values of the C input type,
    integers clamped to its range."""
    enc = ir.encoding
    out = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if enc.is_int:
            return np.clip(out, *enc.int_range).astype(enc.ctype.dtype)
        return out.astype(enc.ctype.dtype)


def node_values(ir: IR, i: int) -> tuple[list[float], list[list[float]]]:
    """(values to try at node i's feature, value sending a row down each branch)."""
    node = ir.nodes[i]
    enc = ir.encoding
    if isinstance(node, Compare):
        if node.op in ("left", "right"):
            lo, hi = enc.int_range if enc.is_int else (-1.0, 1.0)
            vals = [float(lo), float(hi), 0.0]
            return vals, [vals, vals]
        t: int | float = node.threshold
        if enc.uses_keys:
            t = key_to_float(int(t))
        near = _neighbours(ir, t)
        if enc.input_type == "double" and math.isfinite(node.cut):
            # The model's threshold and its float32 neighbours too: a c45 model's
            # C threshold (its rounding boundary) lies half a float32 step above it.
            # A double cut beyond FLT_MAX rounds to inf: an intended overflow too.
            with np.errstate(over="ignore"):
                f32 = np.float32(node.cut)
                near += [float(np.nextafter(f32, np.float32(s * np.inf))) for s in (-1, 1)]
            near += [float(f32), node.cut]
        left = [v for v in near if v <= t] if node.op == "le" else [v for v in near if v < t]
        right = [v for v in near if v not in left]
        return near, [left or [float(t)], right or [float(t)]]
    if isinstance(node, Member):  # a lean IR's member test: its codes, then the others
        vals = [float(c) for c in range(node.n_codes)] + [float(node.n_codes), -1.0]
        if not enc.is_int:
            vals.append(0.5)
        else:
            vals = [v for v in vals if enc.int_range[0] <= v <= enc.int_range[1]]
        rest = [float(c) for c in range(node.n_codes) if c not in node.codes]
        return vals, [[float(c) for c in node.codes], rest]
    assert isinstance(node, Switch)
    k = len(node.branch_of)
    vals = [float(c) for c in range(k)] + [float(k), -1.0]
    if not enc.is_int:
        vals.append(0.5)
    if enc.is_int:
        lo, hi = enc.int_range
        vals = [v for v in vals if lo <= v <= hi] + [float(hi)]
    per_branch = [
        [float(c) for c, b in enumerate(node.branch_of) if b == br]
        for br in range(len(node.children))
    ]
    return vals, per_branch


def comparison_inputs(
    ir: IR, data: Dataset | None = None, n_random: int = 200, seed: int = 0
) -> npt.NDArray[np.generic]:
    """Every row verify compares, in the C input domain."""
    enc = ir.encoding
    m = ir.n_features
    miss = missing_value(ir)
    rng = np.random.default_rng(seed)
    rows: list[list[float]] = []
    base = [miss] * m
    # Row that reaches each node: walk down, setting each ancestor's feature.
    path_row: dict[int, list[float]] = {0: [0.0 if not enc.is_int else miss] * m}
    choices: list[list[float]] = [[] for _ in range(m)]
    for i, node in enumerate(ir.nodes):
        row = path_row.pop(i)
        if isinstance(node, Leaf):
            continue
        vals, per_branch = node_values(ir, i)
        choices[node.feature].extend(vals)
        f = node.feature
        for v in vals + [miss]:
            r = list(row)
            r[f] = v
            rows.append(r)
        for b, child in enumerate(node.children):
            r = list(row)
            r[f] = per_branch[b][0] if per_branch[b] else miss
            path_row[child] = r
    rows.append(base)
    if not enc.is_int:
        for f in range(m):
            # -NaN: a NaN with the sign bit set, which a compare on the float's bits
            # (--float-compare int) must treat as NaN too.
            for v in (math.inf, -math.inf, -0.0, -math.nan):
                r = [0.0] * m
                r[f] = v
                rows.append(r)
    else:
        lo, hi = enc.int_range
        rows += [[float(lo)] * m, [float(hi)] * m, [0.0] * m]
    rows += random_rows(rng, choices, miss, n_random)
    c_rows = c_values(ir, rows)
    if data is not None and data.n_rows:
        c_rows = np.concatenate([to_c_domain(ir, data.X), c_rows])
    return c_rows
