"""The ensemble file (format ``treegen-ensemble``): JSON, one tree per line, checked on load.

Layout::

    {
      "format": "treegen-ensemble", "version": 1,
      "treegen_version": ..., "data_fingerprint": ..., "options": {...},
      "target": "class", "classes": [...], "attributes": [one per line],
      "method": "forest", "decision": "argmax", "compare": "float32",
      "init": [floats], "divisor": float or null, "categories": [[floats] per feature],
      ("sum": "float32", "cut": float, "categorical_rule": "lightgbm",)
      "values": [one leaf value row per line],
      "trees": [one tree per line: {"output", "feature", "threshold", "left", "right",
                "nan_left", "categorical", "left_codes", "value"(, "zero_missing",
                "weight")}]
    }

The fields in parentheses are written only when they are not their defaults (float64
sums, a cut of 0, scikit-learn's categorical rule, no zero band, no node weights), so
a file without them loads as it always did (the version stays 1, as for the model
file's optional fields).  ``weight`` (a single scikit-learn tree's
``weighted_n_node_samples``, one per node) only chooses the inline top
(treegen.ensemble.view_top); loading checks one finite, non-negative number per node
and nothing more: no prediction depends on it, so an order its numbers do not add up
to (float sums of sample weights) is no error.  With float32 sums every value, init
and cut must be a float32 number.

Every float is written as ``float.hex()`` text, so values, thresholds (``inf`` among
them) and signed zeros come back bit for bit.  :func:`ensemble_from_data` checks every
field (types, counts, index ranges, each tree in pre-order with the left child first,
leaf rows of the right width) and raises one :class:`~treegen.errors.ModelFileError`
naming the field and its line, as for a tree.  ``options`` is free-form but for what
predictions read: ``labels`` (the labels' type, fitting the class names) and
``sigmoid`` (a positive finite number).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from treegen.data.dataset import Attribute, Schema
from treegen.ensemble.core import (
    CATEGORICAL_RULES,
    COMPARES,
    DECISIONS,
    LEAF,
    METHODS,
    SUMS,
    Anomaly,
    Ensemble,
    Tree,
)
from treegen.model.check import (
    InvalidField,
    as_int,
    as_object,
    check_header,
    check_schema,
    hex_float,
)
from treegen.model.file import attribute_lines
from treegen.model.jsontext import field_error

FORMAT = "treegen-ensemble"
VERSION = 1
_TOP = {
    "format", "version", "treegen_version", "data_fingerprint", "options", "target",
    "classes", "attributes", "method", "decision", "compare", "init", "divisor",
    "categories", "values", "trees",
}  # fmt: skip
_OPTIONAL_TOP = {"sum", "cut", "categorical_rule", "anomaly"}  # anomaly: an IsolationForest's
_TREE_KEYS = {
    "output", "feature", "threshold", "left", "right", "nan_left", "categorical",
    "left_codes", "value",
}  # fmt: skip
_OPTIONAL_TREE_KEYS = {"zero_missing", "weight"}
_MAX_CODE = 1 << 16  # a categorical split's codes (scikit-learn's stay below 256)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _hex(values: tuple[float, ...]) -> list[str]:
    return [float(v).hex() for v in values]


def _tree_dict(t: Tree) -> dict[str, object]:
    return {
        "output": t.output,
        "feature": list(t.feature),
        "threshold": _hex(t.threshold),
        "left": list(t.left),
        "right": list(t.right),
        "nan_left": [int(b) for b in t.nan_left],
        "categorical": [int(b) for b in t.categorical],
        "left_codes": [list(c) for c in t.left_codes],
        "value": list(t.value),
        **({"zero_missing": [int(b) for b in t.zero_missing]} if any(t.zero_missing) else {}),
        **({"weight": _hex(t.weight)} if t.weight else {}),
    }


def _anomaly_tuple(a: Anomaly) -> tuple[float, float, float]:
    return (a.denominator, a.offset, a.boundary)


def ensemble_to_json(e: Ensemble) -> str:
    """The file's text (deterministic: the same ensemble gives the same bytes)."""
    s = e.schema
    lines = [
        "{",
        f'  "format": {_dumps(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "treegen_version": {_dumps(e.treegen_version)},',
        f'  "data_fingerprint": {_dumps(e.data_fingerprint)},',
        f'  "options": {_dumps(e.options)},',
        f'  "target": {_dumps(s.target)},',
        f'  "classes": {_dumps(list(s.classes))},',
        '  "attributes": [',
        ",\n".join(attribute_lines(s)),
        "  ],",
        f'  "method": {_dumps(e.method)},',
        f'  "decision": {_dumps(e.decision)},',
        f'  "compare": {_dumps(e.compare)},',
        f'  "init": {_dumps(_hex(e.init))},',
        f'  "divisor": {_dumps(None if e.divisor is None else float(e.divisor).hex())},',
        f'  "categories": {_dumps([_hex(c) for c in e.categories])},',
        *([f'  "sum": {_dumps(e.sum)},'] if e.sum != "float64" else []),
        *([f'  "cut": {_dumps(float(e.cut).hex())},'] if e.cut != 0.0 else []),
        *(
            [f'  "categorical_rule": {_dumps(e.categorical_rule)},']
            if e.categorical_rule != "sklearn"
            else []
        ),
        *(
            [f'  "anomaly": {_dumps(_hex(_anomaly_tuple(e.anomaly)))},']
            if e.anomaly is not None
            else []
        ),
        '  "values": [',
        ",\n".join("    " + _dumps(_hex(row)) for row in e.values),
        "  ],",
        '  "trees": [',
        ",\n".join("    " + _dumps(_tree_dict(t)) for t in e.trees),
        "  ]",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _float(value: Any, field: str, finite: bool = True) -> float:
    if not isinstance(value, str):
        raise InvalidField(field, "must be a float written by float.hex()")
    x = hex_float(value)
    if x is None:
        raise InvalidField(field, f"{value!r} is not a hexadecimal float")
    if math.isnan(x) or (finite and math.isinf(x)):
        raise InvalidField(field, f"{value!r} is not a finite number")
    return x


def _weight(value: Any, field: str) -> float:
    """A node's training weight: finite and not negative (file docstring)."""
    x = _float(value, field)
    if x < 0:
        raise InvalidField(field, f"{value!r} is negative")
    return x


def _check_sigmoid(options: dict[str, Any]) -> None:
    """``options.sigmoid``, the scale of a binary model's sigmoid in predict_proba
    (LightGBM's ``sigmoid``, 2 for scikit-learn's exponential loss), where recorded: a
    positive finite number, as the libraries take it (an edited "x" made predict_proba
    raise ValueError from ``float()``)."""
    if "sigmoid" not in options:
        return
    value = options["sigmoid"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value < math.inf):
        raise InvalidField("options.sigmoid", f"{value!r} is not a positive finite number")


def _list(value: Any, field: str, n: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise InvalidField(field, "must be a list" + ("" if n is None else f" of {n} items"))
    return value


def _leaf_width(output: int, n_outputs: int) -> int:
    """The width of a tree's leaf value rows: one for a tree of one output (a boosted
    model's per-class trees), every output's otherwise."""
    return 1 if output >= 0 else n_outputs


def _tree(
    d: Any,
    f: str,
    n_features: int,
    n_values: int,
    n_outputs: int,
    width: list[int],
    nominal: dict[int, int],
) -> Tree:
    t = as_object(d, f)
    missing = _TREE_KEYS - set(t)
    extra = set(t) - _TREE_KEYS - _OPTIONAL_TREE_KEYS
    if missing or extra:
        raise InvalidField(f, f"must have exactly the fields {', '.join(sorted(_TREE_KEYS))}")
    n = len(_list(t["feature"], f"{f}.feature"))
    if n == 0:
        raise InvalidField(f"{f}.feature", "a tree has at least one node")
    output = as_int(t["output"], f"{f}.output", -1, n_outputs)
    feature = [as_int(x, f"{f}.feature[{i}]", LEAF, n_features) for i, x in enumerate(t["feature"])]
    threshold = [
        _float(x, f"{f}.threshold[{i}]", finite=False)
        for i, x in enumerate(_list(t["threshold"], f"{f}.threshold", n))
    ]
    left = [
        as_int(x, f"{f}.left[{i}]", LEAF, n) for i, x in enumerate(_list(t["left"], f"{f}.left", n))
    ]
    right = [
        as_int(x, f"{f}.right[{i}]", LEAF, n)
        for i, x in enumerate(_list(t["right"], f"{f}.right", n))
    ]
    nan_left = [
        bool(as_int(x, f"{f}.nan_left[{i}]", 0, 2))
        for i, x in enumerate(_list(t["nan_left"], f"{f}.nan_left", n))
    ]
    categorical = [
        bool(as_int(x, f"{f}.categorical[{i}]", 0, 2))
        for i, x in enumerate(_list(t["categorical"], f"{f}.categorical", n))
    ]
    codes = [
        tuple(
            as_int(c, f"{f}.left_codes[{i}]", 0, _MAX_CODE)
            for c in _list(x, f"{f}.left_codes[{i}]")
        )
        for i, x in enumerate(_list(t["left_codes"], f"{f}.left_codes", n))
    ]
    value = [
        as_int(x, f"{f}.value[{i}]", -1, n_values)
        for i, x in enumerate(_list(t["value"], f"{f}.value", n))
    ]
    zero = (
        [
            bool(as_int(x, f"{f}.zero_missing[{i}]", 0, 2))
            for i, x in enumerate(_list(t["zero_missing"], f"{f}.zero_missing", n))
        ]
        if "zero_missing" in t
        else []
    )
    weight = (
        [_weight(x, f"{f}.weight[{i}]") for i, x in enumerate(_list(t["weight"], f"{f}.weight", n))]
        if "weight" in t
        else []
    )
    for i in range(n):
        g = f"{f} node {i}"
        if feature[i] == LEAF:
            if left[i] != LEAF or right[i] != LEAF or value[i] < 0 or categorical[i] or codes[i]:
                raise InvalidField(f"{f}.value[{i}]", "a leaf has a value row and no children")
            if width[value[i]] != _leaf_width(output, n_outputs):
                raise InvalidField(f"{f}.value[{i}]", "the value row's width does not fit the tree")
            continue
        if value[i] != -1 or not (i < left[i] < n and i < right[i] < n) or left[i] == right[i]:
            raise InvalidField(g, "a split has two children after it and no value")
        if math.isnan(threshold[i]):
            raise InvalidField(f"{f}.threshold[{i}]", "is NaN")
        if (
            categorical[i]
            and feature[i] in nominal
            and any(c >= nominal[feature[i]] for c in codes[i])
        ):
            raise InvalidField(f"{f}.left_codes[{i}]", "a code the feature does not have")
        if codes[i] and not categorical[i]:
            raise InvalidField(f"{f}.left_codes[{i}]", "codes on a numeric split")
        if zero and zero[i] and categorical[i]:
            raise InvalidField(f"{f}.zero_missing[{i}]", "a zero band on a categorical split")
    # Pre-order, the left child first: the walk from the root visits the nodes in file
    # order (the C's table rows take a split's left child as the next row).
    at, stack = 0, [0]
    while stack:
        i = stack.pop()
        if i != at:
            raise InvalidField(
                f,
                f"not one tree in pre-order, left child first: the walk from the root "
                f"reaches node {i} where the file has node {at}",
            )
        at += 1
        if feature[i] != LEAF:
            stack += [right[i], left[i]]
    if at != n:
        raise InvalidField(
            f, f"not one tree in pre-order: the walk from the root reaches {at} of {n} nodes"
        )
    return Tree(tuple(feature), tuple(threshold), tuple(left), tuple(right), tuple(nan_left),
                tuple(categorical), tuple(codes), tuple(value), output,
                tuple(zero) if any(zero) else (), tuple(weight))  # fmt: skip


def check_ensemble_dict(data: Any) -> Ensemble:
    """The ensemble of decoded file ``data``; :class:`InvalidField` names what is wrong."""
    d = check_header(data, FORMAT, VERSION, "ensemble")
    missing = _TOP - set(d)
    if missing:
        raise InvalidField(sorted(missing)[0], "is missing")
    extra = set(d) - _TOP - _OPTIONAL_TOP
    if extra:
        raise InvalidField(sorted(extra)[0], "is not a field of an ensemble file")
    classes, attrs = check_schema(d)
    _check_sigmoid(d["options"])
    d = {"sum": "float64", "categorical_rule": "sklearn", "cut": "0x0.0p+0", **d}
    for key, allowed in (
        ("method", METHODS),
        ("decision", DECISIONS),
        ("compare", COMPARES),
        ("sum", SUMS),
        ("categorical_rule", CATEGORICAL_RULES),
    ):
        if d[key] not in allowed:
            raise InvalidField(key, f"must be one of {', '.join(allowed)}")
    cut = _float(d["cut"], "cut")
    if cut != 0.0 and d["decision"] != "gt":
        raise InvalidField("cut", "is for the decision gt only")
    init = tuple(_float(x, f"init[{i}]") for i, x in enumerate(_list(d["init"], "init")))
    if not init:
        raise InvalidField("init", "an ensemble has at least one output")
    anomaly = None
    if d["decision"] == "bound" or "anomaly" in d:
        if d["decision"] != "bound" or "anomaly" not in d:
            raise InvalidField("anomaly", "goes with decision bound, and it with anomaly")
        a = [
            _float(x, f"anomaly[{i}]", finite=i < 2)  # no sum may be an inlier: inf
            for i, x in enumerate(_list(d["anomaly"], "anomaly", 3))
        ]
        anomaly = Anomaly(a[0], a[1], a[2])
    one = {"ge0": 1, "gt0": 1, "gt": 1, "diff": 2, "bound": 1}.get(d["decision"])
    # these decisions pick one of two classes: any other number would index past the
    # list (one class) or never predict the rest (three or more)
    if one is not None and len(classes) != 2:
        raise InvalidField("classes", f"decision {d['decision']} needs exactly 2 classes")
    if (one is not None and len(init) != one) or (one is None and len(init) != len(classes)):
        raise InvalidField(
            "decision", f"does not fit {len(init)} outputs and {len(classes)} classes"
        )
    divisor = None if d["divisor"] is None else _float(d["divisor"], "divisor")
    if divisor is not None and not divisor > 0:
        # a tree count or a sum of positive tree weights: an edited 0 or -0 divided the
        # sums by zero (inf and NaN, numpy's warnings, and argmax's class 0)
        raise InvalidField("divisor", f"{d['divisor']!r} is not a positive number")
    categories = tuple(
        tuple(
            _float(x, f"categories[{j}][{i}]") for i, x in enumerate(_list(c, f"categories[{j}]"))
        )
        for j, c in enumerate(_list(d["categories"], "categories"))
    )
    if categories and len(categories) != len(attrs):
        raise InvalidField("categories", f"must have one list per attribute ({len(attrs)})")
    for j, c in enumerate(categories):
        if list(c) != sorted(set(c)):
            raise InvalidField(f"categories[{j}]", "must be increasing")
    values = tuple(
        tuple(_float(x, f"values[{i}]") for x in _list(row, f"values[{i}]"))
        for i, row in enumerate(_list(d["values"], "values"))
    )
    if d["sum"] == "float32":
        for name, xs in (
            ("values", [v for r in values for v in r]),
            ("init", init),
            ("cut", [cut]),
        ):
            with np.errstate(over="ignore"):
                narrow = np.asarray(xs, dtype=np.float64).astype(np.float32).astype(np.float64)
            if not np.array_equal(narrow, np.asarray(xs, dtype=np.float64)):
                raise InvalidField(name, "float32 sums take float32 numbers only")
    width = [len(r) for r in values]
    nominal = {j: len(a.get("values", ())) for j, a in enumerate(attrs) if a["kind"] == "nominal"}
    trees = tuple(
        _tree(t, f"trees[{i}]", len(attrs), len(values), len(init), width, nominal)
        for i, t in enumerate(_list(d["trees"], "trees"))
    )
    if not trees:
        raise InvalidField("trees", "an ensemble has at least one tree")
    # Every row is written out in the C (and read by info's size estimate), not only the
    # rows a leaf reads: one no leaf could read (an empty row, once) is a tampered file.
    widths = {_leaf_width(t.output, len(init)) for t in trees}
    for i, w in enumerate(width):
        if w not in widths:
            raise InvalidField(f"values[{i}]", "its width fits no tree's leaves")
    schema = Schema(
        tuple(Attribute(a["name"], a["kind"], tuple(a.get("values", ()))) for a in attrs),
        tuple(classes),
        d["target"],
    )
    return Ensemble(
        schema, d["method"], trees, values, init, divisor, d["decision"], d["compare"],
        categories, dict(d["options"]), d["treegen_version"], d["data_fingerprint"],
        d["sum"], cut, d["categorical_rule"], anomaly,
    )  # fmt: skip


def ensemble_from_data(data: Any, text: str, filename: str) -> Ensemble:
    """Check decoded file ``data`` (of text ``text``, for the line an error names)."""
    try:
        return check_ensemble_dict(data)
    except InvalidField as err:
        raise field_error(err, text, filename) from None
