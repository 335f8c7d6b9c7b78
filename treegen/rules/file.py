"""The ruleset file (``treegen rules -o RULES``): JSON beside ``model.tree``, validated on load.

Layout (format ``treegen-rules``, version 1)::

    {
      "format": "treegen-rules",
      "version": 1,
      "treegen_version": "0.1.0",
      "data_fingerprint": "sha256:...",
      "options": {"cf": 0.25, "min_cases": 2},
      "flavor": "c45",
      "target": "class",
      "classes": ["good", "bad"],
      "attributes": [
        {"name": "duration", "kind": "continuous"},
        ...
      ],
      "class_order": [0, 1],
      "default": 0,
      "rules": [
        {"number": 6, "class": 0, "error": 0.0697..., "confidence": 0.9302...,
         "conditions": [{"attribute": 1, "op": ">", "threshold": 2.5,
                         "threshold_hex": "0x1.4000000000000p+1"}, ...]},
        ...
      ]
    }

Rules are listed in the order they are tried (the first whose conditions all
hold gives the class, else ``default``), one per line; ``number`` is the rule's
number as c4.5rules prints it.  A condition is ``=`` with a value code,
``in`` with a list of codes, or ``<=``/``>`` with a threshold written as in
model files (shortest ``repr`` and ``float.hex()``, which must agree); in the
c45 flavour a threshold must be a float32 value, since values are rounded to
float32 before the comparison.  ``error`` is the rule's pessimistic error
rate on the training data and ``confidence`` is ``1 - error`` (what
c4.5rules prints as ``[p%]``), checked to agree; ``class_order`` lists the
classes in the order their rules come, and each class's rules must be
together.  Errors are one-line :class:`~treegen.errors.ModelFileError`\\ s
naming the field and its line, as for model files.
"""

from __future__ import annotations

import json
import os
from typing import Any

from treegen.data.atomic import write_text_atomic
from treegen.data.dataset import Attribute, Schema
from treegen.model.check import (
    InvalidField,
    as_int,
    as_object,
    check_header,
    check_keys,
    check_schema,
    check_threshold,
)
from treegen.model.file import attribute_lines
from treegen.model.jsontext import decode_json, field_error, read_text
from treegen.rules.core import OPS, Condition, Rule, RuleSet

FORMAT = "treegen-rules"
VERSION = 1
FLAVORS = ("c45", "j48")

_TOP = {
    "format",
    "version",
    "treegen_version",
    "data_fingerprint",
    "options",
    "flavor",
    "target",
    "classes",
    "attributes",
    "class_order",
    "default",
    "rules",
}
_RULE_KEYS = {"number", "class", "error", "confidence", "conditions"}
_COND_KEYS = {
    "=": {"attribute", "op", "value"},
    "in": {"attribute", "op", "values"},
    "<=": {"attribute", "op", "threshold", "threshold_hex"},
    ">": {"attribute", "op", "threshold", "threshold_hex"},
}


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _condition_dict(c: Condition) -> dict[str, object]:
    d: dict[str, object] = {"attribute": c.attribute, "op": c.op}
    if c.op == "=":
        d["value"] = c.value
    elif c.op == "in":
        d["values"] = list(c.values)
    else:
        d["threshold"] = c.threshold
        d["threshold_hex"] = c.threshold.hex()
    return d


def _rule_dict(r: Rule) -> dict[str, object]:
    return {
        "number": r.number,
        "class": r.cls,
        "error": r.error,
        "confidence": 1.0 - r.error,
        "conditions": [_condition_dict(c) for c in r.conditions],
    }


def ruleset_to_json(rs: RuleSet) -> str:
    """The ruleset file text (deterministic: the same ruleset gives the same bytes)."""
    s = rs.schema
    attrs = attribute_lines(s)
    lines = [
        "{",
        f'  "format": {_dumps(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "treegen_version": {_dumps(rs.treegen_version)},',
        f'  "data_fingerprint": {_dumps(rs.data_fingerprint)},',
        f'  "options": {_dumps(rs.options)},',
        f'  "flavor": {_dumps(rs.flavor)},',
        f'  "target": {_dumps(s.target)},',
        f'  "classes": {_dumps(list(s.classes))},',
        '  "attributes": [',
        ",\n".join(attrs),
        "  ],",
        f'  "class_order": {_dumps(list(rs.class_order))},',
        f'  "default": {rs.default},',
        '  "rules": [',
        ",\n".join("    " + _dumps(_rule_dict(r)) for r in rs.rules),
        "  ]",
        "}",
    ]
    return "\n".join(line for line in lines if line) + "\n"


