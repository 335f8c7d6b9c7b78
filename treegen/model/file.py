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
pre-order tree shape, finite numbers, JSON nested at most :data:`MAX_NESTING`
levels: the node list is flat, so a deep tree nests no deeper) and raises a
one-line :class:`~treegen.errors.ModelFileError` naming the field.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from array import array
from typing import Any

import numpy as np

from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Attribute, Schema
from treegen.data.readers.text import read_bytes
from treegen.errors import ModelFileError
from treegen.model.check import InvalidField, check_model_dict
from treegen.model.core import ContinuousTest, Leaf, Model, Node, SubsetTest, make_node
from treegen.model.dist import Dist, SparseDist
from treegen.model.options import options_from_dict

FORMAT = "treegen-model"
VERSION = 1

__all__ = [
    "FORMAT",
    "VERSION",
    "decode_json",
    "field_error",
    "load_model",
    "model_from_data",
    "model_from_json",
    "model_to_json",
    "read_text",
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
    :data:`MANY_CLASSES` classes, no J48 bags): json.dumps made an encoder per node, a
    third of the writing.  Only numbers of Python's own ``int`` and finite floats (any
    ``float``, written by ``float.__repr__`` as json writes them); for anything else
    None, and :func:`_dumps` writes the node (or refuses it)."""
    dist = n.dist
    if isinstance(n, SubsetTest) or isinstance(dist, SparseDist) or len(dist) >= MANY_CLASSES:
        return None
    items, errors, weights = float(n.items), float(n.errors), [float(x) for x in dist]
    # A sum of floats is finite only if every one is (inf - inf is NaN).
    if (
        type(i) is not int
        or type(n.cls) is not int
        or not math.isfinite(items + errors + sum(weights))
    ):
        return None
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
        f'"errors": {float.__repr__(errors)}, "dist": ['
        + ", ".join(map(float.__repr__, weights))
        + "]}"
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


# How deep JSON arrays and objects may nest.  treegen writes 4 levels (file, nodes,
# node, subsets); the limit keeps a hostile file from reaching Python's recursion limit
# in the JSON decoder, or later where ``options`` is written back (it is free-form).
MAX_NESTING = 64
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _nesting(value: object) -> int:
    """How deep arrays and objects nest in a decoded JSON value (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _over_nesting(text: str, filename: str) -> ModelFileError | None:
    """The error for JSON nested beyond MAX_NESTING, at the first bracket that goes over;
    None if ``text`` never goes over."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                return ModelFileError(
                    f"not a treegen model: JSON nested more than {MAX_NESTING} levels deep",
                    file=filename,
                    line=line,
                    col=col,
                )
        elif c in "]}":
            depth -= 1
    return None


def _too_deep(text: str, filename: str) -> ModelFileError:
    """:func:`_over_nesting`'s error; only where the decoder gave up below the limit (a
    deep call stack already), one without a position."""
    err = _over_nesting(text, filename)
    return err or ModelFileError("not a treegen model: JSON nested too deeply", file=filename)


# What json.loads refuses without a position: a non-finite constant, a huge integer.
_BAD_NUMBER = re.compile(r'(?<![\w".])(?:-?Infinity|NaN)(?![\w"])|\d{4301,}')


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


# The lists written one object per line, and the key each object starts with.
_FIRST_KEY = {"nodes": "id", "attributes": "name", "rules": "number"}


def _field_line(text: str, field: str) -> int | None:
    """Best-effort line of the field an error names, for the FILE:LINE prefix."""
    m = re.match(r"(\w+)(?:\[(\d+)\])?", field)
    if not m:
        return None
    key, index = m.group(1), m.group(2)
    if key in _FIRST_KEY and index is not None:
        # The index-th object of the list (its "id" may be the very thing that is wrong).
        first = _FIRST_KEY[key]
        found = [x.start() for x in re.finditer(rf'\{{\s*"{first}"\s*:', text)]
        pos = found[int(index)] if int(index) < len(found) else -1
        return text.count("\n", 0, pos) + 1 if pos >= 0 else None
    else:
        pat = rf'"{re.escape(key)}"\s*:'
    hit = re.search(pat, text)
    return text.count("\n", 0, hit.start()) + 1 if hit else None


def decode_json(text: str, filename: str, what: str = "treegen model") -> Any:
    """The JSON value of a treegen file's text; :class:`ModelFileError` (with the line and
    column) for an empty, truncated or malformed file, a non-finite number or JSON nested
    beyond :data:`MAX_NESTING` (``what`` names the kind of file in the message)."""
    if not text.strip():
        raise ModelFileError(f"empty file: not a {what}", file=filename, line=1)
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        # Nesting beyond the limit is that error wherever the decoder stops: Python
        # 3.11's decoder gives up on deep nesting with a RecursionError, 3.13's reads on.
        over = _over_nesting(text[: err.pos + 1], filename)
        if over is not None:
            raise over from None
        # A file cut short (interrupted copy, full disk) lacks the closing brace; one
        # that does not even start like JSON is some other kind of file.
        if not text.lstrip("\ufeff \t\r\n").startswith(("{", "[")):
            kind = f"not a {what} (not JSON)"
        elif text.rstrip().endswith("}"):
            kind = "not valid JSON"
        else:
            kind = "truncated file"
        raise ModelFileError(
            f"{kind}: {err.msg}", file=filename, line=err.lineno, col=err.colno
        ) from None
    except ValueError as err:
        # NaN/Infinity (refused by _reject_constant) or a number of more digits than
        # int() converts: the decoder gives no position, so find the token.
        bad = _BAD_NUMBER.search(text)
        msg = (
            str(err)
            if "digits" not in str(err)
            else f"a number has more than {sys.get_int_max_str_digits()} digits"
        )
        raise ModelFileError(
            f"not valid JSON: {msg}",
            file=filename,
            line=text.count("\n", 0, bad.start()) + 1 if bad else None,
            col=bad.start() - text.rfind("\n", 0, bad.start()) if bad else None,
        ) from None
    except RecursionError:
        raise _too_deep(text, filename) from None
    # Every other field's shape is checked by the caller; "options" is free-form JSON, and
    # a value that is no object at all may nest as deep as a decoder will read.
    deep = 1 + _nesting(data.get("options")) if isinstance(data, dict) else _nesting(data)
    if deep > MAX_NESTING:
        raise _too_deep(text, filename)
    return data


def field_error(err: InvalidField, text: str, filename: str) -> ModelFileError:
    """The one-line error for a field :mod:`treegen.model.check` found wrong, at its line.

    A field that cannot be found (missing, or the whole file) is the top-level
    object's, which starts on line 1.
    """
    return ModelFileError(
        f"{err.field}: {err.message}" if err.field else err.message,
        file=filename,
        line=_field_line(text, err.field) or 1,
    )


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


def read_text(path: str | os.PathLike[str], what: str = "model") -> str:
    """The UTF-8 text of a treegen file (``what``: model or ruleset, for the messages)."""
    name = os.fspath(path)
    raw = read_bytes(
        name, ModelFileError, f"no such {what} file", f"is a folder, not a {what} file"
    )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise ModelFileError(
            f"not a treegen {what} (not UTF-8 text)", file=name, line=line
        ) from None


def load_model(path: str | os.PathLike[str]) -> Model:
    """Read and validate a model file."""
    return model_from_json(read_text(path), os.fspath(path))
