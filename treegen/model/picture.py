"""The tree as a picture: Graphviz DOT text, and rendering it with Graphviz's ``dot``.

One box per node (``n0`` is the root, numbered as in the model file): a test
node shows its attribute, a leaf its class; both show the class distribution
and ``N/E`` (the node's training weight and stored errors, as ``treegen show``
prints them).  Leaves are filled with their class's colour; each edge is
labelled with its branch's test (``= value``, ``<= t``, ``> t``, ``in {..}``).
Thresholds are printed as ``treegen show`` prints them for the model's flavour.

With ``max_depth`` only the top of the tree is drawn: a test node at that depth ends
the picture, dashed, its label saying what was cut below it.  Graph attributes
(``rankdir=LR``, ``ratio=...``: :mod:`treegen.model.picture_layout` picks them for a
large tree) go in at the top of the graph.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from treegen.data.atomic import check_folder, write_bytes_atomic
from treegen.errors import UsageError
from treegen.model.core import ContinuousTest, Leaf, Model, Node, NominalTest, Test
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
    if model.options.flavor == "j48":
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
    if isinstance(node, Leaf):
        head = model.schema.classes[node.cls]
    else:
        head = model.schema.attributes[node.attribute].name
    return f"{head}\n{_counts(model, node)}"


def edge_label(model: Model, node: Test, branch: int) -> str:
    """The test on the edge from ``node`` to its child ``branch``."""
    attr = model.schema.attributes[node.attribute]
    if isinstance(node, ContinuousTest):
        return f"{'<=' if branch == 0 else '>'} {_number(model, node.threshold)}"
    if isinstance(node, NominalTest):
        return f"= {attr.values[branch]}"
    values = sorted(node.subsets[branch])
    if len(values) == 1:
        return f"= {attr.values[values[0]]}"
    return "in {" + ", ".join(attr.values[v] for v in values) + "}"


def depths(model: Model) -> list[int]:
    """Each node's depth (the root's is 0)."""
    depth = [0] * len(model.nodes)
    for i, n in enumerate(model.nodes):  # pre-order: a parent comes before its children
        for c in n.children:
            depth[c] = depth[i] + 1
    return depth


def _below(model: Model) -> list[tuple[int, int, int]]:
    """Per node: the tests and leaves below it (itself not counted) and how many levels
    its subtree goes down."""
    out = [(0, 0, 0)] * len(model.nodes)
    for i in reversed(range(len(model.nodes))):  # children (later in pre-order) first
        tests = leaves = levels = 0
        for c in model.nodes[i].children:
            t, f, h = out[c]
            leaf = isinstance(model.nodes[c], Leaf)
            tests, leaves = tests + t + (not leaf), leaves + f + leaf
            levels = max(levels, h + 1)
        out[i] = (tests, leaves, levels)
    return out


def cut_note(tests: int, leaves: int, levels: int) -> str:
    """What a node cut by ``max_depth`` hides: the line added to its label."""
    return (
        f"cut: {tests} test{'' if tests == 1 else 's'}, "
        f"{leaves} {'leaf' if leaves == 1 else 'leaves'} "
        f"in {levels} level{'' if levels == 1 else 's'} below"
    )


def format_dot(model: Model, *, max_depth: int | None = None, graph: Sequence[str] = ()) -> str:
    """The tree as a Graphviz digraph, ending in a newline: the nodes down to depth
    ``max_depth`` (all by default), ``graph`` attributes (``key=value``) first."""
    depth = depths(model)
    shown = [max_depth is None or d <= max_depth for d in depth]
    below = _below(model) if max_depth is not None else []
    lines = [
        "digraph tree {",
        *(f"  {attribute};" for attribute in graph),
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
    ]
    for i, node in enumerate(model.nodes):
        if not shown[i]:
            continue
        label = node_label(model, node)
        leaf = isinstance(node, Leaf)
        extra = f", fillcolor={_quote(PALETTE[node.cls % len(PALETTE)])}" if leaf else ""
        if not leaf and depth[i] == max_depth:
            label += "\n" + cut_note(*below[i])
            extra = ', style="rounded,filled,dashed"'
        lines.append(f"  n{i} [label={_quote(label)}{extra}];")
    for i, node in enumerate(model.nodes):
        if isinstance(node, Leaf):
            continue
        for b, child in enumerate(node.children):
            if shown[child]:
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


def dot_program(dot: str | None = None) -> str:
    """The Graphviz program to run: ``dot`` (``--dot``'s, which must run), else ``dot``
    on PATH; without it the error names the Debian package to install."""
    if dot is not None and shutil.which(dot) is None:
        raise UsageError(f"'{dot}' is not a program that can be run", option="--dot")
    program = dot or shutil.which("dot")
    if program is None or shutil.which(program) is None:
        raise UsageError(
            f"Graphviz's 'dot' is not installed (Debian: apt-get install {GRAPHVIZ_PACKAGE})",
            option="plot",
        )
    return program


def dot_option(dot: str | None) -> str:
    """What an error of the Graphviz program names: ``--dot`` for the user's program
    (``dot``), else ``plot``."""
    return "plot" if dot is None else "--dot"


def run_dot(program: str, fmt: str, dot_text: str, option: str = "plot") -> bytes:
    """What ``program -Tfmt`` writes for ``dot_text``; a failure is a one-line error
    naming ``option`` (:func:`dot_option`)."""
    done = subprocess.run(
        [program, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(
            f"{program} failed (exit {done.returncode}): {(lines or ['no message'])[0]}",
            option=option,
        )
    return done.stdout


def render(
    dot_text: str, out_path: str | os.PathLike[str], fmt: str, dot: str | None = None
) -> None:
    """Render ``dot_text`` with Graphviz's ``dot`` (:func:`dot_program`: ``dot`` is
    ``--dot``'s program) into ``out_path`` (atomically)."""
    program, option = dot_program(dot), dot_option(dot)
    target = Path(out_path)
    check_folder(target.parent, str(target))  # before dot runs ("folder 'afile' does not exist")
    picture = run_dot(program, fmt, dot_text, option)
    if not picture:
        raise UsageError(f"{program} wrote no picture", option=option)
    write_bytes_atomic(target, picture)
