"""A LightGBM text model (``Booster.save_model("m.txt")``) read into an Ensemble.

LightGBM is not imported: the text is read line by line as LightGBM 2.3 to 4 write it
(``version=v3``/``v4``), every field checked, and each error is a
:class:`~treegen.errors.ModelFileError` naming its line.  The arithmetic (docs/gbm.md)
is LightGBM's prediction (``Tree::GetLeaf``, ``GBDT::PredictRaw``): the raw scores
start at 0.0 and each tree's leaf value adds to its class's score in double, tree by
tree (the init score is in the first tree's leaves); ``average_output`` (random forest
mode) divides by the number of rounds.  The row is read as doubles, a value within
``kZeroThreshold`` (:data:`~treegen.ensemble.core.ZERO_BAND`) of 0 as 0.  A numeric
split sends ``x <= threshold`` left; its missing type decides NaN: *None* reads NaN as
0, *NaN* sends it the default way, *Zero* sends NaN and the zero band the default way.
The zero band is folded into the threshold here (a threshold inside the band moves to
its edge), so that the stored test ``x <= t`` reads x itself.  A categorical split
sends ``int(x)`` left when its bit is set in the split's bitset; NaN, a value at or
below -1 and every other code right.

Objectives: ``binary`` (class 1 when ``p > 1 - p`` for ``p`` the double sigmoid of the
raw score, ``LGBMClassifier.predict``'s argmax: the raw score exceeds
:func:`~treegen.ensemble.libm.lightgbm_cut`) and ``multiclass`` (the first largest raw
score); the regression objectives of :data:`REGRESSION`, whose prediction is the
float64 raw score itself (the decision ``value``: ``LGBMRegressor.predict``, bit for
bit); those predicting exp, a sigmoid or a square of it are refused.  A file holds
the rounds ``save_model`` wrote (its best iteration, after early
stopping); ``iterations`` uses fewer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np

from treegen.data.dataset import Attribute, Schema
from treegen.data.frame import default_names
from treegen.ensemble import libm
from treegen.ensemble.core import ZERO_BAND, Decision, Ensemble, Tree
from treegen.ensemble.preorder import Columns, intern, walk
from treegen.errors import ModelFileError, UsageError

OBJECTIVES = ("binary", "multiclass")
"""The objectives whose class treegen computes exactly (docs/gbm.md)."""

REGRESSION = ("regression", "regression_l1", "huber", "fair", "quantile", "mape")
"""The regression objectives whose prediction is the raw score itself (identity link):
treegen computes it exactly, a float64 number (docs/gbm.md)."""

LIGHTGBM_DUMP = (
    "LightGBM's JSON dump (dump_model) is not read: write the model with "
    "Booster.save_model('m.txt') and import that (import-lightgbm, from_lightgbm)"
)
"""The error for LightGBM's JSON dump, given to either importer."""

LOG_LINK = ("poisson", "gamma", "tweedie")
"""Objectives predicting exp of the raw score: refused (no libm in the C)."""

_CATEGORICAL = 1  # decision_type bits (LightGBM's tree.h)
_DEFAULT_LEFT = 2
_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2


