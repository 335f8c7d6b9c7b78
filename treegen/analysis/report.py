"""What a model or ruleset is made of: ``treegen info``'s facts, from the file alone.

Attributes and how many tests use each, the depth and how many leaves sit
at each depth (a ruleset: its rules per class and conditions per rule), the
training options and the data fingerprint.  (The flash estimate is
codegen's: :func:`treegen.codegen.flash.estimate_flash`.)
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.data.dataset import Schema
from treegen.model.core import Model
from treegen.rules.core import RuleSet


@dataclass(frozen=True, slots=True)
class ModelReport:
    nodes: int
    leaves: int
    depth: int
    tests: dict[str, int]  # attribute name -> number of test nodes on it, schema order
    leaves_at_depth: dict[int, int]  # depth -> leaves at that depth, ascending
    options: dict[str, object]
    fingerprint: str
    version: str


def model_report(model: Model) -> ModelReport:
    tests = {a.name: 0 for a in model.schema.attributes}
    depth = [0] * len(model.nodes)
    at: dict[int, int] = {}
    for i, node in enumerate(model.nodes):  # pre-order: a parent before its children
        for c in node.children:
            depth[c] = depth[i] + 1
        if node.is_leaf:
            at[depth[i]] = at.get(depth[i], 0) + 1
        else:
            tests[model.schema.attributes[node.attribute].name] += 1
    return ModelReport(
        len(model.nodes),
        model.n_leaves,
        model.depth(),
        tests,
        dict(sorted(at.items())),
        dict(model.options),
        model.data_fingerprint,
        model.treegen_version,
    )


def format_report(model: Model, report: ModelReport) -> str:
    """The report as text (without the flash estimate, which the caller appends)."""
    lines = [
        f"nodes {report.nodes}, leaves {report.leaves}, depth {report.depth}",
        f"classes ({len(model.schema.classes)}): {', '.join(model.schema.classes)}",
        "attributes (tests on each):",
    ]
    lines += _attribute_lines(model.schema, report.tests)
    lines.append("leaves at depth:")
    lines += _bars(report.leaves_at_depth)
    lines += _provenance(report.options, report.fingerprint, f"trained by treegen {report.version}")
    return "\n".join(lines) + "\n"


def format_ruleset_report(rs: RuleSet) -> str:
    """A ruleset's facts: rules and conditions, rules per class, conditions on each
    attribute and per rule, the options and the data fingerprint."""
    classes = rs.schema.classes
    n_conditions = sum(len(r.conditions) for r in rs.rules)
    lines = [
        f"rules {len(rs.rules)}, conditions {n_conditions}, default class {classes[rs.default]}",
        f"classes ({len(classes)}): {', '.join(classes)}",
        "rules per class:",
    ]
    width = max(len(c) for c in classes)
    for k, name in enumerate(classes):
        lines.append(f"  {name:<{width}}  {sum(r.cls == k for r in rs.rules):>4}")
    tests = {a.name: 0 for a in rs.schema.attributes}
    sizes: dict[int, int] = {}
    for r in rs.rules:
        for c in r.conditions:
            tests[rs.schema.attributes[c.attribute].name] += 1
        sizes[len(r.conditions)] = sizes.get(len(r.conditions), 0) + 1
    lines.append("attributes (conditions on each):")
    lines += _attribute_lines(rs.schema, tests)
    lines.append("rules with N conditions:")
    lines += _bars(dict(sorted(sizes.items())))
    lines += _provenance(rs.options, rs.data_fingerprint, f"made by treegen {rs.treegen_version}")
    return "\n".join(lines) + "\n"


def _attribute_lines(schema: Schema, tests: dict[str, int]) -> list[str]:
    width = max((len(n) for n in tests), default=0)
    out = []
    for attr in schema.attributes:
        kind = attr.kind if attr.kind == "continuous" else f"nominal, {len(attr.values)} values"
        out.append(f"  {attr.name:<{width}}  {tests[attr.name]:>4}  ({kind})")
    return out


def _bars(counts: dict[int, int]) -> list[str]:
    most = max(counts.values(), default=1)
    return [f"  {k:>4}  {n:>6}  {'#' * max(1, round(40 * n / most))}" for k, n in counts.items()]


def _provenance(options: dict[str, object], fingerprint: str, made: str) -> list[str]:
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    return [f"training options: {opts}", f"data fingerprint: {fingerprint}", made]
