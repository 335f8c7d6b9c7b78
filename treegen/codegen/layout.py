"""Layouts of an IR for the two C back-ends, computed without recursion.

* :func:`ifs_layout` -- the nested-if style: a list of functions, each a flat list of
  :class:`Line` events (open an ``if``, ``else``, a ``case``, ``return`` ...) with an
  indentation level.  A subtree that starts ``max_nest`` tests below its function's
  root becomes a function of its own, so no function nests more than ``max_nest``
  selection statements (C99 guarantees 127 nested blocks; an ``if`` with its braces
  counts as two, hence the default 48).
* :func:`flatten` -- the table style: nodes renumbered breadth-first so that the
  children of every test are consecutive, in integer columns.

Both give every test the offset of its branch shares in one ``shares`` array, and
every nominal test that needs one the offset of its map in one ``maps`` array
(:class:`MapPool`: equal maps are stored once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from treegen.codegen.ir import IR, Compare, Leaf, Member, Switch
from treegen.model.fixedpoint import W_ONE

MAX_NEST = 48


LineKind = Literal[
    "if", "else", "end", "switch", "case", "default", "after", "return", "call", "table"
]


@dataclass(frozen=True, slots=True)
class Line:
    """One step of a walk function: ``kind`` in if / else / end / switch / case /
    default (the switch's empty ``default: break;``) / after (the last branch, after
    the switch) / return / call / table (the rest of
    the walk in the node table, from this test).  ``node`` is the IR node (test,
    leaf, or callee root)."""

    kind: LineKind
    indent: int
    node: int = -1
    branch: int = -1
    codes: tuple[int, ...] = ()
    callee: int = -1


@dataclass(frozen=True, slots=True)
class IfsLayout:
    functions: tuple[tuple[int, tuple[Line, ...]], ...]  # (root node, lines); [0] is the root
    share_offset: dict[int, int]
    shares: tuple[int, ...]
    map_offset: dict[int, int]  # switch node -> its map; absent: code c is branch c
    maps: tuple[int, ...]


def share_offsets(ir: IR) -> tuple[dict[int, int], tuple[int, ...]]:
    offsets: dict[int, int] = {}
    shares: list[int] = []
    for i, node in enumerate(ir.nodes):
        if not isinstance(node, Leaf):
            offsets[i] = len(shares)
            shares.extend(node.shares)
    return offsets, tuple(shares)


MAP_NONE = 255
"""Branch of a code that has none (missing) in a nominal map."""


def nominal_map(node: Switch) -> tuple[int, ...]:
    """A subset test's map as the C reads it: ``[values, forks, branch of each code]``,
    with :data:`MAP_NONE` for a code that takes no branch."""
    return (
        len(node.branch_of),
        len(node.children),
        *(MAP_NONE if b < 0 else b for b in node.branch_of),
    )


class MapPool:
    """Nominal maps in one array, each distinct map stored once, in order of first use."""

    def __init__(self) -> None:
        self.values: list[int] = []
        self._at: dict[tuple[int, ...], int] = {}

    def add(self, node: Switch) -> int:
        """Offset of ``node``'s map in :attr:`values`."""
        m = nominal_map(node)
        if m not in self._at:
            self._at[m] = len(self.values)
            self.values.extend(m)
        return self._at[m]


def _codes_of(node: Switch, b: int) -> tuple[int, ...]:
    return tuple(c for c, x in enumerate(node.branch_of) if x == b)


def ifs_layout(ir: IR, max_nest: int = MAX_NEST, inline: frozenset[int] | None = None) -> IfsLayout:
    """The nested-if layout of ``ir``; with ``inline``, only those tests are ifs and
    every other test the walk meets is a ``table`` line (the lean table's top)."""
    offsets, shares = share_offsets(ir)
    pool = MapPool()
    map_offset: dict[int, int] = {}
    functions: list[tuple[int, tuple[Line, ...]]] = []
    roots = [0]
    index = {0: 0}
    while len(functions) < len(roots):
        root = roots[len(functions)]
        lines: list[Line] = []
        # Work items: ("node", node, indent, nest) or a ready Line to append.
        work: list[tuple[int, int, int] | Line] = [(root, 1, 0)]
        while work:
            item = work.pop()
            if isinstance(item, Line):
                lines.append(item)
                continue
            i, indent, nest = item
            node = ir.nodes[i]
            if isinstance(node, Leaf):
                lines.append(Line("return", indent, i))
            elif inline is not None and i not in inline:
                lines.append(Line("table", indent, i))
            elif nest >= max_nest:
                index.setdefault(i, len(roots))
                if index[i] == len(roots):
                    roots.append(i)
                lines.append(Line("call", indent, i, callee=index[i]))
            elif isinstance(node, Compare | Member):
                lines.append(Line("if", indent, i))
                work += [
                    Line("end", indent, i),
                    (node.children[1], indent + 1, nest + 1),
                    Line("else", indent, i),
                    (node.children[0], indent + 1, nest + 1),
                ]
            else:
                lines.append(Line("switch", indent, i))
                if node.branch_of != tuple(range(len(node.children))):
                    map_offset[i] = pool.add(node)
                # Every case returns, so the last branch follows the switch: the
                # function then visibly ends in a return (no -Wreturn-type).
                todo: list[tuple[int, int, int] | Line] = []
                last = len(node.children) - 1
                for b, child in enumerate(node.children[:last]):
                    todo.append(Line("case", indent, i, branch=b, codes=_codes_of(node, b)))
                    todo.append((child, indent + 1, nest + 1))
                # An empty default keeps the C clean under -Wswitch-default (and
                # MISRA's rule that every switch has one) at no cost in code.
                todo.append(Line("default", indent, i))
                todo.append(Line("end", indent, i))
                todo.append(Line("after", indent, i, branch=last, codes=_codes_of(node, last)))
                todo.append((node.children[last], indent, nest + 1))
                work += reversed(todo)
        functions.append((root, tuple(lines)))
    return IfsLayout(tuple(functions), offsets, shares, map_offset, tuple(pool.values))


