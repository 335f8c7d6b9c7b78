"""The model file ``model.tree``: JSON, diff-friendly, validated completely on load.

Layout (format ``treegen-model``, version 1)::

    {
      "format": "treegen-model",
      "version": 1,
      "treegen_version": "0.1.0",
      "data_fingerprint": "sha256:...",
      "options": {"min_cases": 2, ...},
      "target": "class",
      "classes": ["Play", "Don't Play"],
      "attributes": [
        {"name": "outlook", "kind": "nominal", "values": ["sunny", "overcast", "rain"]},
        {"name": "humidity", "kind": "continuous"}
      ],
      "nodes": [
        {"id": 0, "kind": "continuous", "attribute": 1, "threshold": 75.0,
         "threshold_hex": "0x1.2c00000000000p+6", "children": [1, 2], "cls": 0,
         "items": 14.0, "errors": 5.0, "dist": [9.0, 5.0]},
        ...
      ]
    }

A node's ``dist`` lists one weight per class; a model of many classes
(:mod:`treegen.model.dist`) writes where few are present only those, as
``{"classes": [3, 17], "weights": [1.0, 2.0]}`` (ascending class indices; every
other class weighs 0).  Either form is read.

One attribute and one node per line, so a diff shows which node changed.
Nodes are in pre-order (root first; a test's children follow it, subtree
after subtree); a child's ``items`` is the case weight of its branch, which
is what classification with unknown values needs.  Every float is written
with Python's shortest round-trip ``repr``; a threshold is also written as
``float.hex()`` and the two must agree on load, so thresholds stay bit-exact
even through tools that reformat decimal numbers.

:func:`model_from_json` checks everything (types, counts, index ranges, the
pre-order tree shape, finite numbers, JSON nested at most
:data:`~treegen.model.jsontext.MAX_NESTING` levels: the node list is flat, so a deep
tree nests no deeper) and raises a one-line :class:`~treegen.errors.ModelFileError`
naming the field (at its line: :mod:`treegen.model.jsontext`).
"""

from __future__ import annotations

import json
import math
import os
from array import array
from typing import Any

import numpy as np

from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Attribute, Schema
from treegen.model.check import InvalidField, check_model_dict
from treegen.model.core import ContinuousTest, Leaf, Model, Node, SubsetTest, make_node
from treegen.model.dist import Dist, SparseDist
from treegen.model.jsontext import decode_json, field_error, read_text
from treegen.model.options import options_from_dict

FORMAT = "treegen-model"
VERSION = 1

__all__ = [
    "FORMAT",
    "VERSION",
    "load_model",
    "model_from_data",
    "model_from_json",
    "model_to_json",
    "save_model",
]


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def attribute_lines(schema: Schema) -> list[str]:
    """The ``"attributes"`` entries, one line each, as model and ruleset files write them."""
    attrs = []
    for a in schema.attributes:
        d: dict[str, object] = {"name": a.name, "kind": a.kind}
        if a.kind == "nominal":
            d["values"] = list(a.values)
        attrs.append("    " + _dumps(d))
    return attrs


def _node_dict(i: int, n: Node, dist: bool = True) -> dict[str, object]:
    d: dict[str, object] = {"id": i, "kind": n.kind}
    if not isinstance(n, Leaf):
        d["attribute"] = n.attribute
    if isinstance(n, ContinuousTest):
        d["threshold"] = n.threshold
        d["threshold_hex"] = n.threshold.hex()
    if isinstance(n, SubsetTest):
        d["subsets"] = [list(s) for s in n.subsets]
    if not isinstance(n, Leaf):
        d["children"] = list(n.children)
        if n.per_bag:
            d["per_bag"] = [float(x) for x in n.per_bag]
            d["bag_dist"] = [[float(x) for x in row] for row in n.bag_dist]
    d["cls"] = n.cls
    d["items"] = float(n.items)
    d["errors"] = float(n.errors)
    if dist:
        d["dist"] = dist_value(n.dist)
    return d


