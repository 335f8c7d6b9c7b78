"""Layouts of an IR for the two C back-ends, computed without recursion.

* :func:`ifs_layout` -- the nested-if style: a list of functions, each a flat list of
  :class:`Line` events (open an ``if``, ``else``, a ``case``, ``return`` ...) with an
  indentation level.  A subtree that starts ``max_nest`` tests below its function's
  root becomes a function of its own, so no function nests more than ``max_nest``
  selection statements (C99 guarantees 127 nested blocks; an ``if`` with its braces
  counts as two, hence the default 48).
* :func:`flatten` -- the table style: nodes renumbered breadth-first so that the
  children of every test are consecutive, in integer columns.

Both give every test the offset of its branch shares in one ``shares`` array.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.ir import IR, Compare, Leaf, Switch

MAX_NEST = 48


@dataclass(frozen=True, slots=True)
class Line:
    """One step of a walk function: ``kind`` in if / else / end / switch / case /
    after (the last branch, after the switch) / return / call.  ``node`` is the IR node (test, leaf, or callee root)."""

    kind: str
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


def share_offsets(ir: IR) -> tuple[dict[int, int], tuple[int, ...]]:
    offsets: dict[int, int] = {}
    shares: list[int] = []
    for i, node in enumerate(ir.nodes):
        if not isinstance(node, Leaf):
            offsets[i] = len(shares)
            shares.extend(node.shares)
    return offsets, tuple(shares)


def _codes_of(node: Switch, b: int) -> tuple[int, ...]:
    return tuple(c for c, x in enumerate(node.branch_of) if x == b)


def ifs_layout(ir: IR, max_nest: int = MAX_NEST) -> IfsLayout:
    offsets, shares = share_offsets(ir)
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
            elif nest >= max_nest:
                index.setdefault(i, len(roots))
                if index[i] == len(roots):
                    roots.append(i)
                lines.append(Line("call", indent, i, callee=index[i]))
            elif isinstance(node, Compare):
                lines.append(Line("if", indent, i))
                work += [Line("end", indent, i), (node.children[1], indent + 1, nest + 1),
                         Line("else", indent, i), (node.children[0], indent + 1, nest + 1)]
            else:
                lines.append(Line("switch", indent, i))
                # Every case returns, so the last branch follows the switch: the
                # function then visibly ends in a return (no -Wreturn-type).
                todo: list[tuple[int, int, int] | Line] = []
                last = len(node.children) - 1
                for b, child in enumerate(node.children[:last]):
                    todo.append(Line("case", indent, i, branch=b, codes=_codes_of(node, b)))
                    todo.append((child, indent + 1, nest + 1))
                todo.append(Line("end", indent, i))
                todo.append(Line("after", indent, i, branch=last, codes=_codes_of(node, last)))
                todo.append((node.children[last], indent, nest + 1))
                work += reversed(todo)
        functions.append((root, tuple(lines)))
    return IfsLayout(tuple(functions), offsets, shares)


OP_LEAF, OP_LE, OP_LT, OP_LEFT, OP_RIGHT, OP_SWITCH = range(6)
OPS = {"le": OP_LE, "lt": OP_LT, "left": OP_LEFT, "right": OP_RIGHT}


@dataclass(frozen=True, slots=True)
class NodeTable:
    """Columns indexed by table position (root 0).  ``arg`` is the outcome of a leaf
    or the offset of a switch's map ``[values, forks, branch per code (255 = none)]``
    in ``maps``; ``share`` is the share of the node within its parent's test."""

    order: tuple[int, ...]  # IR node at each position
    op: tuple[int, ...]
    feature: tuple[int, ...]
    threshold: tuple[int | float, ...]
    first: tuple[int, ...]
    arg: tuple[int, ...]
    share: tuple[int, ...]
    maps: tuple[int, ...]


def flatten(ir: IR) -> NodeTable:
    order = [0]
    for i in order:  # breadth-first: appending while iterating visits every node once
        node = ir.nodes[i]
        if not isinstance(node, Leaf):
            order.extend(node.children)
    pos = {n: p for p, n in enumerate(order)}
    n = len(order)
    op, feature, first, arg, share = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    threshold: list[int | float] = [0] * n
    maps: list[int] = []
    map_at: dict[tuple[int, ...], int] = {}
    for p, i in enumerate(order):
        node = ir.nodes[i]
        if isinstance(node, Leaf):
            arg[p] = node.outcome
            continue
        feature[p] = node.feature
        first[p] = pos[node.children[0]]
        for b, child in enumerate(node.children):
            assert pos[child] == first[p] + b
            share[pos[child]] = node.shares[b]
        if isinstance(node, Compare):
            op[p] = OPS[node.op]
            threshold[p] = node.threshold if node.op in ("le", "lt") else 0
        else:
            op[p] = OP_SWITCH
            m = (len(node.branch_of), len(node.children),
                 *(255 if b < 0 else b for b in node.branch_of))
            if m not in map_at:
                map_at[m] = len(maps)
                maps.extend(m)
            arg[p] = map_at[m]
    return NodeTable(tuple(order), tuple(op), tuple(feature), tuple(threshold), tuple(first),
                     tuple(arg), tuple(share), tuple(maps) or (0,))
