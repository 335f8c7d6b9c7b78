"""The two ways Release 8 reorders its case array, as permutations (docs/C45.md section 0).

Release 8 keeps every case in one array and reorders parts of it in place, and its
float sums of case weights run in that array's order, so reproducing its sums means
reproducing the order.  Two operations do all the reordering:

* **Moving the cases that pass a test to the front** (:func:`front`): a scan from the
  first case to the last that swaps each passing case with the first case not yet
  moved.  The passing cases keep their order; each swap carries the first of the
  failing cases seen so far behind the others, so those come out rotated.  Growth and
  pruning group cases by branch this way, and the continuous evaluation sets the
  unknown values aside this way.
* **Sorting by a continuous attribute** (:func:`sort_permutation`): a quicksort whose
  pivot is the segment's last value, with a Lomuto partition (cases not above the
  pivot moved to the front as above) and then the cases equal to the pivot gathered,
  by the same move run from the end, just below the pivot's place.  It is not
  stable: cases with equal values come out in an order that depends on the input.

Both return ``perm`` such that the reordered segment is ``segment[perm]``.  The
accelerator has the same sort in C (``treegen/trainer/native/order.c``), tested equal.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.trainer import native

IntArray = npt.NDArray[np.intp]


def front(passes: npt.NDArray[np.bool_]) -> IntArray:
    """The order a segment takes when its passing cases are swapped to the front one by one.

    Scanning positions ``i = 0, 1, ...``, a passing case is swapped with the case at
    ``k``, the number of passing cases before it.  The cases at ``k..i-1`` are the
    failing ones seen so far, and the swap moves the first of them to ``i``: they form
    a queue whose head goes to the back at every passing case.  So the case at
    position ``i`` after step ``i`` is the case itself if it fails, else the case that
    was at position ``k`` after step ``k``; following those references back to a
    failing case gives every final position in a few vectorised passes.
    """
    n = passes.size
    idx = np.arange(n, dtype=np.intp)
    if n == 0 or passes.all() or not passes.any():
        return idx
    before: IntArray = np.cumsum(passes) - passes  # passing cases before each position: k
    ref = np.where(passes, before, idx)  # a passing case with k == i swaps with itself
    while True:
        nxt = ref[ref]
        if np.array_equal(nxt, ref):
            break
        ref = nxt
    k = int(np.count_nonzero(passes))
    out = np.empty(n, dtype=np.intp)
    out[:k] = idx[passes]
    out[k:] = ref[k:]
    return out


def _sort_python(values: list[float]) -> list[int]:
    """:func:`sort_permutation` in plain Python (the accelerator's reference)."""
    perm = list(range(len(values)))
    v = list(values)

    def swap(a: int, b: int) -> None:
        v[a], v[b] = v[b], v[a]
        perm[a], perm[b] = perm[b], perm[a]

    stack = [(0, len(v) - 1)]
    while stack:
        fp, lp = stack.pop()
        if fp >= lp:
            continue
        pivot = v[lp]
        middle = fp
        for i in range(fp, lp):
            if v[i] <= pivot:
                if i != middle:
                    swap(middle, i)
                middle += 1
        lower = middle - 1
        for i in range(lower, fp - 1, -1):
            if v[i] == pivot:
                if i != lower:
                    swap(lower, i)
                lower -= 1
        swap(middle, lp)
        # The two parts are disjoint: the order they are sorted in changes nothing.
        stack.append((middle + 1, lp))
        stack.append((fp, lower))
    return perm


def sort_permutation(values: npt.NDArray[np.float32]) -> IntArray:
    """The order Release 8's quicksort gives a segment with these (known, float32) values.

    A segment already in non-decreasing order comes out as it is (the partitions then
    move nothing), so it is returned at once: the quicksort itself would take time
    quadratic in its length on it.
    """
    n = values.size
    if n < 2 or bool(np.all(values[1:] >= values[:-1])):
        return np.arange(n, dtype=np.intp)
    vals = np.ascontiguousarray(values, dtype=np.float32)
    if native.cscan is not None:
        out = np.empty(n, dtype=np.intp)
        native.cscan.r8_sort(vals, out)
        return out
    return np.asarray(_sort_python(vals.tolist()), dtype=np.intp)
