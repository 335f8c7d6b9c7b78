"""The cases in the order of the tree's leaves, for the generalisation's bitsets.

A leaf's generalisation (:mod:`treegen.rules.paths`) reads, per dropped condition, the
64-case words holding a case that fails few of the leaf's path conditions.  In the
file's row order such cases are spread over nearly every word.  Sorted by the node each
case ends at when it follows the tree (the deepest node it reaches with every test on
the way satisfied: a leaf, or the node whose test its unknown value stops), the cases of
a subtree are one run of words, and the cases failing one or two conditions of a path
gather in the leaves that test alike, so fewer words hold them (at 100k rows of the
scaling data, a path's cases failing at most two of its conditions are in 200 of 1,563
words instead of 550).

With the C accelerator each level of the walk down the tree is one pass
(``native/rorder.c``, 0.05 s at 100k rows in numpy, 0.02 s so), the same order.

The order only says where each case's bit lives: the counts, and so the rules, are the
same in any order.  Each rule's cases are given back as row numbers of the file,
ascending.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL, KIND_SUBSET
from treegen.rules.native import crules
from treegen.rules.shape import TreeShape


def leaf_order(X: npt.NDArray[np.floating], shape: TreeShape) -> npt.NDArray[np.int32]:
    """The rows of ``X`` sorted by the node each ends at in the tree of ``shape``
    (pre-order index; file order among equal ones): ``order[i]`` is the row at place
    ``i``."""
    kind = shape.array("kind")
    # a leaf reads column 0 (and stops): the grower's arrays hold -1 there
    attr = np.where(kind == KIND_LEAF, 0, shape.array("attribute")).astype(np.intp)
    cut = shape.array("threshold").astype(np.float32)  # a c45 cut is a float32 value
    kid_at = shape.array("kid_at").astype(np.intp)
    n_kids = np.diff(kid_at)
    kid = shape.array("kids").astype(np.intp)
    m = kind.size
    table_at = np.zeros(m, dtype=np.intp)  # a subset test's value -> branch table
    table: list[int] = []
    n_values = np.zeros(m, dtype=np.intp)
    for i, groups in shape.subsets.items():
        of_value = [-1] * (1 + max((v for sub in groups for v in sub), default=0))
        for b, values in enumerate(groups):
            for v in values:
                of_value[v] = b
        table_at[i] = len(table)
        n_values[i] = len(of_value)
        table.extend(of_value)
    value_branch = np.asarray(table, dtype=np.intp)
    n = X.shape[0]
    end = np.zeros(n, dtype=np.intp)
    rows = np.arange(n, dtype=np.intp)
    at = np.zeros(n, dtype=np.intp)
    if crules is not None:
        # a level in one C pass over the cases going on (rows and at compacted in place)
        kind8 = kind.astype(np.int8)
        going = n
        while going:
            cells = X[rows[:going], attr[at[:going]]].astype(np.float64, copy=False)
            going = crules.leaf_step(
                cells, rows, at, end, going, kind8, cut, kid_at, kid, table_at, n_values,
                value_branch,
            )  # fmt: skip
        by_node = np.empty(n, dtype=np.int32)
        crules.order_by_node(end, m, by_node)  # a counting sort: argsort's stable order
        return by_node
    while rows.size:
        k = kind[at]
        x = X[rows, attr[at]]
        branch = np.full(rows.size, -1, dtype=np.intp)
        with np.errstate(invalid="ignore"):
            c = k == KIND_CONTINUOUS
            t = cut[at[c]]
            xc = x[c].astype(np.float32)
            branch[c] = np.where(xc <= t, 0, np.where(xc > t, 1, -1))  # NaN: -1
            code = np.where(np.isnan(x), -1.0, x)
            nom = (k == KIND_NOMINAL) & (code >= 0) & (code < n_kids[at])
            branch[nom] = code[nom].astype(np.intp)
            sub = (k == KIND_SUBSET) & (code >= 0) & (code < n_values[at])
            if sub.any():
                branch[sub] = value_branch[table_at[at[sub]] + code[sub].astype(np.intp)]
        go = branch >= 0
        stop = ~go
        end[rows[stop]] = at[stop]
        rows = rows[go]
        at = kid[kid_at[at[go]] + branch[go]]
    order: npt.NDArray[np.int32] = np.argsort(end, kind="stable").astype(np.int32)
    return order
