"""The canonical, order-free form of a printed decision tree, and walks over it.

Release 8 and J48 print the same tree in different branch orders and layouts, so
the golden and differential tests compare values instead of text:

* :class:`Leaf` (class name, N, E as printed strings),
* :class:`Split` (attribute name and its branches sorted by operator and
  value, each branch an operator, a value string and a subtree).

tests/support/refparse.py builds these from the tools' output, tests/support/reftrees.py from a
treegen model; reftrees is the module the tests import.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

Style = Literal["c45", "j48"]


@dataclass(frozen=True)
class Leaf:
    """A leaf: class name, N (cases) and E (errors) as printed."""

    cls: str
    n: str
    e: str

    def __str__(self) -> str:
        return f"{self.cls} ({self.n}/{self.e})"


@dataclass(frozen=True)
class Branch:
    """One outcome of a test: ``attr OP value`` leading to ``child``."""

    op: str
    value: str
    child: Tree


@dataclass(frozen=True)
class Split:
    """A test on ``attribute``; ``branches`` sorted by (op, value), so order-free."""

    attribute: str
    branches: tuple[Branch, ...]


Tree = Leaf | Split


# Release 8 prints at most 99 subtree blocks; a subtree that would be the 100th is
# shown as "[S??]" and never printed (docs/RELEASE8_BUGS.md item 7).  A parsed
# Release 8 tree holds this leaf in its place.
UNPRINTED = Leaf("[S??]", "?", "?")


class ParseError(ValueError):
    """A printed tree or summary that does not have the expected layout."""


def make_split(attribute: str, branches: Sequence[Branch]) -> Split:
    """A :class:`Split` with its branches in canonical order (duplicates rejected)."""
    ordered = tuple(sorted(branches, key=lambda b: (b.op, b.value)))
    keys = [(b.op, b.value) for b in ordered]
    if len(set(keys)) != len(keys):
        raise ParseError(f"duplicate branch in test on {attribute!r}: {keys}")
    return Split(attribute, ordered)


# ---------------------------------------------------------------- sizes and walks


def size(tree: Tree) -> int:
    """Number of nodes, empty leaves included (both tools' "size")."""
    if isinstance(tree, Leaf):
        return 1
    return 1 + sum(size(b.child) for b in tree.branches)


def n_leaves(tree: Tree) -> int:
    if isinstance(tree, Leaf):
        return 1
    return sum(n_leaves(b.child) for b in tree.branches)


def leaves(tree: Tree, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Leaf]]:
    """Every leaf with its path of ``attr op value`` strings from the root."""
    if isinstance(tree, Leaf):
        yield path, tree
        return
    for b in tree.branches:
        yield from leaves(b.child, (*path, f"{tree.attribute} {b.op} {b.value}"))


def subtree_at(tree: Tree, path: Sequence[str]) -> Tree:
    """The subtree reached by following ``path`` (``attr op value`` strings)."""
    node = tree
    for step in path:
        if not isinstance(node, Split):
            raise KeyError(f"path {list(path)} runs past a leaf at {step!r}")
        for b in node.branches:
            if f"{node.attribute} {b.op} {b.value}" == step:
                node = b.child
                break
        else:
            raise KeyError(f"no branch {step!r} at this node of path {list(path)}")
    return node


def diff(a: Tree, b: Tree, path: tuple[str, ...] = ()) -> list[str]:
    """Human-readable differences between two canonical trees (empty if equal).

    Each entry names the path from the root, so an assertion message tells
    exactly which node differs and how.
    """
    where = " / ".join(path) or "<root>"
    if isinstance(a, Leaf) or isinstance(b, Leaf):
        if a == b:
            return []
        return [f"{where}: {_describe(a)}  !=  {_describe(b)}"]
    if a.attribute != b.attribute:
        return [f"{where}: {_describe(a)}  !=  {_describe(b)}"]
    ka = {(br.op, br.value): br.child for br in a.branches}
    kb = {(br.op, br.value): br.child for br in b.branches}
    if ka.keys() != kb.keys():
        return [f"{where}: branches {sorted(ka)}  !=  {sorted(kb)}"]
    out: list[str] = []
    for key in sorted(ka):
        out += diff(ka[key], kb[key], (*path, f"{a.attribute} {key[0]} {key[1]}"))
    return out


def as_printed(ours: Tree, theirs: Tree) -> Tree:
    """``ours`` with :data:`UNPRINTED` wherever ``theirs`` (a parsed Release 8 tree) has
    it, so that :func:`diff` compares all that Release 8 printed and only that."""
    if theirs == UNPRINTED:
        return UNPRINTED
    if isinstance(ours, Leaf) or isinstance(theirs, Leaf) or ours.attribute != theirs.attribute:
        return ours
    kb = {(b.op, b.value): b.child for b in theirs.branches}
    return make_split(
        ours.attribute,
        [
            Branch(b.op, b.value, as_printed(b.child, kb[b.op, b.value]))
            if (b.op, b.value) in kb
            else b
            for b in ours.branches
        ],
    )


def route_known(tree: Tree, row: dict[str, str | float | None]) -> Leaf | None:
    """The leaf a case reaches when every test on its path has a known value.

    ``row`` maps attribute names to a nominal value string, a continuous
    float, or None (unknown).  Returns None when the path meets an unknown
    value (the classifier would then mix several leaves) or a continuous value
    within 1e-5 (relative) of a threshold, which printed ``%g`` thresholds
    cannot place reliably.
    """
    node = tree
    while isinstance(node, Split):
        value = row.get(node.attribute)
        if value is None:
            return None
        for b in node.branches:
            if b.op == "=" and value == b.value:
                node = b.child
                break
            if b.op in ("<=", ">") and isinstance(value, float):
                t = float(b.value)
                if abs(value - t) <= 1e-5 * max(1.0, abs(t)):
                    return None
                if (value <= t) == (b.op == "<="):
                    node = b.child
                    break
            if b.op == "in" and isinstance(value, str) and value in b.value[1:-1].split(","):
                node = b.child
                break
        else:
            raise KeyError(f"no branch of {node.attribute!r} takes {value!r}")
    return node


def _describe(t: Tree) -> str:
    if isinstance(t, Leaf):
        return f"leaf {t}"
    return f"test on {t.attribute!r} ({', '.join(b.op + ' ' + b.value for b in t.branches)})"


def render(tree: Tree) -> str:
    """The canonical tree as indented text (for failure messages and debugging)."""
    lines: list[str] = []

    def walk(t: Tree, depth: int) -> None:
        if isinstance(t, Leaf):
            lines.append("|   " * depth + f": {t}")
            return
        for b in t.branches:
            if isinstance(b.child, Leaf):
                lines.append("|   " * depth + f"{t.attribute} {b.op} {b.value}: {b.child}")
            else:
                lines.append("|   " * depth + f"{t.attribute} {b.op} {b.value}")
                walk(b.child, depth + 1)

    walk(tree, 0)
    return "\n".join(lines)
