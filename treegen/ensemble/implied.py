"""Integer inputs: the tests of a tree that the tests above them already decide.

On an integer input a threshold t is the test ``x <= c`` (c an integer cut,
treegen.codegen.lower.lower_continuous), and many cuts coincide: ``x <= 0.23`` and,
below it on the left, ``x <= 0.11`` are both ``x <= 0``, so every known value that
reaches the second goes left.  :func:`path_decided` walks a tree from its root keeping,
per feature, the interval of known values that reach the node (at first the type's
known values, :func:`treegen.codegen.lower.known_range`); a numeric test whose whole
interval goes one way is decided.  treegen.ensemble.lower makes it op ``left``/``right``
marked ``implied``: it keeps its cut, so verify's rows still probe its integer
neighbours, and no fold note names it (the type's range did not decide it, nothing is
lost).  A test no known value reaches (an empty interval) goes its missing values' way.

A missing value is unaffected: under ``--missing c45`` it takes the node's
``nan_left`` before any comparison, whatever the op.  Under ``--missing none`` the
sentinel is compared like any value at the ancestors, so where it reaches a decided
test it lies in the test's interval and goes the decided way, which is where its own
comparison would send it (asserted here): the none rule is unchanged.

Float inputs are left alone: scikit-learn's thresholds lie strictly inside their
node's range of training values, so on float32 or double no path decides a test; only
an integer type merges the values on both sides of close thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from treegen.codegen.ir import CompareOp, Encoding
from treegen.codegen.lower import known_range
from treegen.ensemble.core import Tree

Way = Literal["left", "right"]


def path_decided(
    tree: Tree,
    tests: Sequence[tuple[CompareOp, int | float] | None],
    nan_left: Sequence[bool],
    enc: Encoding,
    lean: bool,
) -> dict[int, tuple[Way, int]]:
    """Node -> (way, cut ``x <= cut``) of each test of ``tree`` its path decides.
    ``tests[i]``: node i's comparison on the integer input, None where it narrows
    nothing (a leaf, a categorical or zero-band test, a range-folded one); ``nan_left``:
    each node's missing-value way (under ``lean``, the sentinel's own comparison)."""
    assert enc.is_int and enc.missing is not None
    miss = enc.missing
    klo, khi = known_range(enc)
    out: dict[int, tuple[Way, int]] = {}
    # Work items: node, per-feature interval of known values (absent: every known
    # value), and the features whose sentinel cannot reach the node.
    stack: list[tuple[int, dict[int, tuple[int, int]], frozenset[int]]] = [(0, {}, frozenset())]
    while stack:
        i, box, gone = stack.pop()
        if tree.is_leaf(i):
            continue
        left, right = tree.left[i], tree.right[i]
        test = tests[i]
        if test is None or test[0] not in ("le", "lt"):
            stack += [(left, box, gone), (right, box, gone)]
            continue
        f = tree.feature[i]
        cut = int(test[1]) - (test[0] == "lt")
        lo, hi = box.get(f, (klo, khi))
        way: Way | None = "left" if hi <= cut else "right" if lo > cut else None
        if lo > hi:  # no known value reaches: the missing values' way needs no test
            way = "left" if nan_left[i] else "right"
        sentinel_left = miss <= cut
        if way is not None:
            # The sentinel, where it reaches, lies in the interval (module docstring).
            assert not lean or f in gone or sentinel_left == (way == "left")
            out[i] = (way, cut)
        stack += [
            (left, {**box, f: (lo, min(hi, cut))}, gone if sentinel_left else gone | {f}),
            (right, {**box, f: (max(lo, cut + 1), hi)}, gone | {f} if sentinel_left else gone),
        ]
    return out
