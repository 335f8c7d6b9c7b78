"""J48's counters and its sort, in Weka 3.6's arithmetic: what :mod:`treegen.trainer.j48order`
replays J48's training with.

* :func:`weka_sort` is ``Utils.sortWithNoMissingValues``, the sort behind
  ``Instances.sort``: a median-of-three quicksort on an index array, not stable, so the
  order it leaves equal values in is its own (the C accelerator's ``weka_sort``, with
  :func:`_sort_python` as the reference);
* :class:`WDist` is ``Distribution``: counts per branch and class, per branch, per class
  and in all, each a double that cases are added to one after another from 0
  (:func:`seq_add`, :func:`count_events`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.model.constants import J48_TOL
from treegen.trainer import native

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

JAVA_MAX_DOUBLE = 1.7976931348623157e308  # Instances.sort's key of an unknown value


def weka_sort(keys: FloatArray) -> IntArray:
    """``Utils.sortWithNoMissingValues(keys)``: the indices in Weka's sorted order (the
    C accelerator's ``weka_sort``, else :func:`_sort_python`)."""
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    if native.cscan is not None:
        perm = np.empty(keys.size, dtype=np.intp)
        native.cscan.weka_sort(keys, perm)
        return perm
    return np.asarray(_sort_python(keys.tolist()), dtype=np.intp)


def _sort_python(keys: list[float]) -> list[int]:
    """The reference of :func:`weka_sort` (and of the C), in plain Python."""
    idx = list(range(len(keys)))

    def cswap(i: int, j: int) -> None:
        if keys[idx[i]] > keys[idx[j]]:
            idx[i], idx[j] = idx[j], idx[i]

    stack = [(0, len(keys) - 1)]
    while stack:
        lo, hi = stack.pop()
        d = hi - lo
        if d <= 0:
            continue
        if d == 1:
            cswap(lo, hi)
            continue
        if d == 2:
            cswap(lo, lo + 1)
            cswap(lo, hi)
            cswap(lo + 1, hi)
            continue
        mid = (lo + hi) // 2
        cswap(lo, mid)
        cswap(lo, hi)
        cswap(mid, hi)
        idx[mid], idx[hi - 1] = idx[hi - 1], idx[mid]
        pivot = keys[idx[hi - 1]]
        i, j = lo, hi - 1
        while True:
            i += 1
            while keys[idx[i]] < pivot:
                i += 1
            j -= 1
            while keys[idx[j]] > pivot:
                j -= 1
            if i >= j:
                break
            idx[i], idx[j] = idx[j], idx[i]
        idx[i], idx[hi - 1] = idx[hi - 1], idx[i]
        stack.append((lo, i - 1))
        stack.append((i + 1, hi))
    return idx


def seq_add(values: FloatArray, start: float = 0.0) -> float:
    """``start`` plus ``values`` added one after another (Java's ``+=`` loop)."""
    if values.size == 0:
        return start
    return float(np.cumsum(np.concatenate(([start], values)))[-1])


@dataclass
class WDist:
    """Weka's ``Distribution``: per bag and class, per bag, per class, total."""

    pcb: FloatArray
    per_bag: FloatArray
    per_class: FloatArray
    total: float

    def max_class(self) -> int:
        """``maxClass``: a class beats the best so far by more than 1e-6 (from 0)."""
        best, top = 0, 0.0
        for c, v in enumerate(self.per_class.tolist()):
            if v - top > J48_TOL:
                best, top = c, v
        return best

    def num_incorrect(self) -> float:
        """``numIncorrect``: the weight not of the class ``maxClass`` names."""
        return self.total - float(self.per_class[self.max_class()])

    def max_bag(self) -> int:
        """``maxBag``: the last bag at least as heavy as the heaviest so far (within 1e-6)."""
        best, top = -1, 0.0
        for b, v in enumerate(self.per_bag.tolist()):
            if top - v < J48_TOL:
                best, top = b, v
        return best

    def merged(self) -> WDist:
        """``new Distribution(d)`` (``NoSplit``'s copy): one bag, the total's weights."""
        return WDist(
            self.per_class.copy()[None, :],
            np.array([self.total]),
            self.per_class.copy(),
            self.total,
        )


def count_events(bag: IntArray, cls: IntArray, w: FloatArray, n_bags: int, n_classes: int) -> WDist:
    """Counts of ``add``/``addWeights`` events taken in order, every counter from 0
    (``np.add.at`` adds repeated indices one after another, in order)."""
    pcb = np.zeros((n_bags, n_classes))
    per_bag = np.zeros(n_bags)
    per_class = np.zeros(n_classes)
    np.add.at(pcb, (bag, cls), w)
    np.add.at(per_bag, bag, w)
    np.add.at(per_class, cls, w)
    return WDist(pcb, per_bag, per_class, seq_add(w))