class _Text:
    """The model's lines, and errors at a line."""

    def __init__(self, text: str, filename: str) -> None:
        self.lines = text.split("\n")
        self.filename = filename

    def fail(self, line: int, msg: str) -> ModelFileError:
        return ModelFileError(msg, file=self.filename, line=line + 1)

    def block(self, start: int) -> tuple[dict[str, tuple[int, str]], int]:
        """``key=value`` lines from ``start`` to the next blank line: key -> (line, value);
        and the index after the block.  A bare word is a key with value ''."""
        out: dict[str, tuple[int, str]] = {}
        i = start
        while i < len(self.lines) and self.lines[i].strip():
            key, _, value = self.lines[i].strip().partition("=")
            if key in out:
                raise self.fail(i, f"{key} is given twice")
            out[key] = (i, value)
            i += 1
        return out, i

    def field(self, block: dict[str, tuple[int, str]], key: str, at: int) -> tuple[int, str]:
        if key not in block:
            raise self.fail(at, f"{key}= is missing")
        return block[key]

    def number(self, block: dict[str, tuple[int, str]], key: str, at: int, lo: int, hi: int) -> int:
        line, v = self.field(block, key, at)
        try:
            n = int(v)
        except ValueError:
            n = lo - 1
        if not lo <= n <= hi:
            raise self.fail(line, f"{key} must be an integer {lo} .. {hi}, not {v!r}")
        return n

    def ints(self, block: dict[str, tuple[int, str]], key: str, at: int, n: int) -> list[int]:
        line, v = self.field(block, key, at)
        try:
            out = [int(x) for x in v.split()]
        except ValueError:
            raise self.fail(line, f"{key} must be integers") from None
        if len(out) != n:
            raise self.fail(line, f"{key} must have {n} values, not {len(out)}")
        return out

    def floats(
        self, block: dict[str, tuple[int, str]], key: str, at: int, n: int, nan: bool = False
    ) -> list[float]:
        """The ``n`` numbers of field ``key``; NaN among them only where ``nan``."""
        line, v = self.field(block, key, at)
        try:
            out = [float(x) for x in v.split()]
        except ValueError:
            raise self.fail(line, f"{key} must be numbers") from None
        if len(out) != n:
            raise self.fail(line, f"{key} must have {n} numbers, not {len(out)}")
        if not nan and any(math.isnan(x) for x in out):
            raise self.fail(line, f"{key} must have {n} numbers, none NaN")
        return out


def _threshold(t: float) -> float:
    """The threshold on x itself for ``x' <= t``, x' the value read (0 within the zero
    band): a threshold inside the band moves to the band's edge."""
    if -ZERO_BAND <= t < 0:
        return float(np.nextafter(-ZERO_BAND, -np.inf))  # x' <= t: x below the band
    if 0 <= t < ZERO_BAND:
        return ZERO_BAND  # x' <= t: x up to the band's top
    return t


def _leaves(
    text: _Text, b: dict[str, tuple[int, str]], at: int, n: int, tree: int, used: bool
) -> list[float]:
    """The tree's ``n`` leaf values, finite where the tree is ``used``.  LightGBM writes a
    leaf fitted without hessian as -nan or inf and predicts that for the rows reaching
    it: a degenerate fit, refused in words that say so (not as a malformed number)."""
    out = text.floats(b, "leaf_value", at, n, nan=True)
    line = b["leaf_value"][0]
    bad = next((i for i, x in enumerate(out) if not math.isfinite(x)), None)
    if bad is not None and used:
        raise text.fail(
            line,
            f"leaf {bad} of tree {tree} is {out[bad]!r}: LightGBM predicts that for every row "
            "reaching it (a leaf fitted without hessian: min_child_weight=0, or a bag "
            "without rows); treegen exports finite leaves only: use the rounds before it "
            "(--iterations) or refit",
        )
    return out