def dist_value(dist: Dist) -> list[float] | dict[str, list[int] | list[float]]:
    """A node's ``dist`` as the file writes it: every weight, or for a
    :class:`~treegen.model.dist.SparseDist` the classes present and their weights."""
    if isinstance(dist, SparseDist):
        return {"classes": list(dist.at), "weights": list(dist.weights)}
    return [float(x) for x in dist]


# From this many classes a node's weights are written in runs of zeros (_dist_json).
MANY_CLASSES = 64


def _dist_json(dist: Dist) -> str | None:
    """``dist`` as :func:`_dumps` writes it, with each run of zero weights written at
    once (with thousands of classes, each weight's ``float.__repr__`` was most of the
    writing); None for fewer than :data:`MANY_CLASSES` classes or a weight JSON refuses."""
    if len(dist) < MANY_CLASSES or isinstance(dist, SparseDist):
        return None
    d = np.frombuffer(array("d", dist), dtype=np.float64)  # faster than np.asarray(tuple)
    nz = np.flatnonzero((d != 0) | np.signbit(d))  # -0.0 is written as "-0.0"
    if not np.isfinite(d[nz]).all():
        return None
    parts = ["["]
    prev = 0
    for i, v in zip(nz.tolist(), d[nz].tolist(), strict=True):
        parts.append("0.0, " * (i - prev))
        parts.append(repr(v) + ", ")
        prev = i + 1
    parts.append("0.0, " * (d.size - prev))
    return "".join(parts)[:-2] + "]"


def _plain_node_json(i: int, n: Node) -> str | None:
    """``_dumps(_node_dict(i, n))`` written directly, for the nodes training writes by
    the thousand (a leaf, a continuous or a nominal test, fewer than
    :data:`MANY_CLASSES` classes or a :class:`SparseDist`, no J48 bags): json.dumps
    made an encoder per node, a third of the writing.  Only numbers of Python's own
    ``int`` and finite floats (any ``float``, written by ``float.__repr__`` as json
    writes them); for anything else None, and :func:`_dumps` writes the node (or
    refuses it)."""
    dist = n.dist
    sparse = isinstance(dist, SparseDist)
    if isinstance(n, SubsetTest) or (not sparse and len(dist) >= MANY_CLASSES):
        return None
    at: tuple[int, ...] = ()
    if isinstance(dist, SparseDist):
        at = dist.at  # dist_value's classes and weights
        if any(type(c) is not int for c in at):
            return None
        weights = [float(x) for x in dist.weights]
    else:
        weights = [float(x) for x in dist]
    items, errors = float(n.items), float(n.errors)
    # A sum of floats is finite only if every one is (inf - inf is NaN).
    if (
        type(i) is not int
        or type(n.cls) is not int
        or not math.isfinite(items + errors + sum(weights))
    ):
        return None
    listed = "[" + ", ".join(map(float.__repr__, weights)) + "]"
    if isinstance(dist, SparseDist):
        classes = "[" + ", ".join(map(str, at)) + "]"
        listed = f'{{"classes": {classes}, "weights": {listed}}}'
    head = f'{{"id": {i}, "kind": "{n.kind}"'
    if not isinstance(n, Leaf):
        if n.per_bag or type(n.attribute) is not int or any(type(c) is not int for c in n.children):
            return None
        head += f', "attribute": {n.attribute}'
        if isinstance(n, ContinuousTest):
            t = n.threshold
            if not isinstance(t, float) or not math.isfinite(t):
                return None
            head += f', "threshold": {float.__repr__(t)}, "threshold_hex": "{float.hex(t)}"'
        head += ', "children": [' + ", ".join(map(str, n.children)) + "]"
    return (
        f'{head}, "cls": {n.cls}, "items": {float.__repr__(items)}, '
        f'"errors": {float.__repr__(errors)}, "dist": {listed}}}'
    )


