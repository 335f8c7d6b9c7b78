"""Print a model's tree in C4.5 Release 8's or Weka J48's text layout.

``treegen show`` exists so that a C4.5 or Weka user can diff treegen's tree
against the tool they know, so both layouts are reproduced character for
character (see ``tests/data/reference/*/c45r8.out`` and ``j48.out``):

* ``c45``: ``attr = value:``, ``attr <= t :`` / ``attr > t :`` with ``%g``
  thresholds, ``|   `` per level, leaves ``Class (N/E)`` with N and E to one
  decimal and ``/E`` only when E > 0.  At each node the branches that end in
  a leaf are printed first, then the branches holding subtrees, each group in
  branch order.  A subtree whose widest line would pass 80 columns is printed
  as ``[S1]`` and defined after the tree in a ``Subtree [S1]`` block.  E is
  the node's stored ``errors``: training errors in an unpruned tree,
  pessimistic estimates in a pruned one (as Release 8 prints them).
* ``j48``: ``attr = value`` / ``attr <= t`` with Weka's 6-decimal threshold
  format, branches in order, leaves ``: Class (N/E)`` with N and E rounded to
  two decimals, E being the training errors at the leaf, then the
  ``Number of Leaves`` / ``Size of the tree`` footer.

Both walk the flat node list with an explicit stack (no recursion), so trees
of any depth print.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal
from typing import Literal

from treegen.errors import UsageError
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest, Test

Style = Literal["c45", "j48"]
STYLES: tuple[str, ...] = ("c45", "j48")

_TAB = "|   "
_WIDTH = 80  # Release 8's approximate maximum width of a printed tree
_MAX_SUBTREES = 99  # Release 8 numbers at most 99 subtree blocks, then [S??]


def printed_schema(model: Model) -> Model:
    """``model`` with its schema's names as printouts show them
    (:meth:`~treegen.data.dataset.Schema.printed`)."""
    schema = model.schema.printed()
    return model if schema is model.schema else replace(model, schema=schema)


def is_pruned(model: Model) -> bool:
    """Whether ``model`` is a pruned tree (the trainer records ``prune``)."""
    return bool(model.options.training.prune)


def format_tree(model: Model, style: str = "c45", *, header: bool = True) -> str:
    """The tree as text in ``style`` ("c45" or "j48"), ending in a newline.

    With ``header`` the text is exactly the section the reference tool prints:
    ``Decision Tree:`` (unpruned) or ``Simplified Decision Tree:`` (pruned)
    for c45; ``J48 pruned tree`` / ``J48 unpruned tree`` plus the leaf and
    size footer for j48.  Without it, only the tree lines.
    """
    # Names print on one line (a value holding a newline would break the layout).
    model = printed_schema(model)
    if style == "c45":
        return _format_c45(model, header)
    if style == "j48":
        return _format_j48(model, header)
    raise UsageError(f"unknown tree format {style!r} (choose from c45, j48)", option="--format")


# --------------------------------------------------------------------- c45


def _c45_leaf(model: Model, node: Leaf) -> str:
    text = f" {model.schema.classes[node.cls]} ({node.items:.1f}"
    if node.errors > 0:
        text += f"/{node.errors:.1f}"
    return text + ")"


def _c45_subset_label(name: str, values: list[str], indent: str) -> str:
    """``name in {a,b,...}:`` wrapped like Release 8 when it passes 80 columns.

    A continuation line starts with the branch's ``indent`` and then lines up
    under the first value.
    """
    skip = width = len(name) + 5
    text = f"{name} in {{"
    first = True
    for i, value in enumerate(values):
        if not first and width + len(value) + 11 > _WIDTH:
            text += "\n" + indent + " " * skip
            width = skip
            first = True
        text += value + ("}" if i == len(values) - 1 else ",")
        width += len(value) + 1
        first = False
    return text + ":"


def _c45_branch_label(model: Model, node: Test, branch: int, indent: str) -> str | None:
    """The text before the child of ``branch``, or None when Release 8 omits it.

    A subset branch that holds no value is not printed at all.
    """
    attr = model.schema.attributes[node.attribute]
    if isinstance(node, NominalTest):
        return f"{attr.name} = {attr.values[branch]}:"
    if isinstance(node, ContinuousTest):
        op = "<=" if branch == 0 else ">"
        return f"{attr.name} {op} {node.threshold:g} :"
    values = sorted(node.subsets[branch])
    if not values:
        return None
    if len(values) == 1:
        return f"{attr.name} = {attr.values[values[0]]}:"
    return _c45_subset_label(attr.name, [attr.values[v] for v in values], indent)


def _c45_max_line(model: Model, node: Test) -> int:
    """Release 8's estimate of the widest line of ``node``'s own branches."""
    attr = model.schema.attributes[node.attribute]
    longest = 0
    for b, child in enumerate(node.children):
        if isinstance(node, ContinuousTest):
            width = 4 + 1
        else:
            # Release 8 indexes value names by branch number even for subset
            # tests; reproduce that so the [S] decisions agree.
            width = (len(attr.values[b]) if b < len(attr.values) else 0) + 1
        child_node = model.nodes[child]
        if isinstance(child_node, Leaf):
            width += len(model.schema.classes[child_node.cls]) + 6
        longest = max(longest, width)
    return len(attr.name) + 4 + longest


def _c45_show(model: Model, root: int, subtrees: list[int]) -> str:
    """The text Release 8's ``Show(root, 0)`` prints; appends to ``subtrees``.

    Every branch line starts with a newline, so the result starts with one
    unless ``root`` is a leaf.  Work items on the stack are either a node to
    show at a depth or a branch (node, branch number, depth) to print.
    """
    pieces: list[str] = []
    stack: list[tuple[int, int, int]] = [(root, -1, 0)]  # (node, branch or -1, depth)
    while stack:
        index, branch, depth = stack.pop()
        node = model.nodes[index]
        if branch >= 0:
            assert not isinstance(node, Leaf)  # only tests' branches are stacked
            indent = _TAB * depth
            label = _c45_branch_label(model, node, branch, indent)
            if label is not None:
                pieces.append("\n" + indent + label)
                stack.append((node.children[branch], -1, depth + 1))
            continue
        if isinstance(node, Leaf):
            pieces.append(_c45_leaf(model, node))
            continue
        if depth and depth * len(_TAB) + _c45_max_line(model, node) > _WIDTH:
            if len(subtrees) < _MAX_SUBTREES:
                subtrees.append(index)
                pieces.append(f"[S{len(subtrees)}]")
            else:
                pieces.append("[S??]")
            continue
        leaves = [b for b, c in enumerate(node.children) if isinstance(model.nodes[c], Leaf)]
        inner = [b for b, c in enumerate(node.children) if not isinstance(model.nodes[c], Leaf)]
        for b in reversed(leaves + inner):
            stack.append((index, b, depth))
    return "".join(pieces)


def _format_c45(model: Model, header: bool) -> str:
    subtrees: list[int] = []
    text = _c45_show(model, 0, subtrees) + "\n"
    done = 0
    while done < len(subtrees):  # showing a block may define further blocks
        block = subtrees[done]
        done += 1
        text += f"\n\nSubtree [S{done}]\n" + _c45_show(model, block, subtrees) + "\n"
    if not header:
        return text.lstrip("\n")
    title = "Simplified Decision Tree:" if is_pruned(model) else "Decision Tree:"
    return f"{title}\n{text}"


# --------------------------------------------------------------------- j48


def weka_double_to_string(value: float, digits: int = 6) -> str:
    """Weka's ``Utils.doubleToString(value, digits)``: rounded, zeros trimmed.

    The value is scaled by ``10**digits`` and rounded half away from zero to
    an integer, then printed with a decimal point and without trailing zeros
    (``75.0`` -> ``75``, ``0.50000001`` -> ``0.5``).
    """
    scaled = value * math.pow(10.0, digits)
    if not math.isfinite(scaled) or abs(scaled) >= 2.0**63:
        # Weka falls back to Java's Double.toString when the scaled value does not fit
        # a long (|value| >= 2**63 / 10**digits, 9.2e12 at 6 digits): "2.5E13", not
        # Python's "25000000000000.0" or "2.5e+99".
        return java_double(value)
    whole = int(scaled + 0.5) if scaled > 0 else -int(abs(scaled) + 0.5)
    sign = "-" if whole < 0 else ""
    magnitude = str(abs(whole)).rjust(digits + 1, "0")
    text = magnitude[:-digits] + "." + magnitude[-digits:] if digits else magnitude
    text = text.rstrip("0").rstrip(".") if digits else text
    return sign + text if text != "0" else "0"


def java_double(value: float) -> str:
    """Java's ``Double.toString`` for the values J48 prints in leaves.

    Plain notation with at least one decimal between 1e-3 and 1e7, Java's
    ``d.dddE±n`` form outside; digits are the shortest that round-trip.
    """
    if value == 0.0 or not math.isfinite(value):
        return "0.0" if value == 0.0 else repr(value)
    if 1e-3 <= abs(value) < 1e7:
        return repr(value)  # always has a '.' in this range
    _, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    mantissa = text[0] + "." + (text[1:] or "0")
    return ("-" if value < 0 else "") + f"{mantissa}E{len(text) - 1 + exponent}"


def _weka_round2(value: float) -> float:
    """Weka's ``Utils.roundDouble(value, 2)`` (``Math.round`` is floor(x+0.5), clamped to
    Java's long, so a weight beyond 9.2e16 prints as 9.223372036854776E16 there too)."""
    scaled = value * 100.0 + 0.5
    if scaled >= 2.0**63:
        return float(2**63 - 1) / 100.0
    if scaled < -(2.0**63):
        return float(-(2**63)) / 100.0
    return math.floor(scaled) / 100.0


