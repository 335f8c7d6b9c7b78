"""An XGBoost model file (JSON or UBJSON, ``Booster.save_model``) read into an Ensemble.

XGBoost is not imported: the file is read as XGBoost 1.3 to 3.x write it (its JSON
schema; what older versions write differently, or refused: :mod:`.xgboost_old`), every
field checked, and each error is a
:class:`~treegen.errors.ModelFileError` naming the field by its path in the document
(``learner.gradient_booster.model.trees[3].left_children``).  The arithmetic
(docs/gbm.md) is XGBoost's CPU prediction: ``XGBClassifier.predict`` reads X as
float32; a split sends a value left when ``x < split_condition`` (float32), NaN to its
default child; the trees' leaf values add to the base margin in float32, one rounding
per tree in file order, each to its output group (``tree_info``).  ``x < c`` is stored
as ``x <= c'`` for ``c'`` the float32 below ``c`` (the same for every float32 x).  A
categorical split (``split_type`` 1) sends its listed categories right and every other
value but NaN left: here its children are swapped so that the listed codes go "left",
as the ensemble's categorical tests have them.

Objectives: ``binary:logistic`` (class 1 when the float32 sigmoid of the margin exceeds
0.5: the margin exceeds :func:`~treegen.ensemble.libm.xgboost_cut`), ``binary:logitraw``
(margin > 0.5, as ``XGBClassifier.predict`` compares it), ``binary:hinge`` (margin > 0),
``multi:softmax`` and ``multi:softprob`` (the first largest margin); the regression
objectives of :data:`REGRESSION`, whose prediction is the float32 margin itself (the
decision ``value``: ``XGBRegressor.predict``, bit for bit); those predicting exp or
the sigmoid of the margin are refused.  ``best_iteration``
(early stopping) limits the trees as ``XGBClassifier.predict`` does, unless
``iterations`` says how many to use.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from treegen.data.dataset import Attribute, Schema
from treegen.data.frame import default_names
from treegen.ensemble import libm
from treegen.ensemble.core import Decision, Ensemble, Tree
from treegen.ensemble.lightgbm import LIGHTGBM_DUMP
from treegen.ensemble.preorder import Columns, intern, walk
from treegen.ensemble.xgboost_doc import DecimalText, Doc, decode, float32_of
from treegen.ensemble.xgboost_old import check_categorical, check_version, parallel_trees
from treegen.errors import UsageError

OBJECTIVES = (
    "binary:logistic",
    "binary:logitraw",
    "binary:hinge",
    "multi:softmax",
    "multi:softprob",
)
"""The objectives whose class treegen computes exactly (docs/gbm.md)."""

REGRESSION = (
    "reg:squarederror",
    "reg:absoluteerror",
    "reg:pseudohubererror",
    "reg:quantileerror",
    "reg:squaredlogerror",
)
"""The regression objectives whose prediction is the margin itself (the identity link):
treegen computes it exactly, a float32 number (docs/gbm.md)."""

LOG_LINK = ("count:poisson", "reg:gamma", "reg:tweedie", "survival:cox", "survival:aft")
"""Regression objectives predicting exp of the margin: refused (no libm in the C)."""


_WHY_NOT = {
    "dart": (
        " (XGBoost's own predictions of a DART model differ by path: Booster.predict on a "
        "DMatrix adds leaf * weight, inplace_predict and XGBClassifier.predict "
        "(base + leaf - base) * weight, in float32)"
    ),
    "gblinear": " (a linear model, without trees)",
}
"""Why a booster other than gbtree is refused, where there is more to say."""


def _base_score(doc: Doc, lmp: dict[str, Any], path: str, k: int) -> list[np.float32]:
    raw = doc.get(lmp, "base_score", path)
    values: list[Any]
    if isinstance(raw, str) and raw.startswith("["):
        try:
            values = json.loads(raw, parse_float=DecimalText)
        except ValueError:
            raise doc.fail(f"{path}.base_score", f"{raw!r} is not a list of numbers") from None
    else:
        values = [DecimalText(raw) if isinstance(raw, str) else raw]
    try:
        out = [float32_of(v) for v in values]
    except (ArithmeticError, ValueError, TypeError):
        raise doc.fail(f"{path}.base_score", f"{raw!r} is not a number") from None
    if len(out) == 1 and k > 1:
        out *= k  # an older file's one base score for every class
    if len(out) != k or not all(np.isfinite(out)):
        raise doc.fail(f"{path}.base_score", f"must be {k} finite numbers")
    return out


def _names(
    doc: Doc, learner: dict[str, Any], n: int, feature_names: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    names = learner.get("feature_names") or default_names(n)
    types = learner.get("feature_types") or ["float"] * n
    if not isinstance(names, list) or len(names) != n or not all(isinstance(x, str) for x in names):
        raise doc.fail("learner.feature_names", f"must be {n} names")
    if not isinstance(types, list) or len(types) != n or not all(isinstance(x, str) for x in types):
        raise doc.fail("learner.feature_types", f"must be {n} types")
    if feature_names is not None:
        names = [str(x) for x in feature_names]
        if len(names) != n:
            raise UsageError(
                f"the model has {n} features, not {len(names)}", option="feature_names"
            )
    return names, types


def _int_list(doc: Doc, e: dict[str, Any], key: str, path: str) -> list[int]:
    """``e[key]``: a list of integers (a UBJSON typed array's too); [] when absent."""
    v = e.get(key)
    v = v.tolist() if isinstance(v, np.ndarray) else (v if v is not None else [])
    if not isinstance(v, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in v
    ):
        raise doc.fail(f"{path}.{key}", "must be a list of integers")
    return v


def _number_names(doc: Doc, path: str, values: list[int]) -> tuple[str, ...]:
    """The names of categories that are integers (a DataFrame column of integer
    categories; XGBoost refuses float ones): their digits, distinct as pandas has them."""
    names = tuple(str(v) for v in values)
    if len(set(names)) != len(names):
        raise doc.fail(f"{path}.values", "categories must be distinct")
    return names


def _categories(doc: Doc, model: dict[str, Any], n: int) -> list[tuple[str, ...] | None]:
    """The category names XGBoost 3.1+ keeps for a DataFrame's categorical columns (the
    input is then the code: the name's index), per feature; None: no names."""
    cats = model.get("cats")
    out: list[tuple[str, ...] | None] = [None] * n
    if not cats:
        return out
    enc = doc.obj(cats, "learner.gradient_booster.model.cats").get("enc") or []
    if not isinstance(enc, list) or (enc and len(enc) != n):
        raise doc.fail("learner.gradient_booster.model.cats.enc", f"must have {n} entries")
    for j, e in enumerate(enc):
        path = f"learner.gradient_booster.model.cats.enc[{j}]"
        e = doc.obj(e, path)
        offsets, values = _int_list(doc, e, "offsets", path), _int_list(doc, e, "values", path)
        if not offsets and not values:
            continue
        if not offsets:
            # Integer categories: predict reads a value's index among them, as for
            # text; the integers name the codes.
            out[j] = _number_names(doc, path, values)
            continue
        if offsets[0] != 0 or offsets != sorted(offsets) or offsets[-1] != len(values):
            raise doc.fail(f"{path}.offsets", f"must rise from 0 to {len(values)}")
        if not all(-128 <= x <= 255 for x in values):
            raise doc.fail(f"{path}.values", "the names' bytes must be 8-bit numbers")
        raw = bytes(x & 0xFF for x in values)  # UBJSON may hold them as int8
        if not raw.isascii():
            # XGBoost (3.2 at least) writes a name's UTF-8 bytes with offsets that count
            # its characters: a non-ASCII name comes out cut short or run into the next
            # ('éé' reads 'é'), and no rule tells a correct file from such a one.
            raise doc.fail(
                path,
                "category names that are not ASCII, which XGBoost writes cut short (its "
                "offsets count characters, its bytes are UTF-8): fit on ASCII category "
                "names, or on the codes (a numeric column of feature type 'c')",
            )
        out[j] = tuple(raw[i:k].decode("ascii") for i, k in pairwise(offsets))
    return out


def _tree(
    doc: Doc,
    t: dict[str, Any],
    path: str,
    n_features: int,
    categorical: list[bool],
    group: int,
    values: dict[int, int],
    rows: list[tuple[float, ...]],
    version: tuple[int, ...] | None,
) -> Tree:
    param = doc.obj(doc.get(t, "tree_param", path), f"{path}.tree_param")
    n = doc.int_text(param, "num_nodes", f"{path}.tree_param", 1, 1 << 31)
    leaf_vec = doc.int_text(param, "size_leaf_vector", f"{path}.tree_param", 0, 1 << 31)
    if leaf_vec > 1:
        raise doc.fail(f"{path}.tree_param.size_leaf_vector", "multi-target trees are not read")
    left = doc.ints(t, "left_children", path, n, -1, n - 1)
    right = doc.ints(t, "right_children", path, n, -1, n - 1)
    feature = doc.ints(t, "split_indices", path, n, 0, 1 << 31)
    default_left = doc.flags(t, "default_left", path, n)
    cond = doc.floats(t, "split_conditions", path, n)
    split_type = doc.ints(t, "split_type", path, n, 0, 1) if "split_type" in t else [0] * n
    cat_sets: dict[int, tuple[int, ...]] = {}
    if any(split_type):
        check_categorical(doc, version, f"{path}.split_type[{split_type.index(1)}]")
        nodes = doc.ints(t, "categories_nodes", path, None, 0, n - 1)
        seg = doc.ints(t, "categories_segments", path, len(nodes), 0, 1 << 40)
        size = doc.ints(t, "categories_sizes", path, len(nodes), 0, 1 << 24)
        cats = doc.ints(t, "categories", path, None, 0, (1 << 24) - 1)
        for node, s, z in zip(nodes, seg, size, strict=True):
            if s + z > len(cats):
                raise doc.fail(f"{path}.categories_segments", "past the end of categories")
            cat_sets[node] = tuple(sorted(set(cats[s : s + z])))

    # Pre-order; a categorical split's right child (its listed codes) first, as "left".
    def children(i: int) -> tuple[int, int] | None:
        if left[i] == -1:
            if right[i] != -1:
                raise doc.fail(f"{path}.right_children[{i}]", "a leaf with a right child")
            return None
        if right[i] == -1:
            raise doc.fail(f"{path}.right_children[{i}]", "a split without a right child")
        if feature[i] >= n_features:
            raise doc.fail(f"{path}.split_indices[{i}]", f"feature {feature[i]} of {n_features}")
        return (right[i], left[i]) if split_type[i] else (left[i], right[i])

    order = walk(
        0, children, lambda i: doc.fail(f"{path}.left_children", f"node {i} is reached twice")
    )
    cols = Columns(order)
    for i in order:
        c = cond[i]
        # A numeric split of x < inf: XGBoost's exact method writes it where two values
        # near FLT_MAX are split (their midpoint overflows); every finite x goes left.
        # A categorical split's condition is not read (XGBoost 1.x writes NaN there).
        numeric = left[i] != -1 and not split_type[i]
        if not (np.isfinite(c) or (c == np.inf and numeric) or (left[i] != -1 and split_type[i])):
            raise doc.fail(f"{path}.split_conditions[{i}]", "is not a finite number")
        if left[i] == -1:
            cols.leaf(intern(values, rows, int(np.float32(c).view(np.int32)), float(c)))
        elif split_type[i]:
            if i not in cat_sets:
                raise doc.fail(f"{path}.categories_nodes", f"has no categories for node {i}")
            if not categorical[feature[i]]:
                raise doc.fail(
                    f"{path}.split_type[{i}]", "a categorical split of a numeric feature"
                )
            # The listed codes go to the right child, now "left"; so does the default
            # child move to the other side.
            cols.split(feature[i], right[i], left[i], not default_left[i], codes=cat_sets[i])
        else:
            # x < c for float32 x is x <= the float32 below c.
            below = float(np.nextafter(c, np.float32(-np.inf)))
            cols.split(feature[i], left[i], right[i], bool(default_left[i]), below)
    return cols.tree(group)


def xgboost_from_bytes(
    data: bytes,
    filename: str = "<model>",
    iterations: int | None = None,
    feature_names: Sequence[str] | None = None,
    target: str = "class",
) -> Ensemble:
    """The classifier or regressor in XGBoost model file ``data`` (module docstring); ``iterations``
    boosting rounds (default: ``best_iteration + 1`` if the file has one, else all)."""
    doc = Doc(filename)
    root = doc.obj(decode(data, filename), "")
    if "learner" not in root and "tree_info" in root:
        raise doc.fail("", LIGHTGBM_DUMP)
    version = check_version(doc, root.get("version"))
    learner = doc.obj(doc.get(root, "learner", ""), "learner")
    objective = doc.text(doc.obj(doc.get(learner, "objective", "learner"), "learner.objective"),
                         "name", "learner.objective")  # fmt: skip
    if objective in LOG_LINK or objective == "reg:logistic":
        raise doc.fail(
            "learner.objective.name",
            f"objective {objective!r} predicts a function of the margin (exp or sigmoid) "
            "that C without libm does not compute bit for bit: only the identity-link "
            f"regression objectives are exported ({', '.join(REGRESSION)})",
        )
    if objective not in OBJECTIVES + REGRESSION:
        raise doc.fail(
            "learner.objective.name",
            f"objective {objective!r} is not exported: treegen reads "
            f"{', '.join(OBJECTIVES + REGRESSION)}",
        )
    regressor = objective in REGRESSION
    booster = doc.obj(doc.get(learner, "gradient_booster", "learner"), "learner.gradient_booster")
    name = doc.text(booster, "name", "learner.gradient_booster")
    if name != "gbtree":
        raise doc.fail(
            "learner.gradient_booster.name",
            f"booster {name!r} is not read{_WHY_NOT.get(name, '')}: treegen reads 'gbtree' "
            "(num_parallel_tree too)",
        )
    mpath = "learner.gradient_booster.model"
    model = doc.obj(doc.get(booster, "model", "learner.gradient_booster"), mpath)
    lpath = "learner.learner_model_param"
    lmp = doc.obj(doc.get(learner, "learner_model_param", "learner"), lpath)
    n_features = doc.int_text(lmp, "num_feature", lpath, 1, 1 << 24)
    num_class = doc.int_text(lmp, "num_class", lpath, 0, 1 << 16)
    if "num_target" in lmp and doc.int_text(lmp, "num_target", lpath, 1, 1 << 16) != 1:
        raise doc.fail(f"{lpath}.num_target", "multi-target models are not read")
    multi = objective.startswith("multi:")
    if multi and num_class < 2:
        raise doc.fail(f"{lpath}.num_class", "a multi: objective needs 2 or more classes")
    k = num_class if multi else 1
    base = _base_score(doc, lmp, lpath, k)
    trees_raw = doc.get(model, "trees", mpath)
    if not isinstance(trees_raw, list) or not trees_raw:
        raise doc.fail(f"{mpath}.trees", "must be a list of one or more trees")
    n_trees = len(trees_raw)
    tree_info = doc.ints(model, "tree_info", mpath, n_trees, 0, k - 1)
    if "iteration_indptr" in model:
        indptr = doc.ints(model, "iteration_indptr", mpath, None, 0, n_trees)
        if len(indptr) < 2 or indptr[0] != 0 or indptr[-1] != n_trees or indptr != sorted(indptr):
            raise doc.fail(f"{mpath}.iteration_indptr", "must rise from 0 to the tree count")
    else:
        gpath = f"{mpath}.gbtree_model_param"
        gparam = doc.obj(doc.get(model, "gbtree_model_param", mpath), gpath)
        per = k * parallel_trees(doc, gparam, gpath, learner.get("attributes"))
        if n_trees % per:
            raise doc.fail(f"{mpath}.trees", f"{n_trees} trees are not rounds of {per}")
        indptr = list(range(0, n_trees + 1, per))
    rounds = len(indptr) - 1
    attrs = learner.get("attributes") or {}
    best = attrs.get("best_iteration") if isinstance(attrs, dict) else None
    if iterations is None and best is not None:
        try:
            # XGBoost writes a string; an integer will do, nothing else (int() would
            # take a float's or a bool's value, and raise TypeError on a list)
            if isinstance(best, bool) or not isinstance(best, str | int):
                raise ValueError
            iterations = int(best) + 1
        except ValueError:
            raise doc.fail("learner.attributes.best_iteration", f"{best!r} is no integer") from None
        if not 1 <= iterations <= rounds:
            raise doc.fail("learner.attributes.best_iteration", f"not in 0 .. {rounds - 1}")
    elif iterations is not None and not 1 <= iterations <= rounds:
        raise UsageError(f"the model has {rounds} boosting rounds, not {iterations}",
                         option="iterations")  # fmt: skip
    used = indptr[iterations] if iterations is not None else n_trees
    names, types = _names(doc, learner, n_features, feature_names)
    is_cat = [t == "c" for t in types]
    cat_names = _categories(doc, model, n_features)
    values: dict[int, int] = {}
    rows: list[tuple[float, ...]] = []
    trees = [
        _tree(doc, doc.obj(trees_raw[i], f"{mpath}.trees[{i}]"), f"{mpath}.trees[{i}]",
              n_features, is_cat, tree_info[i], values, rows, version)
        for i in range(used)
    ]  # fmt: skip
    attrs_out = tuple(
        Attribute(nm, "nominal", cats) if cats is not None else Attribute(nm, "continuous")
        for nm, cats in zip(names, cat_names, strict=True)
    )
    n_classes = max(num_class, 2)
    outputs = (target,) if regressor else tuple(str(c) for c in range(n_classes))
    schema = Schema(attrs_out, outputs, target)
    decision: Decision = "argmax"
    cut = 0.0
    init = [float(b) for b in base]
    if objective == "binary:logistic":
        decision, cut = "gt", libm.xgboost_cut()
        init = [libm.xgboost_base_margin(float(base[0]))]
    elif objective == "binary:logitraw":
        decision, cut = "gt", 0.5
    elif objective == "binary:hinge":
        decision = "gt"
    elif regressor:
        decision = "value"  # the float32 margin is the prediction
    options: dict[str, object] = {"source": f"XGBoost {objective}"}
    if not regressor:
        options["labels"] = "int"
    if iterations is not None:
        options["iterations"] = iterations
    return Ensemble(
        schema=schema,
        method="xgboost",
        trees=tuple(trees),
        values=tuple(rows),
        init=tuple(init),
        divisor=None,
        decision=decision,
        compare="float32",
        options=options,
        sum="float32",
        cut=cut,
        categorical_rule="xgboost",
    )
