"""The ifs style's last tests above the leaves as one select expression (treegen.ensemble.emit).

A tree's walk on a host is mostly the branches the predictor guesses wrong, and the tests
next to the leaves are the hardest to guess.  Where an ifs function reaches a subtree of
at most :data:`HEIGHT` levels of tests in a key walk (each test one unsigned compare of
a key already on the stack) or :data:`INT_HEIGHT` on integer inputs (each test one
compare of the value, and of the missing value unless ``--missing none``), it returns
one expression instead of nested ifs:

    return (uint16_t)PREFIX_SEL(k[13] <= 0xC2686625u,
        PREFIX_SEL(k[4] <= 0xBE6C09ACu, 0u, 1u),
        PREFIX_SEL(k[5] <= 0xBFEAC487u, 2u, 3u));

``PREFIX_SEL(c, a, b)`` is ``a`` where ``c`` holds, else ``b``: the leaf the ifs would
reach, the same payload.  Where ``PREFIX_BRANCHFREE`` is 1 (x86 and AArch64 hosts, whose
long pipelines guess branches) it is a function that masks, so every test of the
subtree is computed and none is a branch; elsewhere it is ``?:``, which compilers turn
into the same branches as the ifs (microcontrollers, whose branches are cheap and whose
flash the masks would cost: on the ATmega328P, an 8-bit core, they made a 10-tree
regressor 58.8 -> 76.7 KB).

Measured (bench/regress_bench.py's regressors, gcc 12 -O2, CPU time, interleaved rounds;
docs/ensembles.md has the rest): two levels beat one and three (a level more computes
twice the tests); ExtraTrees (10 trees, depth 8) 42.4 -> 36.7 ns over the test rows in
order and 76.7 -> 66.6 ns shuffled, every value the same bits.  A whole tree without
branches (a complete layout walked by index arithmetic, every tree's levels
interleaved) took 48 ns.  On integer inputs, whose tests need no key, the
levels are :data:`INT_HEIGHT`'s (docs/ensembles.md: the int16 forests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from treegen.ensemble.ir import ENode, LeafRow, Split

HEIGHT = 2
"""The most levels of tests a key walk's select expression holds (module docstring)."""

INT_HEIGHT = 1
"""The most levels of tests a select expression holds on integer inputs.  Measured on
the bench's int16 forests (gcc 12 -O2, CPU time, ``--missing none``, ratios to emlearn's
int16 default, in order / shuffled).  On the processor this was chosen on (AMD EPYC,
2026-12-07), one level: random forest 0.68 / 0.99, ExtraTrees 1.00 / 1.11; three levels:
0.88 / 1.01 and 1.46 / 1.19.  On the processor three levels were first chosen on
(2026-12-05): one level 1.04 / 1.12 and 1.32 / 1.34, two 1.01 / 1.10 and 1.35 / 1.39,
three 0.95 / 1.05 and 1.31 / 1.38, four 1.14 / 1.23 and 1.75 / 1.80 (docs/ensembles.md).
The bench's 100-stage gradient boosting, binary and 4-class, took 0.85x and 1.05x the
time with one level as with two.  A tree's root never holds more than :data:`HEIGHT`:
a depth-3 tree as one select of three levels made the binary gradient boosting 1.6x
as slow."""

_NOT = 1 << 30  # the height of a subtree with a test a select cannot hold


def heights(nodes: Sequence[ENode], key_walk: bool = True, missing: bool = False) -> list[int]:
    """Each node's levels of tests down to its deepest leaf (0 for a leaf); a subtree
    with a test other than a numeric ``le`` (missing-only, zero-band, categorical), or
    any subtree outside a key walk or integer inputs (``key_walk`` False), counts as too
    high for a select.  With ``missing`` (integer inputs) a missing-only test, one
    compare with the sentinel, is a level too."""
    if not key_walk:
        return [_NOT] * len(nodes)
    h = [0] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):  # pre-order: children after their parent
        node = nodes[i]
        if isinstance(node, LeafRow):
            continue
        ops = ("le", "left", "right") if missing else ("le",)
        if not isinstance(node, Split) or node.op not in ops or node.zero:
            h[i] = _NOT
        else:
            h[i] = 1 + max(h[i + 1], h[node.right])
    return h


@dataclass
class _Line:
    text: str
    comment: str = ""
    closed: bool = False  # a nested call ends on this line


def select_lines(
    nodes: Sequence[ENode],
    root: int,
    head: str,
    name: str,
    test: Callable[[Split], str],
    comment: Callable[[Split], str],
    payload: Callable[[LeafRow], int],
) -> list[str]:
    """The statement ``head name(test, a, b);`` for the subtree at ``root``
    (heights(nodes)[root] <= HEIGHT or INT_HEIGHT), as lines: a test's call starts a line one level
    further in than its parent's, which ends with the test's comment; a leaf is its
    payload literal, on a line of its own after a nested call.  ``test`` is a split's
    condition in C (left where it holds)."""
    lines: list[_Line] = []

    def call(i: int, depth: int) -> None:
        node = nodes[i]
        assert isinstance(node, Split)
        lines.append(_Line(f"{'    ' * depth}{name}({test(node)},", comment(node)))
        for j, last in ((i + 1, False), (node.right, True)):
            kid = nodes[j]
            if isinstance(kid, LeafRow):
                if lines[-1].closed:
                    lines.append(_Line("    " * (depth + 1)))
                    lines[-1].text += f"{payload(kid)}u"
                else:
                    lines[-1].text += f" {payload(kid)}u"
            else:
                call(j, depth + 1)
                lines[-1].closed = True
            lines[-1].text += ")" if last else ","

    call(root, 0)
    lines[0].text = head + lines[0].text
    lines[-1].text += ";"
    return [line.text + (f" /* {line.comment} */" if line.comment else "") for line in lines]