def _j48_leaf(model: Model, node: Leaf, parent: Test | None = None, branch: int = 0) -> str:
    # J48 prints training errors at the leaf whatever the tree stores in
    # ``errors`` (a pruned c45 tree stores estimates there).
    cls, items = node.cls, node.items
    wrong = node.items - node.dist[node.cls] if node.dist else node.errors
    if parent is not None and parent.per_bag:
        # J48 prints a branch's leaf from its parent's counts (dumpLabel(branch)).
        cls, items, wrong = _bag_label(parent, branch)
    text = f"{model.schema.classes[cls]} ({java_double(_weka_round2(items))}"
    if wrong > 1e-6:  # Weka's Utils.gr(x, 0)
        text += f"/{java_double(_weka_round2(wrong))}"
    return text + ")"


def _bag_label(test: Test, b: int) -> tuple[int, float, float]:
    """``Distribution.dumpLabel(b)``'s class, weight and errors from a test's J48 counts:
    ``maxClass(b)`` (the test's ``maxClass()`` for a branch of no weight), ``perBag(b)``
    and ``numIncorrect(b)``."""
    row, weight = test.bag_dist[b], test.per_bag[b]
    if weight - 0.0 > 1e-6:
        cls, top = 0, 0.0
        for c, v in enumerate(row):
            if v - top > 1e-6:
                cls, top = c, v
    else:
        cls, top = 0, 0.0
        for c, v in enumerate(test.dist):
            if v - top > 1e-6:
                cls, top = c, v
    return cls, weight, weight - row[cls]