def _tree(
    text: _Text,
    start: int,
    n_features: int,
    output: int,
    values: dict[int, int],
    rows: list[tuple[float, ...]],
    index: int,
    used: bool,
) -> tuple[Tree, int]:
    b, end = text.block(start)
    at = start
    n_leaves = text.number(b, "num_leaves", at, 1, 1 << 24)
    n_cat = text.number(b, "num_cat", at, 0, 1 << 24)
    if "is_linear" in b and b["is_linear"][1].strip() not in ("0", ""):
        raise text.fail(
            b["is_linear"][0],
            "linear trees (linear_tree=True: a linear model in each leaf) are not read, "
            "only trees whose leaves are constants",
        )
    leaf_value = _leaves(text, b, at, n_leaves, index, used)
    n = n_leaves - 1
    if n == 0:
        feature, thr, dtype, left, right = [], [], [], [], []
    else:
        feature = text.ints(b, "split_feature", at, n)
        thr = text.floats(b, "threshold", at, n)
        dtype = text.ints(b, "decision_type", at, n)
        left = text.ints(b, "left_child", at, n)
        right = text.ints(b, "right_child", at, n)
    bounds: list[int] = []
    words: list[int] = []
    if n_cat:
        bounds = text.ints(b, "cat_boundaries", at, n_cat + 1)
        line, v = text.field(b, "cat_threshold", at)
        try:
            words = [int(x) for x in v.split()]
        except ValueError:
            raise text.fail(line, "cat_threshold must be integers") from None
        if bounds[0] != 0 or bounds != sorted(bounds) or bounds[-1] != len(words):
            raise text.fail(
                b["cat_boundaries"][0], "cat_boundaries must rise to cat_threshold's end"
            )

    # Nodes: internal i >= 0, leaf ~i (negative); pre-order from the root.
    def children(node: int) -> tuple[int, int] | None:
        if node < 0:
            if ~node >= n_leaves:
                raise text.fail(b["left_child"][0], f"leaf {~node} is out of range")
            return None
        if node >= n:
            raise text.fail(b["left_child"][0], f"node {node} is out of range")
        if not 0 <= feature[node] < n_features:
            raise text.fail(b["split_feature"][0], f"feature {feature[node]} of {n_features}")
        return left[node], right[node]

    def twice(node: int) -> ModelFileError:
        what = f"node {node}" if node >= 0 else f"leaf {~node}"
        return text.fail(b["left_child"][0], f"{what} is reached twice")

    order = walk(0 if n else ~0, children, twice)
    cols = Columns(order)
    for node in order:
        if node < 0:
            leaf = leaf_value[~node]
            cols.leaf(intern(values, rows, int(np.float64(leaf).view(np.int64)), leaf))
            continue
        d = dtype[node]
        missing = (d >> 2) & 3
        if d < 0 or d > 15 or missing == 3:
            raise text.fail(b["decision_type"][0], f"decision type {d} is not LightGBM's")
        if d & _CATEGORICAL:
            k = thr[node]
            if not (0 <= k < n_cat and k == int(k)):  # (the range first: int(inf) raises)
                raise text.fail(b["threshold"][0], f"categorical split {node}: no bitset {k}")
            seg = words[bounds[int(k)] : bounds[int(k) + 1]]
            if any(not 0 <= w < 1 << 32 for w in seg):
                raise text.fail(b["cat_threshold"][0], "a bitset word is not 32 bits")
            codes = tuple(c for c in range(32 * len(seg)) if seg[c // 32] >> (c % 32) & 1)
            # NaN goes right.
            cols.split(feature[node], left[node], right[node], False, codes=codes)
            continue
        threshold = thr[node]
        # None: NaN is read as 0.0, which the threshold sends one way.
        nan_left = 0.0 <= threshold if missing == _MISSING_NONE else bool(d & _DEFAULT_LEFT)
        cols.split(feature[node], left[node], right[node], nan_left, _threshold(threshold),
                   zero=missing == _MISSING_ZERO)  # fmt: skip
    return cols.tree(output), end


_CROSS_ENTROPY = {"cross_entropy": "a sigmoid", "cross_entropy_lambda": "log(1 + exp)"}
"""What the cross-entropy objectives predict of the raw score: LGBMClassifier fits them
too, so their refusal names the objective whose class is exported."""


def _objective(text: _Text, line: int, value: str) -> tuple[str, dict[str, str]]:
    name, *params = value.split()
    if name in _CROSS_ENTROPY:
        raise text.fail(
            line,
            f"objective {name!r} predicts {_CROSS_ENTROPY[name]} of the raw score, which C "
            "without libm does not compute bit for bit: for a classifier, fit with "
            "objective='binary', whose class is exported",
        )
    if name in LOG_LINK or (name == "regression" and "sqrt" in params):
        what = "the square" if name == "regression" else "exp"
        raise text.fail(
            line,
            f"objective {value.strip()!r} predicts {what} of the raw score, which C without "
            "libm does not compute bit for bit: only the identity-link regression "
            f"objectives are exported ({', '.join(REGRESSION)})",
        )
    if name not in OBJECTIVES + REGRESSION:
        raise text.fail(
            line,
            f"objective {name!r} is not exported: treegen reads "
            f"{', '.join(OBJECTIVES + REGRESSION)}",
        )
    return name, dict(p.partition(":")[::2] for p in params)


def _nominal(
    text: _Text, header: dict[str, tuple[int, str]], n: int, start: int
) -> list[tuple[str, ...] | None]:
    """Category names of a DataFrame's categorical columns (``pandas_categorical``, a
    line after ``start``), for the features whose ``feature_infos`` list categories,
    when the counts agree."""
    out: list[tuple[str, ...] | None] = [None] * n
    at = next(
        (
            k
            for k in range(start, len(text.lines))
            if text.lines[k].startswith("pandas_categorical:")
        ),
        None,
    )
    if at is None:
        return out
    try:
        cats = json.loads(text.lines[at].partition(":")[2])
    except ValueError:
        # LightGBM's own reader fails on it too; ignored, a file cut in the names would
        # import with codes for names: another model than the file's.
        raise text.fail(at, "truncated file: pandas_categorical is not JSON") from None
    if "feature_infos" not in header or not isinstance(cats, list) or not cats:
        return out
    infos = header["feature_infos"][1].split()
    categorical = [j for j, info in enumerate(infos) if info != "none" and not info.startswith("[")]
    if len(categorical) != len(cats) or not all(isinstance(c, list) for c in cats):
        return out
    for j, names in zip(categorical, cats, strict=True):
        out[j] = tuple(str(c) for c in names)
    return out


def lightgbm_from_text(
    text: str,
    filename: str = "<model>",
    iterations: int | None = None,
    feature_names: Sequence[str] | None = None,
    target: str = "class",
) -> Ensemble:
    """The classifier or regressor in LightGBM model text (module docstring); ``iterations`` rounds
    (default: every round in the file)."""
    doc = _Text(text, filename)
    if not doc.lines or doc.lines[0].strip() != "tree":
        # what the file holds beside what a model's first line is ("its first line is
        # 'tree'" read as a description of the file); the readers imported for the error only
        from treegen.data.readers.table import shorten

        if doc.lines and doc.lines[0].lstrip().startswith("{") and '"tree_info"' in text:
            raise doc.fail(0, LIGHTGBM_DUMP)
        if not text.strip():
            found = "this file is empty"
        else:
            found = f"this file's is {shorten(doc.lines[0].strip())!r}"
        raise doc.fail(0, f"not a LightGBM text model (whose first line is 'tree'; {found})")
    header, i = doc.block(1)
    # The version first: LightGBM 2.0 and 2.1 end their trees without 'end of trees',
    # a whole file of an older format, not a truncated one.
    version = header.get("version")
    if version is not None and version[1] not in ("v3", "v4"):
        raise doc.fail(
            version[0],
            f"model version {version[1]!r} is not read (v3, v4: LightGBM 2.3 and later): "
            "load the model with LightGBM 2.3 or later and save_model again",
        )
    if "end of trees" not in (ln.strip() for ln in doc.lines):
        raise doc.fail(len(doc.lines) - 1, "truncated file: no 'end of trees' line")
    doc.field(header, "version", 1)  # required: a file without it is refused here
    num_class = doc.number(header, "num_class", 1, 1, 1 << 16)
    per_round = doc.number(header, "num_tree_per_iteration", 1, 1, 1 << 16)
    n_features = doc.number(header, "max_feature_idx", 1, 0, 1 << 24) + 1
    if "objective" not in header:
        # LightGBM writes no objective= line for a Python function as the objective: its
        # link is the user's, not in the file.
        raise doc.fail(
            1,
            "no objective= line: a model trained with a custom objective (a Python "
            f"function) is not read; treegen reads {', '.join(OBJECTIVES + REGRESSION)}",
        )
    line, obj = doc.field(header, "objective", 1)
    objective, params = _objective(doc, line, obj)
    k = num_class if objective == "multiclass" else 1
    if per_round != k or (objective == "binary" and num_class != 1):
        raise doc.fail(line, f"{objective} with {num_class} classes, {per_round} trees a round")
    names = doc.field(header, "feature_names", 1)[1].split()
    if len(names) != n_features:
        raise doc.fail(header["feature_names"][0], f"must name {n_features} features")
    if names == [f"Column_{j}" for j in range(n_features)]:
        names = default_names(n_features)  # LightGBM's names for an array's columns
    if feature_names is not None:
        names = [str(x) for x in feature_names]
        if len(names) != n_features:
            raise UsageError(
                f"the model has {n_features} features, not {len(names)}", option="feature_names"
            )
    values: dict[int, int] = {}
    rows: list[tuple[float, ...]] = []
    trees: list[Tree] = []
    while i < len(doc.lines):
        ln = doc.lines[i].strip()
        if ln == "end of trees":
            break
        if not ln:
            i += 1
            continue
        if ln != f"Tree={len(trees)}":
            raise doc.fail(i, f"expected Tree={len(trees)}, found {ln[:40]!r}")
        # A round past ``iterations`` is read for its form alone: its leaves are not the
        # model's (nor need they be finite: predict with fewer rounds never reaches them).
        used = iterations is None or len(trees) < iterations * k
        tree, i = _tree(doc, i + 1, n_features, len(trees) % k, values if used else {},
                        rows if used else [], len(trees), used)  # fmt: skip
        trees.append(tree)
    else:
        raise doc.fail(len(doc.lines) - 1, "truncated file: no 'end of trees'")
    if not trees or len(trees) % k:
        raise doc.fail(i, f"{len(trees)} trees are not whole rounds of {k}")
    rounds = len(trees) // k
    if iterations is not None:
        if not 1 <= iterations <= rounds:
            raise UsageError(f"the model has {rounds} rounds, not {iterations}",
                             option="iterations")  # fmt: skip
        trees = trees[: iterations * k]
        rounds = iterations
    nominal = _nominal(doc, header, n_features, i)
    attrs = tuple(
        Attribute(nm, "nominal", cats) if cats is not None else Attribute(nm, "continuous")
        for nm, cats in zip(names, nominal, strict=True)
    )
    regressor = objective in REGRESSION
    outputs = (target,) if regressor else tuple(str(c) for c in range(max(num_class, 2)))
    schema = Schema(attrs, outputs, target)
    decision: Decision = "value" if regressor else "argmax"
    cut = 0.0
    options: dict[str, object] = {"source": f"LightGBM {objective}"}
    if not regressor:
        options["labels"] = "int"
    if objective == "binary":
        try:
            sigmoid = float(params.get("sigmoid", "1"))
        except ValueError:
            sigmoid = math.nan
        if not (math.isfinite(sigmoid) and sigmoid > 0):
            raise doc.fail(line, f"sigmoid {params.get('sigmoid')!r} is not a positive number")
        decision, cut = "gt", libm.lightgbm_cut(sigmoid)
        if sigmoid != 1.0:
            options["sigmoid"] = sigmoid
    if iterations is not None:
        options["iterations"] = iterations
    average = "average_output" in header
    return Ensemble(
        schema=schema,
        method="lightgbm",
        trees=tuple(trees),
        values=tuple(rows),
        init=(0.0,) * k,
        divisor=float(rounds) if average else None,
        decision=decision,
        compare="float64",
        options=options,
        cut=cut,
        categorical_rule="lightgbm",
    )
