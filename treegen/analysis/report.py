"""What a model is made of: ``treegen info``'s facts, from the file alone.

Attributes and how many tests use each, the depth and how many leaves sit
at each depth, the training options and the data fingerprint; the line
formats (:func:`attribute_lines`, :func:`bars`, :func:`provenance_lines`) are
shared with a ruleset's report (treegen.rules.show).  (The flash estimate is
codegen's: :func:`treegen.codegen.flash.estimate_flash`.)
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.data.dataset import Attribute, Schema, printed_name
from treegen.model.core import Leaf, Model


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
        if isinstance(node, Leaf):
            at[depth[i]] = at.get(depth[i], 0) + 1
        else:
            tests[model.schema.attributes[node.attribute].name] += 1
    return ModelReport(
        len(model.nodes),
        model.n_leaves,
        model.depth(),
        tests,
        dict(sorted(at.items())),
        model.options.as_dict(),
        model.data_fingerprint,
        model.treegen_version,
    )


def format_report(model: Model, report: ModelReport) -> str:
    """The report as text (without the flash estimate, which the caller appends)."""
    lines = [
        f"nodes {report.nodes}, leaves {report.leaves}, depth {report.depth}",
        f"classes ({len(model.schema.classes)}): {class_list(model.schema)}",
        "attributes (tests on each):",
    ]
    lines += attribute_lines(model.schema, report.tests)
    lines.append("leaves at depth:")
    lines += bars(report.leaves_at_depth)
    lines += provenance_lines(
        report.options, report.fingerprint, f"trained by treegen {report.version}"
    )
    return "\n".join(lines) + "\n"


def class_list(schema: Schema) -> str:
    """The class names, comma-separated, each as printouts show it (on one line)."""
    return ", ".join(printed_name(c) for c in schema.classes)


def attribute_lines(schema: Schema, tests: dict[str, int]) -> list[str]:
    """One line per attribute: its name (as printouts show it), how many tests use it,
    its kind."""
    width = max((len(printed_name(n)) for n in tests), default=0)
    out = []
    for attr in schema.attributes:
        out.append(f"  {printed_name(attr.name):<{width}}  {tests[attr.name]:>4}  ({_kind(attr)})")
    return out


def _kind(attr: Attribute) -> str:
    """An attribute's kind as info prints it: an ignored one (``--ignore``, a C4.5
    ``ignore`` entry) holds no values, so is not a nominal one of 0 values."""
    if attr.kind == "nominal":
        k = len(attr.values)
        return f"nominal, {k} value{'' if k == 1 else 's'}"
    return "ignored" if attr.kind == "ignore" else attr.kind


def bars(counts: dict[int, int]) -> list[str]:
    """A bar per count, the longest 40 characters."""
    most = max(counts.values(), default=1)
    return [f"  {k:>4}  {n:>6}  {'#' * max(1, round(40 * n / most))}" for k, n in counts.items()]


def provenance_lines(
    options: dict[str, object], fingerprint: str, made: str, heading: str = "training options"
) -> list[str]:
    """The options under ``heading`` (an imported model's are its importer's record, not
    training options), the data fingerprint and who made it."""
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    return [f"{heading}: {opts}", f"data fingerprint: {fingerprint}", made]