def _node_json(i: int, n: Node) -> str:
    """One node's line of the model file (``dist`` last, as :func:`_node_dict` orders it)."""
    plain = _plain_node_json(i, n)
    if plain is not None:
        return plain
    dist = _dist_json(n.dist)
    if dist is None:
        return _dumps(_node_dict(i, n))
    return _dumps(_node_dict(i, n, dist=False))[:-1] + ', "dist": ' + dist + "}"


def model_to_json(model: Model) -> str:
    """The model file text (deterministic: the same model gives the same bytes)."""
    s = model.schema
    lines = [
        "{",
        f'  "format": {_dumps(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "treegen_version": {_dumps(model.treegen_version)},',
        f'  "data_fingerprint": {_dumps(model.data_fingerprint)},',
        f'  "options": {_dumps(model.options.as_dict())},',
        f'  "target": {_dumps(s.target)},',
        f'  "classes": {_dumps(list(s.classes))},',
        '  "attributes": [',
    ]
    attrs = attribute_lines(s)
    lines.append(",\n".join(attrs))
    lines.append("  ],")
    lines.append('  "nodes": [')
    # One line per node, each but the last with its comma, and one join for the file:
    # with thousands of classes the node lines are tens of MB, and every join or
    # concatenation of them was another copy at the peak.
    last = len(model.nodes) - 1
    lines.extend(
        "    " + _node_json(i, n) + ("," if i < last else "") for i, n in enumerate(model.nodes)
    )
    lines.append("  ]")
    lines.append("}\n")
    return "\n".join([line for line in lines if line])


def model_from_json(text: str, filename: str = "<model>") -> Model:
    """Parse and validate model file text; raise :class:`ModelFileError` on anything wrong."""
    return model_from_data(decode_json(text, filename), text, filename)


def model_from_data(data: Any, text: str, filename: str) -> Model:
    """Validate the decoded model file ``data`` (of file text ``text``, for the line an
    error names) and build the Model."""
    try:
        check_model_dict(data, FORMAT, VERSION)
    except InvalidField as err:
        raise field_error(err, text, filename) from None
    return _build(data)


def _build(d: dict[str, Any]) -> Model:
    attributes = tuple(
        Attribute(a["name"], a["kind"], tuple(a.get("values", ()))) for a in d["attributes"]
    )
    schema = Schema(attributes, tuple(d["classes"]), d["target"])
    nodes = []
    for n in d["nodes"]:
        kind = n["kind"]
        nodes.append(
            make_node(
                kind,
                cls=n["cls"],
                items=float(n["items"]),
                errors=float(n["errors"]),
                dist=_dist_of(n["dist"], len(schema.classes)),
                # The checked file has these fields exactly where ``kind`` has them.
                attribute=n.get("attribute", 0),
                threshold=float.fromhex(n["threshold_hex"]) if kind == "continuous" else 0.0,
                subsets=tuple(tuple(s) for s in n.get("subsets", ())),
                children=tuple(n.get("children", ())),
                per_bag=tuple(float(x) for x in n.get("per_bag", ())),
                bag_dist=tuple(tuple(float(x) for x in row) for row in n.get("bag_dist", ())),
            )
        )
    options = options_from_dict(d["options"])
    return Model(schema, tuple(nodes), options, d["treegen_version"], d["data_fingerprint"])


def _dist_of(value: list[Any] | dict[str, list[Any]], n_classes: int) -> Dist:
    """A checked file's ``dist`` (a list of every weight, or the classes present)."""
    if isinstance(value, dict):
        w = tuple(float(x) for x in value["weights"])
        return SparseDist(n_classes, tuple(value["classes"]), w)
    return tuple(float(x) for x in value)


def save_model(model: Model, path: str | os.PathLike[str]) -> None:
    """Write ``model`` to ``path`` atomically (a failure leaves no partial file)."""
    write_text_atomic(path, model_to_json(model))


def load_model(path: str | os.PathLike[str]) -> Model:
    """Read and validate a model file."""
    return model_from_json(read_text(path), os.fspath(path))
