"""Validation of a decoded model file (the JSON value) before it becomes a Model.

A model file may be truncated, hand-edited or written by a newer treegen;
:func:`check_model_dict` checks every field that :mod:`treegen.model.file`
reads, so that building the :class:`~treegen.model.core.Model` afterwards cannot
fail and later stages (classification, lowering to C) can trust indices,
counts and thresholds.  The first problem found is raised as
:class:`InvalidField`, naming the field (``nodes[3].threshold``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from treegen.data.dataset import FLOAT32_OVERFLOW
from treegen.model.core import flavor_compares_float32
from treegen.model.options import InvalidOption, check_labels, options_from_dict

_KINDS = ("continuous", "nominal", "ignore")
_NODE_KINDS = ("leaf", "continuous", "nominal", "subset")
_TOP = {
    "format",
    "version",
    "treegen_version",
    "data_fingerprint",
    "options",
    "target",
    "classes",
    "attributes",
    "nodes",
}
_NODE_KEYS = {
    "leaf": {"id", "kind", "cls", "items", "errors", "dist"},
    "continuous": {
        "id",
        "kind",
        "attribute",
        "threshold",
        "threshold_hex",
        "children",
        "cls",
        "items",
        "errors",
        "dist",
    },
    "nominal": {"id", "kind", "attribute", "children", "cls", "items", "errors", "dist"},
    "subset": {"id", "kind", "attribute", "subsets", "children", "cls", "items", "errors", "dist"},
}


class InvalidField(Exception):
    """The model file's ``field`` is wrong; ``message`` says how."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _obj(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidField(field, "must be a JSON object")
    return value


def _keys(d: dict[str, Any], allowed: set[str], field: str) -> None:
    for k in d:
        if k not in allowed:
            raise InvalidField(f"{field}.{k}" if field else k, "unknown field")
    for k in sorted(allowed):
        if k not in d:
            raise InvalidField(f"{field}.{k}" if field else k, "missing")


