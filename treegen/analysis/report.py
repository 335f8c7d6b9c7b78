"""What a model is made of: ``treegen info``'s facts, computed from the model alone.

Attributes and how many tests use each, the depth and how many leaves sit
at each depth, the training options and the data fingerprint.  (The flash
estimate is codegen's: :func:`treegen.codegen.flash.estimate_flash`.)
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.model.core import Model


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
    width = max((len(n) for n in report.tests), default=0)
    for attr in model.schema.attributes:
        kind = attr.kind if attr.kind == "continuous" else f"nominal, {len(attr.values)} values"
        lines.append(f"  {attr.name:<{width}}  {report.tests[attr.name]:>4}  ({kind})")
    lines.append("leaves at depth:")
    most = max(report.leaves_at_depth.values(), default=1)
    for d, count in report.leaves_at_depth.items():
        bar = "#" * max(1, round(40 * count / most))
        lines.append(f"  {d:>4}  {count:>6}  {bar}")
    opts = ", ".join(f"{k}={v}" for k, v in report.options.items())
    lines.append(f"training options: {opts}")
    lines.append(f"data fingerprint: {report.fingerprint}")
    lines.append(f"trained by treegen {report.version}")
    return "\n".join(lines) + "\n"
