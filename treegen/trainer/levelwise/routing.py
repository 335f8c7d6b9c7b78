"""Step 1 of a bucket's partition: each split task's test written to the tree, and the
branch every bucket entry takes at it.

:func:`write_tests` sets the kind, attribute and threshold of every chosen test (a
nominal attribute scored as a subset test becomes one when it groups its values);
:func:`_route` routes the bucket's entries (the C ``route_branches`` or the numpy
gathers of :func:`_route_numpy`, then the subset tests one by one).  The rest of the
partition is :mod:`treegen.trainer.levelwise.partition`'s.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS, KIND_LEAF, KIND_NOMINAL, KIND_SUBSET
from treegen.trainer import native
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.bucket import Bucket, BucketScores
from treegen.trainer.levelwise.children import Tests
from treegen.trainer.levelwise.flat import FlatTree
from treegen.trainer.levelwise.rowvalues import value_table
from treegen.trainer.route import routing_cuts, subset_table
from treegen.trainer.subsets import is_grouping
from treegen.trainer.thresholds import cut_for, cuts_below


def write_tests(
    ctx: Context, tree: FlatTree, bucket: Bucket, scores: BucketScores, chosen: IntArray
) -> Tests:
    """Each split task's test, written to ``tree``, and the branch of every bucket entry.

    A chosen nominal attribute scored as a subset test is one when it groups
    its values (fewer groups than values), else a plain multiway test.
    """
    tasks = bucket.tasks
    split = np.flatnonzero(chosen >= 0)
    B = bucket.n_tasks
    forks = np.zeros(B, dtype=np.intp)
    thr = np.full(B, np.nan)
    kind = np.full(B, KIND_LEAF, dtype=np.int8)  # no test
    subset_tasks: list[int] = []
    # Continuous tests have two branches, multiway ones a branch per value: set for
    # all split tasks at once (a Python step per task was 0.7 s at 1M rows) ...
    att = chosen[split]
    is_cont = np.asarray([k == "continuous" for k in ctx.kinds], dtype=np.bool_)[att]
    kind[split] = np.where(is_cont, KIND_CONTINUOUS, KIND_NOMINAL)
    forks[split] = np.where(is_cont, 2, np.asarray(ctx.n_values, dtype=np.intp)[att])
    # ... then the tests that differ task by task: J48's thresholds, and subset tests.
    if ctx.j48:
        for b in split[is_cont].tolist():
            a = int(chosen[b])
            thr[b] = cut_for(ctx, a, float(scores.bar[b, a]))
    if scores.subsets:
        for b in split[~is_cont].tolist():
            a = int(chosen[b])
            sub = scores.subsets.get((b, a))
            if sub is not None and is_grouping(sub.subsets):
                kind[b] = KIND_SUBSET
                tree.subsets[tasks[b].nid] = sub.subsets
                forks[b] = len(sub.subsets)
                subset_tasks.append(b)
    if not ctx.j48:
        # cut_for, one binary search per attribute for all its cuts.
        cont = split[kind[split] == KIND_CONTINUOUS]
        # (sorted(set()), not np.unique: that imports numpy.ma, 0.02-0.05 s per run)
        for a in sorted(set(chosen[cont].tolist())):
            tb = cont[chosen[cont] == a]
            if a in ctx.distinct:
                thr[tb] = cuts_below(ctx, a, scores.bar[tb, a])  # float32 midpoints: exact
            else:
                # The midpoint itself until growth ends (place_thresholds): no training
                # value lies above the threshold and not above the midpoint, so the
                # cases go the same way, and the presorted rows can go after the root.
                thr[tb] = scores.bar[tb, a]
    nids = np.asarray([tasks[b].nid for b in split.tolist()], dtype=np.intp)
    tree.kind[nids] = kind[split]
    tree.attribute[nids] = chosen[split]
    tree.threshold[nids] = thr[split]
    branch = _route(ctx, tree, bucket, chosen, kind, thr, subset_tasks)
    return Tests(split, nids, forks, branch)


def _route(
    ctx: Context,
    tree: FlatTree,
    bucket: Bucket,
    chosen: IntArray,
    kind: npt.NDArray[np.int8],
    thr: npt.NDArray[np.float64],
    subset_tasks: list[int],
) -> IntArray:
    """Branch of every bucket entry at its task's test (-1 unknown, -2 no test).

    :func:`treegen.trainer.route.branch_of` for a whole bucket: one gather
    per kind of test (the tested column of cvals or ncodes per task) instead
    of one pass per attribute, then the subset tests one by one.
    """
    tid, rows = bucket.tid, bucket.rows
    is_cont = kind == KIND_CONTINUOUS
    is_nom = kind == KIND_NOMINAL
    cpos = np.full(bucket.n_tasks, -1, dtype=np.intp)
    npos = np.full(bucket.n_tasks, -1, dtype=np.intp)
    cpos[is_cont] = [ctx.cont_pos[a] for a in chosen[is_cont].tolist()]
    npos[is_nom] = [ctx.nom_pos[a] for a in chosen[is_nom].tolist()]
    if native.cscan is not None:
        # One pass over the entries for every kind of test but subsets: the same
        # branches as the gathers below.
        br = np.empty(rows.size, dtype=np.intp)
        values, width = value_table(ctx)
        native.cscan.route_branches(
            tid,
            np.ascontiguousarray(rows, dtype=np.intp),
            values,
            max(values.shape[1], 1),  # (the columns' stride; unused by row)
            cpos,
            np.ascontiguousarray(routing_cuts(thr, ctx.j48)),
            ctx.ncodes,
            ctx.ncodes.dtype.itemsize,
            ctx.ncodes.shape[1],
            npos,
            br,
            width,
        )
    else:
        br = _route_numpy(ctx, bucket, cpos, npos, thr)
    for b in subset_tasks:
        a = int(chosen[b])
        table = subset_table(ctx.n_values[a], tree.subsets[bucket.tasks[b].nid])
        sel = np.flatnonzero(tid == b)
        br[sel] = table[ctx.ncodes[rows[sel], ctx.nom_pos[a]]]
    return br


def _route_numpy(
    ctx: Context, bucket: Bucket, cpos: IntArray, npos: IntArray, thr: npt.NDArray[np.float64]
) -> IntArray:
    """numpy path of :func:`_route` (``route_branches``) for continuous and multiway tests;
    -2 elsewhere."""
    tid, rows = bucket.tid, bucket.rows
    br = np.full(rows.size, -2, dtype=np.intp)
    # The gathers index the tables as flat arrays: numpy's 2-D fancy indexing costs
    # twice a 1-D gather of the same elements.
    ce = cpos[tid]
    sel = np.flatnonzero(ce >= 0)
    if sel.size:
        table, width = value_table(ctx)
        if width:  # the values held row by row (growth below the root)
            v = table.reshape(-1)[rows[sel] * width + ce[sel]]
        else:
            v = table.reshape(-1)[ce[sel] * table.shape[1] + rows[sel]]
        out = np.where(v <= routing_cuts(thr, ctx.j48)[tid[sel]], 0, 1)
        out[np.isnan(v)] = -1
        br[sel] = out
    ne_ = npos[tid]
    sel = np.flatnonzero(ne_ >= 0)
    if sel.size:
        br[sel] = ctx.ncodes.reshape(-1)[rows[sel] * ctx.ncodes.shape[1] + ne_[sel]] - 1
    return br