def _str(value: Any, field: str, nonempty: bool = False) -> str:
    if not isinstance(value, str) or (nonempty and not value):
        raise InvalidField(field, "must be a non-empty string" if nonempty else "must be a string")
    return value


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    """An int in ``lo..hi-1`` (JSON booleans are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidField(field, "must be an integer")
    if not lo <= value < hi:
        raise InvalidField(field, f"{value} is out of range ({lo}..{hi - 1})")
    return value


def _weight(value: Any, field: str, float32: bool = False) -> float:
    """A weight (cases, errors, a class's cases): finite, not negative, and for a model
    that holds its weights in float32 (``float32``: the c45 flavour, as Release 8)
    within float32's range, which its classification rounds them to."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidField(field, "must be a number")
    if not math.isfinite(value) or value < 0:
        raise InvalidField(field, "must be a finite number >= 0")
    if float32 and value >= FLOAT32_OVERFLOW:  # beyond_range's rule (value >= 0 here)
        raise InvalidField(
            field, f"{value!r} is beyond float32's range (a c45 tree holds weights as float32)"
        )
    return float(value)


def hex_float(text: str) -> float | None:
    """``text`` as ``float.fromhex`` reads it, or None where it is no hexadecimal float
    (malformed, or beyond a double's range: ``fromhex`` raises OverflowError there,
    not ValueError).  The one reading of the files' ``float.hex()`` fields."""
    try:
        return float.fromhex(text)
    except (ValueError, OverflowError):
        return None


def _str_list(value: Any, field: str, what: str, one: str) -> list[str]:
    """A non-empty list of distinct non-empty strings: ``what`` (plural) and ``one`` of
    them name them in messages ("classes", "class")."""
    if not isinstance(value, list) or not value:
        raise InvalidField(field, f"must be a non-empty list of {what}")
    seen: set[str] = set()
    for i, v in enumerate(value):
        _str(v, f"{field}[{i}]", nonempty=True)
        if v in seen:
            raise InvalidField(f"{field}[{i}]", f"duplicate {one} '{v}'")
        seen.add(v)
    return value


def check_header(data: Any, fmt: str, version: int, what: str = "model") -> dict[str, Any]:
    """The file as an object whose ``format`` is ``fmt`` and ``version`` one this reads."""
    d = _obj(data, "")
    if d.get("format") != fmt:
        raise InvalidField("format", f'not a treegen {what} file (expected "{fmt}")')
    v = d.get("version")
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidField("version", "must be a positive integer")
    if v > version:
        raise InvalidField(
            "version",
            f"format version {v} is newer than this treegen "
            f"reads (version {version}): upgrade treegen",
        )
    return d


def check_schema(d: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The provenance fields, ``target``, ``classes`` and ``attributes`` of a model or
    ruleset file; returns the classes and the attribute objects."""
    _str(d["treegen_version"], "treegen_version")
    _str(d["data_fingerprint"], "data_fingerprint")
    _obj(d["options"], "options")  # free-form (trainer options), but an object
    _str(d["target"], "target", nonempty=True)
    classes = _str_list(d["classes"], "classes", "classes", "class")
    check_labels_field(d["options"], classes)
    attrs = d["attributes"]
    if not isinstance(attrs, list):
        raise InvalidField("attributes", "must be a list")
    names: set[str] = set()
    for i, a in enumerate(attrs):
        f = f"attributes[{i}]"
        a = _obj(a, f)
        kind = a.get("kind")
        if kind not in _KINDS:
            raise InvalidField(f"{f}.kind", f"must be one of {', '.join(_KINDS)}")
        _keys(a, {"name", "kind", "values"} if kind == "nominal" else {"name", "kind"}, f)
        name = _str(a["name"], f"{f}.name", nonempty=True)
        if name in names:
            raise InvalidField(f"{f}.name", f"duplicate attribute name '{name}'")
        names.add(name)
        if kind == "nominal":
            _str_list(a["values"], f"{f}.values", "values", "value")
    return classes, attrs


def check_labels_field(options: dict[str, Any], classes: list[str]) -> None:
    """The file's ``options.labels`` against its classes (:func:`check_labels`)."""
    try:
        check_labels(options.get("labels", "str"), classes)
    except InvalidOption as err:
        raise InvalidField(f"options.{err.key}", err.message) from None


def check_model_dict(data: Any, fmt: str, version: int) -> None:
    """Raise :class:`InvalidField` unless ``data`` is a complete, consistent model file."""
    d = check_header(data, fmt, version)
    _keys(d, _TOP, "")
    classes, attrs = check_schema(d)
    try:
        flavor = options_from_dict(d["options"]).flavor
    except InvalidOption as err:
        raise InvalidField(f"options.{err.key}", err.message) from None
    float32 = flavor_compares_float32(flavor)
    _check_nodes(d["nodes"], attrs, len(classes), float32)


# The field checks, for the ruleset file's validation (treegen.rules.file).
as_object, check_keys, as_int, as_str = _obj, _keys, _int, _str


def _check_node(
    n: dict[str, Any],
    i: int,
    attrs: list[dict[str, Any]],
    n_classes: int,
    n_nodes: int,
    float32: bool,
) -> list[int]:
    f = f"nodes[{i}]"
    kind = n.get("kind")
    if kind not in _NODE_KINDS:
        raise InvalidField(f"{f}.kind", f"must be one of {', '.join(_NODE_KINDS)}")
    # A test's J48 counts are optional (files without them load as before).
    _keys(n, _NODE_KEYS[kind] | (_BAG_KEYS if kind != "leaf" and "per_bag" in n else set()), f)
    if _int(n["id"], f"{f}.id", 0, n_nodes) != i:
        raise InvalidField(f"{f}.id", f"is {n['id']}, expected {i} (nodes are listed in order)")
    _int(n["cls"], f"{f}.cls", 0, n_classes)
    _weight(n["items"], f"{f}.items", float32)
    _weight(n["errors"], f"{f}.errors", float32)
    _check_dist(n["dist"], n_classes, f"{f}.dist", float32)
    if kind == "leaf":
        return []
    a = _int(n["attribute"], f"{f}.attribute", 0, len(attrs))
    akind = attrs[a]["kind"]
    want = "continuous" if kind == "continuous" else "nominal"
    if akind != want:
        raise InvalidField(
            f"{f}.attribute",
            f"a {kind} test needs a {want} attribute, '{attrs[a]['name']}' is {akind}",
        )
    children = n["children"]
    if not isinstance(children, list):
        raise InvalidField(f"{f}.children", "must be a list of node indices")
    for k, c in enumerate(children):
        _int(c, f"{f}.children[{k}]", 0, n_nodes)
    if kind == "continuous":
        check_threshold(n, f, float32)
        expected = 2
    elif kind == "nominal":
        expected = len(attrs[a]["values"])
    else:
        expected = _check_subsets(n["subsets"], len(attrs[a]["values"]), f)
    if len(children) != expected:
        raise InvalidField(
            f"{f}.children", f"has {len(children)} entries, the test has {expected} branches"
        )
    if "per_bag" in n:
        _check_bags(n, expected, n_classes, f)
    return list(children)


_BAG_KEYS = {"per_bag", "bag_dist"}


def _check_bags(n: dict[str, Any], n_branches: int, n_classes: int, f: str) -> None:
    """A test's J48 counts: ``per_bag``, a weight per branch, and ``bag_dist``, a list of
    class weights per branch (:mod:`treegen.model.core`)."""
    per_bag, bag_dist = n["per_bag"], n["bag_dist"]
    if not isinstance(per_bag, list) or len(per_bag) != n_branches:
        raise InvalidField(f"{f}.per_bag", f"must list {n_branches} branch weights")
    for k, x in enumerate(per_bag):
        _weight(x, f"{f}.per_bag[{k}]")
    if not isinstance(bag_dist, list) or len(bag_dist) != n_branches:
        raise InvalidField(f"{f}.bag_dist", f"must list {n_branches} branches' class weights")
    for b, row in enumerate(bag_dist):
        if not isinstance(row, list) or len(row) != n_classes:
            raise InvalidField(f"{f}.bag_dist[{b}]", f"must list {n_classes} class weights")
        for k, x in enumerate(row):
            _weight(x, f"{f}.bag_dist[{b}][{k}]")


_SPARSE_KEYS = {"classes", "weights"}


def _check_dist(dist: Any, n_classes: int, f: str, float32: bool) -> None:
    """A node's class weights: a list of one per class, or an object of the classes
    present (ascending indices) and their weights (:mod:`treegen.model.dist`);
    ``float32`` as for :func:`_weight`."""
    if isinstance(dist, dict):
        _keys(dist, _SPARSE_KEYS, f)
        at, weights = dist["classes"], dist["weights"]
        if not isinstance(at, list) or not isinstance(weights, list) or len(at) != len(weights):
            raise InvalidField(f, "classes and weights must be lists of the same length")
        prev = -1
        for k, c in enumerate(at):
            if _int(c, f"{f}.classes[{k}]", 0, n_classes) <= prev:
                raise InvalidField(f"{f}.classes[{k}]", "class indices must ascend")
            prev = c
        for k, x in enumerate(weights):
            _weight(x, f"{f}.weights[{k}]", float32)
        return
    if not isinstance(dist, list) or len(dist) != n_classes:
        raise InvalidField(f, f"must list {n_classes} class weights")
    for k, x in enumerate(dist):
        _weight(x, f"{f}[{k}]", float32)


def _dist_weights(dist: Any) -> list[Any]:
    """The weights a checked ``dist`` lists (either form; the zeros left out don't add)."""
    return list(dist["weights"]) if isinstance(dist, dict) else list(dist)


def check_threshold(n: dict[str, Any], f: str, float32: bool) -> float:
    """A ``threshold`` written twice (number and ``threshold_hex``) that agree; the exact
    value.  Model files and ruleset files both write thresholds this way.  With
    ``float32`` (the c45 flavour, which compares float32(v) with it) the threshold must be
    a float32 value: a c45 tree's are data values, and the C stores them as floats."""
    t, h = n["threshold"], n["threshold_hex"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise InvalidField(f"{f}.threshold", "must be a finite number")
    if not isinstance(h, str):
        raise InvalidField(f"{f}.threshold_hex", "must be a string (float.hex)")
    exact = hex_float(h)
    if exact is None:
        raise InvalidField(f"{f}.threshold_hex", f"'{h}' is not a hexadecimal float")
    if exact.hex() != float(t).hex():
        raise InvalidField(
            f"{f}.threshold", f"{t!r} does not equal threshold_hex {h} (edited by hand?)"
        )
    with np.errstate(over="ignore"):
        narrow = float(np.float32(exact))
    if float32 and narrow != exact:
        raise InvalidField(
            f"{f}.threshold", f"{t!r} is not a float32 value (the c45 flavour compares float32)"
        )
    return exact


def _check_subsets(subsets: Any, n_values: int, f: str) -> int:
    if not isinstance(subsets, list) or len(subsets) < 2:
        raise InvalidField(f"{f}.subsets", "must be a list of at least two value lists")
    seen: set[int] = set()
    for b, s in enumerate(subsets):
        if not isinstance(s, list) or not s:
            raise InvalidField(f"{f}.subsets[{b}]", "must be a non-empty list of value indices")
        for k, v in enumerate(s):
            _int(v, f"{f}.subsets[{b}][{k}]", 0, n_values)
            if v in seen:
                raise InvalidField(f"{f}.subsets[{b}][{k}]", f"value {v} is in two subsets")
            seen.add(v)
    return len(subsets)


def _check_nodes(nodes: Any, attrs: list[dict[str, Any]], n_classes: int, float32: bool) -> None:
    """Every node valid, and the list is the pre-order walk of one tree rooted at 0."""
    if not isinstance(nodes, list) or not nodes:
        raise InvalidField("nodes", "must be a non-empty list")
    children = [
        _check_node(_obj(n, f"nodes[{i}]"), i, attrs, n_classes, len(nodes), float32)
        for i, n in enumerate(nodes)
    ]
    # Walk from the root without recursion: the visiting order must be 0, 1, 2, ...
    # which rules out cycles, shared children and nodes out of pre-order.
    stack, expected = [(0, "nodes[0]")], 0
    while stack:
        i, via = stack.pop()
        if i != expected:
            raise InvalidField(
                via,
                f"points to node {i}, but pre-order needs node {expected} "
                "here (nodes must form one tree in pre-order)",
            )
        expected += 1
        stack.extend(
            (c, f"nodes[{i}].children[{k}]") for k, c in reversed(list(enumerate(children[i])))
        )
    if expected != len(nodes):
        raise InvalidField(f"nodes[{expected}]", "is not reachable from the root")
    _check_weights(nodes)


def _check_weights(nodes: list[dict[str, Any]]) -> None:
    """Each node's class weights sum to its items (an empty leaf, items 0, keeps its
    parent's): classification divides them by items, so a file edited otherwise would give
    probabilities that do not sum to 1.  A c45 tree sums both in float32, in different
    orders, so they may differ by float32's bound for sums of N terms, N the root's cases
    (measured: 1.8e-4 relative at 300k rows with missing values, 6.6e-4 at 1M).  N is
    the smaller of the root's items and its class weights' sum: either may be the edited
    one, and a tolerance taken from an edited count would let every node pass."""
    root = nodes[0]
    cases = min(float(root["items"]), math.fsum(float(x) for x in _dist_weights(root["dist"])))
    tolerance = (cases + 1.0) * 2.0**-22
    for i, n in enumerate(nodes):
        items, total = float(n["items"]), math.fsum(float(x) for x in _dist_weights(n["dist"]))
        if items > 0 and not math.isclose(total, items, rel_tol=tolerance):
            raise InvalidField(
                f"nodes[{i}].dist",
                f"sums to {total!r}, not to the node's items {items!r} (edited by hand?)",
            )
