"""The tree as a picture: Graphviz DOT text, and rendering it with Graphviz's ``dot``.

One box per node (``n0`` is the root, numbered as in the model file): a test
node shows its attribute, a leaf its class; both show the class distribution
and ``N/E`` (the node's training weight and stored errors, as ``treegen show``
prints them).  Leaves are filled with their class's colour; each edge is
labelled with its branch's test (``= value``, ``<= t``, ``> t``, ``in {..}``).
Thresholds are printed as ``treegen show`` prints them for the model's flavour.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from treegen.data.atomic import write_bytes_atomic
from treegen.errors import UsageError
from treegen.model.core import Model, Node
from treegen.model.show import weka_double_to_string

# Light fills that keep black text readable; class i takes colour i mod len.
PALETTE: tuple[str, ...] = (
    "#a6cee3",
    "#b2df8a",
    "#fb9a99",
    "#fdbf6f",
    "#cab2d6",
    "#ffff99",
    "#8dd3c7",
    "#bebada",
    "#fccde5",
    "#d9d9d9",
    "#ccebc5",
    "#ffed6f",
)
# What ``treegen plot -o FILE`` renders, by FILE's extension.
PLOT_FORMATS: tuple[str, ...] = ("svg", "png", "pdf")
GRAPHVIZ_PACKAGE = "graphviz"  # the Debian package that provides dot


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become DOT's centred line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _number(model: Model, value: float) -> str:
    if model.options.get("flavor") == "j48":
        return weka_double_to_string(value)
    return f"{value:g}"


def _counts(model: Model, node: Node) -> str:
    dist = ", ".join(
        f"{c}: {w:g}" for c, w in zip(model.schema.classes, node.dist, strict=True) if w > 0
    )
    ne = f"{node.items:.1f}" + (f"/{node.errors:.1f}" if node.errors > 0 else "")
    return f"[{dist}]\n({ne})" if dist else f"({ne})"


def node_label(model: Model, node: Node) -> str:
    """The text in a node's box."""
    if node.is_leaf:
        head = model.schema.classes[node.cls]
    else:
        head = model.schema.attributes[node.attribute].name
    return f"{head}\n{_counts(model, node)}"


def edge_label(model: Model, node: Node, branch: int) -> str:
    """The test on the edge from ``node`` to its child ``branch``."""
    attr = model.schema.attributes[node.attribute]
    if node.kind == "continuous":
        return f"{'<=' if branch == 0 else '>'} {_number(model, node.threshold)}"
    if node.kind == "nominal":
        return f"= {attr.values[branch]}"
    values = sorted(node.subsets[branch])
    if len(values) == 1:
        return f"= {attr.values[values[0]]}"
    return "in {" + ", ".join(attr.values[v] for v in values) + "}"


def format_dot(model: Model) -> str:
    """The tree as a Graphviz digraph, ending in a newline."""
    lines = [
        "digraph tree {",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
    ]
    for i, node in enumerate(model.nodes):
        fill = f", fillcolor={_quote(PALETTE[node.cls % len(PALETTE)])}" if node.is_leaf else ""
        lines.append(f"  n{i} [label={_quote(node_label(model, node))}{fill}];")
    for i, node in enumerate(model.nodes):
        for b, child in enumerate(node.children):
            lines.append(f"  n{i} -> n{child} [label={_quote(edge_label(model, node, b))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def plot_format(path: str) -> str:
    """The output format named by ``path``'s extension."""
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise UsageError(
            f"cannot tell the picture format from '{path}' (use .{', .'.join(PLOT_FORMATS)})",
            option="-o",
        )
    return ext


def render(
    dot_text: str, out_path: str | os.PathLike[str], fmt: str, dot: str | None = None
) -> None:
    """Render ``dot_text`` with Graphviz's ``dot`` into ``out_path`` (atomically).

    ``dot`` is the program (default: ``dot`` on PATH); without it the error
    names the Debian package to install.
    """
    program = dot or shutil.which("dot")
    if program is None or shutil.which(program) is None:
        raise UsageError(
            f"Graphviz's 'dot' is not installed (Debian: apt-get install {GRAPHVIZ_PACKAGE})",
            option="plot",
        )
    target = Path(out_path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"folder '{folder}' does not exist", option="-o")
    done = subprocess.run(
        [program, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(
            f"dot failed (exit {done.returncode}): {(lines or ['no message'])[0]}", option="plot"
        )
    if not done.stdout:
        raise UsageError(f"{program} wrote no picture", option="plot")
    write_bytes_atomic(target, done.stdout)