OP_LE, OP_LT, OP_LEFT, OP_RIGHT, OP_SWITCH = 1, 2, 3, 4, 5
OPS = {"le": OP_LE, "lt": OP_LT, "left": OP_LEFT, "right": OP_RIGHT}
# The table walk (predict_table.c.j2) relies on this order: it tells the tests with
# a threshold by ``op <= OP_LT`` and a nominal test by ``op >= OP_SWITCH``.
assert OP_LE < OP_LT < OP_LEFT < OP_RIGHT < OP_SWITCH


@dataclass(frozen=True, slots=True)
class NodeTable:
    """The table style's arrays.

    Tests are numbered breadth-first (0 is the root when it is a test); the branches of
    test t are the consecutive slots ``first[t] .. first[t] + forks - 1``.  A slot holds
    ``ref`` (a test number below ``n_tests``, or ``n_tests + outcome`` for a leaf) and
    the branch's ``share``.  ``op`` is one of :data:`OPS` for a comparison and
    ``OP_SWITCH + offset`` for a nominal test whose :func:`nominal_map` starts at
    ``offset`` in ``maps``.  Leaves take no test row, so a node costs one slot
    (4 bytes) plus, for tests, one row.
    """

    tests: tuple[int, ...]  # IR node of each test row
    op: tuple[int, ...]
    feature: tuple[int, ...]
    threshold: tuple[int | float, ...]
    first: tuple[int, ...]
    ref: tuple[int, ...]
    share: tuple[int, ...]
    maps: tuple[int, ...]
    root: int  # ref of the root
    binary: bool  # every test is a Compare: test t's slots are 2t and 2t + 1

    @property
    def n_tests(self) -> int:
        return len(self.tests)


PAIR_CARRY = 1 << 31
"""Bit of a paired share (:func:`paired_shares`) that says share_1 is one below
W_ONE - share_0."""


def paired_shares(t: NodeTable) -> tuple[int, ...] | None:
    """The shares of a table whose tests are all binary as one 32-bit word per test,
    or None when some test's shares do not fit that form.

    The shares of a binary test are floor(W_ONE * a / D) and floor(W_ONE * b / D);
    when a + b = D (every tree whose children's items add up to the parent's, as
    scikit-learn's always do) they sum to W_ONE or W_ONE - 1, so share_1 follows
    from share_0 and one bit: the word is ``share_0``, plus :data:`PAIR_CARRY` when
    share_1 = W_ONE - 1 - share_0 (share_0 = W_ONE, a branch with every case, does
    not fit and keeps two shares per test, as does any other sum).  The C rebuilds
    the very same two integers, so the fixed-point arithmetic is unchanged; only the
    table is half as long."""
    if not t.binary:
        return None
    out: list[int] = []
    for k in range(t.n_tests):
        s0, s1 = t.share[2 * k], t.share[2 * k + 1]
        carry = W_ONE - s0 - s1
        if carry not in (0, 1) or s0 >= PAIR_CARRY:
            return None
        out.append(s0 | (PAIR_CARRY if carry else 0))
    return tuple(out)


def flatten(ir: IR) -> NodeTable:
    tests = [0] if not isinstance(ir.nodes[0], Leaf) else []
    for i in tests:  # breadth-first over tests: appending while iterating visits each once
        node = ir.nodes[i]
        assert not isinstance(node, Leaf)
        tests.extend(c for c in node.children if not isinstance(ir.nodes[c], Leaf))
    number = {n: t for t, n in enumerate(tests)}
    n_tests = len(tests)

    def ref_of(i: int) -> int:
        node = ir.nodes[i]
        return n_tests + node.outcome if isinstance(node, Leaf) else number[i]

    op: list[int] = []
    feature: list[int] = []
    threshold: list[int | float] = []
    first: list[int] = []
    ref: list[int] = []
    share: list[int] = []
    pool = MapPool()
    for i in tests:
        node = ir.nodes[i]
        assert not isinstance(node, Leaf)
        feature.append(node.feature)
        first.append(len(ref))
        ref.extend(ref_of(c) for c in node.children)
        share.extend(node.shares)
        if isinstance(node, Compare):
            op.append(OPS[node.op])
            threshold.append(node.threshold if node.op in ("le", "lt") else 0)
        else:
            assert isinstance(node, Switch), "member tests are --missing none's only"
            op.append(OP_SWITCH + pool.add(node))
            threshold.append(0)
    return NodeTable(
        tuple(tests),
        tuple(op),
        tuple(feature),
        tuple(threshold),
        tuple(first),
        tuple(ref),
        tuple(share),
        tuple(pool.values) or (0,),
        ref_of(0),
        all(isinstance(ir.nodes[i], Compare) for i in tests),
    )