def _j48_branch_label(model: Model, node: Test, branch: int) -> str:
    attr = model.schema.attributes[node.attribute]
    if isinstance(node, NominalTest):
        return f"{attr.name} = {attr.values[branch]}"
    if isinstance(node, ContinuousTest):
        op = "<=" if branch == 0 else ">"
        return f"{attr.name} {op} {weka_double_to_string(node.threshold)}"
    names = [attr.values[v] for v in sorted(node.subsets[branch])]
    if len(names) == 1:
        return f"{attr.name} = {names[0]}"
    return f"{attr.name} in {{{','.join(names)}}}"


def _format_j48(model: Model, header: bool) -> str:
    pieces: list[str] = []
    root = model.nodes[0]
    if isinstance(root, Leaf):
        pieces.append(": " + _j48_leaf(model, root))
    stack: list[tuple[int, int, int]] = []  # (node, branch, depth)
    if not isinstance(root, Leaf):
        stack.extend((0, b, 0) for b in reversed(range(len(root.children))))
    while stack:
        index, branch, depth = stack.pop()
        node = model.nodes[index]
        assert not isinstance(node, Leaf)  # only tests' branches are stacked
        child_index = node.children[branch]
        child = model.nodes[child_index]
        pieces.append("\n" + _TAB * depth + _j48_branch_label(model, node, branch))
        if isinstance(child, Leaf):
            pieces.append(": " + _j48_leaf(model, child, node, branch))
        else:
            stack.extend((child_index, b, depth + 1) for b in reversed(range(len(child.children))))
    tree = "".join(pieces)
    if not header:
        return tree.lstrip("\n") + "\n"
    title = "J48 pruned tree" if is_pruned(model) else "J48 unpruned tree"
    return (
        f"{title}\n------------------\n{tree}\n\n"
        f"Number of Leaves  : \t{model.n_leaves}\n\nSize of the tree : \t{model.size}\n"
    )
