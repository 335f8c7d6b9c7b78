"""One home for turning an imported tree into :class:`~treegen.ensemble.core.Tree` columns.

Every importer (XGBoost's JSON, LightGBM's text, HistGradientBoosting's node records)
holds a tree as nodes that name their children by index, in whatever order the library
stored them.  :func:`walk` puts them in pre-order (the order the Tree's columns need:
children after parents, so nothing recurses), refusing a node reached twice; a
:class:`Columns` then takes the nodes in that order, renumbering children, and
:func:`intern` shares equal leaf values between trees.  Each importer keeps its own
checks of the library's fields; only the walk and the column filling live here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from treegen.ensemble.core import LEAF, Tree

N = TypeVar("N")


def walk(
    root: N,
    children: Callable[[N], tuple[N, N] | None],
    twice: Callable[[N], Exception],
) -> list[N]:
    """The nodes under ``root`` in pre-order: ``children(node)`` is ``(first, second)``
    for a split (``first`` comes next, the node's "left" column), None for a leaf; it
    raises for a child it finds bad.  A node reached twice raises ``twice(node)``."""
    order: list[N] = []
    seen: set[N] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node in seen:
            raise twice(node)
        seen.add(node)
        order.append(node)
        pair = children(node)
        if pair is not None:
            stack += [pair[1], pair[0]]
    return order


def intern(values: dict[int, int], rows: list[tuple[float, ...]], key: int, value: float) -> int:
    """The row of :attr:`Ensemble.values` holding ``value`` (``key``: its bits, at the
    precision the sum reads), added when new, so equal leaves share one row."""
    if key not in values:
        values[key] = len(rows)
        rows.append((value,))
    return values[key]


class Columns:
    """A Tree's columns, filled node by node in the pre-order ``order`` of :func:`walk`;
    children are given by their original ids and stored by their pre-order numbers."""

    def __init__(self, order: Sequence[N]) -> None:
        self._new: dict[object, int] = {old: k for k, old in enumerate(order)}
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.nan_left: list[bool] = []
        self.categorical: list[bool] = []
        self.codes: list[tuple[int, ...]] = []
        self.value: list[int] = []
        self.zero: list[bool] = []

    def leaf(self, row: int) -> None:
        """A leaf adding value row ``row``."""
        self._add(LEAF, 0.0, LEAF, LEAF, False, False, (), row, False)

    def split(
        self,
        feature: int,
        left: object,
        right: object,
        nan_left: bool,
        threshold: float = 0.0,
        codes: tuple[int, ...] | None = None,
        zero: bool = False,
    ) -> None:
        """A split on ``feature``: ``x <= threshold`` (numeric) or, with ``codes``, a
        categorical test sending those codes left; ``left``/``right`` are original ids."""
        self._add(feature, 0.0 if codes is not None else threshold, self._new[left],
                  self._new[right], nan_left, codes is not None, codes or (), -1, zero)  # fmt: skip

    def _add(self, f: int, t: float, lft: int, rgt: int, nl: bool, cat: bool,
             codes: tuple[int, ...], val: int, zero: bool) -> None:  # fmt: skip
        self.feature.append(f)
        self.threshold.append(t)
        self.left.append(lft)
        self.right.append(rgt)
        self.nan_left.append(nl)
        self.categorical.append(cat)
        self.codes.append(codes)
        self.value.append(val)
        self.zero.append(zero)

    def tree(self, output: int = -1) -> Tree:
        """The Tree (``output``: the raw output its leaves add to, -1 for whole rows)."""
        return Tree(tuple(self.feature), tuple(self.threshold), tuple(self.left),
                    tuple(self.right), tuple(self.nan_left), tuple(self.categorical),
                    tuple(self.codes), tuple(self.value), output,
                    tuple(self.zero) if any(self.zero) else ())  # fmt: skip