def _condition(c: Any, f: str, attrs: list[dict[str, Any]], float32: bool) -> Condition:
    d = as_object(c, f)
    op = d.get("op")
    if op not in OPS:
        raise InvalidField(f"{f}.op", f"must be one of {', '.join(repr(o) for o in OPS)}")
    check_keys(d, _COND_KEYS[op], f)
    a = as_int(d["attribute"], f"{f}.attribute", 0, len(attrs))
    kind = attrs[a]["kind"]
    want = "nominal" if op in ("=", "in") else "continuous"
    if kind != want:
        raise InvalidField(
            f"{f}.attribute",
            f"'{op}' needs a {want} attribute, '{attrs[a]['name']}' is {kind}",
        )
    if op == "=":
        return Condition(a, "=", value=as_int(d["value"], f"{f}.value", 0, len(attrs[a]["values"])))
    if op == "in":
        values = d["values"]
        if not isinstance(values, list) or not values:
            raise InvalidField(f"{f}.values", "must be a non-empty list of value indices")
        codes = [
            as_int(v, f"{f}.values[{k}]", 0, len(attrs[a]["values"])) for k, v in enumerate(values)
        ]
        if len(set(codes)) != len(codes):
            raise InvalidField(f"{f}.values", "lists a value twice")
        return Condition(a, "in", values=tuple(codes))
    return Condition(a, op, threshold=check_threshold(d, f, float32))


def _rule(r: Any, i: int, attrs: list[dict[str, Any]], n_classes: int, float32: bool) -> Rule:
    f = f"rules[{i}]"
    d = as_object(r, f)
    check_keys(d, _RULE_KEYS, f)
    number = as_int(d["number"], f"{f}.number", 1, 2**31)
    cls = as_int(d["class"], f"{f}.class", 0, n_classes)
    error, conf = d["error"], d["confidence"]
    for name, x in (("error", error), ("confidence", conf)):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x <= 1:
            raise InvalidField(f"{f}.{name}", "must be a number from 0 to 1")
    if float(conf) != 1.0 - float(error):
        raise InvalidField(f"{f}.confidence", f"{conf!r} is not 1 - error ({1.0 - error!r})")
    conds = d["conditions"]
    if not isinstance(conds, list):
        raise InvalidField(f"{f}.conditions", "must be a list")
    out = tuple(_condition(c, f"{f}.conditions[{k}]", attrs, float32) for k, c in enumerate(conds))
    return Rule(number, out, cls, float(error))


def check_ruleset_dict(data: Any) -> RuleSet:
    """The :class:`RuleSet` of a decoded ruleset file; :class:`InvalidField` if anything
    in it is wrong."""
    d = check_header(data, FORMAT, VERSION, "ruleset")
    check_keys(d, _TOP, "")
    classes, attrs = check_schema(d)
    flavor = d["flavor"]
    if flavor not in FLAVORS:
        raise InvalidField("flavor", f"must be one of {', '.join(FLAVORS)}")
    n = len(classes)
    default = as_int(d["default"], "default", 0, n)
    rules_in = d["rules"]
    if not isinstance(rules_in, list):
        raise InvalidField("rules", "must be a list")
    rules = tuple(_rule(r, i, attrs, n, flavor == "c45") for i, r in enumerate(rules_in))
    seen: set[int] = set()  # a set: a list's look-ups made large rulesets quadratic
    for i, r in enumerate(rules):
        if r.number in seen:
            raise InvalidField(f"rules[{i}].number", f"rule {r.number} is listed twice")
        seen.add(r.number)
    order = d["class_order"]
    if not isinstance(order, list):
        raise InvalidField("class_order", "must be a list of class indices")
    order = [as_int(c, f"class_order[{k}]", 0, n) for k, c in enumerate(order)]
    got = list(dict.fromkeys(r.cls for r in rules))
    if order != got:
        raise InvalidField(
            "class_order",
            f"is {order}, but the rules' classes come in the order {got} "
            "(each class's rules are listed together)",
        )
    schema = Schema(
        tuple(Attribute(a["name"], a["kind"], tuple(a.get("values", ()))) for a in attrs),
        tuple(classes),
        d["target"],
    )
    return RuleSet(
        schema,
        rules,
        default,
        dict(d["options"]),
        d["treegen_version"],
        d["data_fingerprint"],
        flavor,
    )


def ruleset_from_json(text: str, filename: str = "<rules>") -> RuleSet:
    """Parse and validate ruleset file text; raise :class:`ModelFileError` on anything wrong."""
    return ruleset_from_data(decode_json(text, filename, "treegen ruleset"), text, filename)


def ruleset_from_data(data: Any, text: str, filename: str) -> RuleSet:
    """Validate the decoded ruleset file ``data`` (of file text ``text``, for the line an
    error names) and build the RuleSet."""
    try:
        return check_ruleset_dict(data)
    except InvalidField as err:
        raise field_error(err, text, filename) from None


def save_ruleset(rs: RuleSet, path: str | os.PathLike[str]) -> None:
    """Write ``rs`` to ``path`` atomically (a failure leaves no partial file)."""
    write_text_atomic(path, ruleset_to_json(rs))


def load_ruleset(path: str | os.PathLike[str]) -> RuleSet:
    """Read and validate a ruleset file."""
    return ruleset_from_json(read_text(path, "ruleset"), os.fspath(path))
