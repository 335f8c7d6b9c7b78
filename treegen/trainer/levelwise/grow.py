"""Level-wise growth: every node of a tree level scored and split in one batch.

Most nodes of a large tree are small, and scoring one node costs a few
hundred numpy calls whatever its size; so the nodes of a level are grouped
into buckets and each bucket is scored with the same
numpy passes as a single node (:mod:`treegen.trainer.splits`, one row per
(node, attribute)), then all its splits are partitioned together.  The
nodes are written into a :class:`~treegen.trainer.levelwise.flat.FlatTree` (arrays,
not objects), and with the C accelerator (:mod:`treegen.trainer.native`)
the sequential loops of scoring and partitioning run in C on the same
numbers.

Each node carries its own rows and weights (a case with an unknown value
appears in every non-empty branch).  The sums run in the same order as in
the node-by-node :func:`treegen.trainer.reference.grow.form_tree` (rows ascending),
and the weights of the unknown cases follow Release 8's ``Factor`` round
trip branch after branch: branch v gets ``fl(w * F_v)`` and the next branch
starts from ``fl(fl(w * F_v) / F_v)``.  The one thing not reproduced is
the drift that *deeper* round trips inside branch v's subtree leave on
those weights before branch v+1 (Release 8 grows depth first on one global
weight array); it changes a weight by float32 ulps, only for cases unknown
in two attributes tested on one path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_CONTINUOUS
from treegen.trainer import native, sparse
from treegen.trainer.context import Context, IntArray
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from, release_freed_memory
from treegen.trainer.levelwise.bucket import Bucket, BucketScores, Task
from treegen.trainer.levelwise.choose import choose, drop_below_min_gain_ratio
from treegen.trainer.levelwise.flat import FlatTree, collapse
from treegen.trainer.levelwise.grouping import group_values
from treegen.trainer.levelwise.partition import partition
from treegen.trainer.levelwise.rowvalues import value_table, values_by_column, values_by_row
from treegen.trainer.levelwise.score import eval_continuous_flat, scan_scratch
from treegen.trainer.options import GrowOptions
from treegen.trainer.select import stays_leaf
from treegen.trainer.splits import (
    CHUNK,
    ContScores,
    eval_continuous,
    nominal_freq,
    score_nominal,
)
from treegen.trainer.subsets import best_subsets_j48
from treegen.trainer.thresholds import cuts_by_scan

FloatArray = npt.NDArray[np.float64]

# (nodes x attributes x width) grouped in one bucket.  This and GROUP_ENTRIES bound
# what growth holds at once: at 100k rows the peak of the whole command went from
# 188 MB to 115 MB when they went from 1 << 22 and 1 << 20 to 1 << 20 and 1 << 16
# (with score.NATIVE_CHUNK and Workspace.LIMIT smaller too), at the same CPU time;
# GROUP_ENTRIES from 1 << 16 to 1 << 15 took 7 MB more off (101 -> 94 MB, issue 36).
BUCKET_CELLS = 1 << 20
PAD_RATIO = 0.875  # a scoring chunk's tasks are at least this fraction of its widest
GROUP_ENTRIES = 1 << 15  # cases (with copies) grown together before going deeper
# A bucket whose largest task has this many cases starts with the freed heap pages
# given back, and maps its arrays of 1 MB and more on their own: at 1M rows growth's
# peak is at such a bucket, and the heap then held 5-50 MB of freed arrays.
LARGE_TASK = 1 << 17
# Rounds between trims of the heap (every round: growth's peak at 1M rows 5 MB lower,
# 1.4-1.9 s more system time).  Since growth's scratch is reused (score.scan_scratch)
# its peak at 1M rows is 213 MB whether the heap is trimmed every 8 rounds, every 32 or
# never (its peak is at the large buckets, which trim first: LARGE_TASK); every 64
# rounds took 240k fewer page faults than every 8, about 0.8 s of system time.
TRIM_EVERY = 64


def grow_levels(
    ctx: Context,
    opts: GrowOptions,
    progress: Callable[[str, int], None] | None = None,
    *,
    spend: bool = False,
) -> FlatTree:
    """Grow the unpruned tree level by level (collapse applied at the end);
    ``progress("growing", nodes)`` after each round.  ``spend``: the presorted rows go
    once the root is split (:meth:`Context.drop_presorted`; ``presort`` makes them
    again for a caller that needs them)."""
    n = ctx.n_rows
    # A node per row at first: FlatTree writes a node's fields only when it is added,
    # so the unused capacity takes no memory, and at 1M rows (704,575 nodes) the
    # arrays are never copied to larger ones (each doubling was 15-20 MB at its peak).
    tree = FlatTree(ctx.n_classes, ctx.dtype, capacity=max(1024, n))
    root = tree.add(1)
    # Tasks are independent, so any order gives the same tree.  Groups of
    # tasks are grown depth first and a group larger than GROUP_ENTRIES is
    # halved: a whole level at once would hold every copy of every case with
    # an unknown value (one per branch, compounding level after level).
    stack = [
        [
            Task(
                root,
                np.arange(n, dtype=np.intp),
                ctx.start_weights(),
                ctx.sorted_flat,  # root positions are row ids
                ctx.presorted_len.copy(),
                True,
                frozenset(),
            )
        ]
    ]
    rounds = 0
    try:
        while stack:
            tasks = stack.pop()
            sizes = [t.rows.size for t in tasks]
            if len(tasks) > 1 and sum(sizes) > GROUP_ENTRIES:
                half = int(np.searchsorted(np.cumsum(sizes), sum(sizes) / 2)) + 1
                half = min(max(half, 1), len(tasks) - 1)
                stack.append(tasks[half:])
                stack.append(tasks[:half])
                continue
            nxt = _grow_round(ctx, tree, tasks, opts)
            if tree.leaks_minobjs:
                values_by_column(ctx)
                place_thresholds(ctx, tree)
                return tree  # only depth-first growth knows which nodes come after it
            if rounds == 0 and spend:
                # The root's rows, weights and sorted arrays (the presorted rows) go with
                # it: nothing reads them after its split (at 1M rows 52 MB less for the
                # rest of growth).  The values are held row by row below it.
                tasks.clear()
                ctx.drop_presorted()
                release_freed_memory()
                values_by_row(ctx)
            if nxt:
                stack.append(nxt)
            rounds += 1
            if progress is not None:
                progress("growing", tree.n)
            if rounds % TRIM_EVERY == 0:
                release_freed_memory()
    finally:
        values_by_column(ctx)  # (also where growth fails: the context as it was)
    release_freed_memory()
    place_thresholds(ctx, tree)
    tree.compact()
    if opts.collapse:
        collapse(tree, ctx.j48)
    return tree


def _grow_round(ctx: Context, tree: FlatTree, tasks: list[Task], opts: GrowOptions) -> list[Task]:
    """Grow ``tasks`` bucket by bucket; their children's tasks (none once the tree
    leaks MINOBJS)."""
    nxt: list[Task] = []
    for bucket in _buckets(ctx, tasks):
        if bucket[0].rows.size >= LARGE_TASK:
            release_freed_memory()  # the heap pages of earlier buckets, before a large one
            # Its arrays of 1-16 MB mapped on their own, each back to the OS when
            # freed (on the heap they stayed resident under the next ones).
            with blocks_mapped_from(STEP_BLOCK):
                nxt.extend(_grow_bucket(ctx, tree, bucket, opts))
        else:
            nxt.extend(_grow_bucket(ctx, tree, bucket, opts))
        if tree.leaks_minobjs:
            return []
    return nxt


def place_thresholds(ctx: Context, tree: FlatTree) -> None:
    """The c45 thresholds the partition left at their midpoints (the attributes
    without distinct values: more than ``DISTINCT_MAX_ROWS`` rows), each the largest
    training value not above it, for all the tree's tests of an attribute in one scan
    of its column (:func:`~treegen.trainer.thresholds.cuts_by_scan`)."""
    if ctx.j48:
        return
    n = tree.n
    cont = tree.kind[:n] == KIND_CONTINUOUS
    for a in ctx.cont_pos:
        if a in ctx.distinct:
            continue
        sel = np.flatnonzero(cont & (tree.attribute[:n] == a))
        if sel.size:
            tree.threshold[sel] = cuts_by_scan(ctx, a, tree.threshold[sel])


def _buckets(ctx: Context, tasks: list[Task]) -> list[list[Task]]:
    """Group tasks, largest first, into buckets of bounded (tasks x widest x attributes).

    The bound keeps a bucket's arrays small; padding is kept low by the
    scoring chunks (:data:`PAD_RATIO`), so buckets need not be of similar
    size, and fewer, larger buckets save per-call costs.
    """
    order = sorted(tasks, key=lambda t: -t.rows.size)
    kc = max(len(ctx.cont_pos), 1)
    out: list[list[Task]] = []
    cur: list[Task] = []
    width = 0
    for t in order:
        w = max(t.rows.size, 1)
        if cur and (len(cur) + 1) * width * kc > BUCKET_CELLS:
            out.append(cur)
            cur = []
        if not cur:
            width = w
        cur.append(t)
    if cur:
        out.append(cur)
    return out


def _grow_bucket(ctx: Context, tree: FlatTree, tasks: list[Task], opts: GrowOptions) -> list[Task]:
    """Grow one bucket of nodes: their records, their tests, their children's tasks.

    Every node gets its weight, class distribution and majority class; the
    ones that do not stay leaves are scored on every attribute, get the
    attribute :func:`choose` picks (if any) and are split into children.
    """
    dt = ctx.dtype
    C = ctx.n_classes
    bucket = Bucket.gather(ctx, tasks)
    B = bucket.n_tasks
    cases = bucket.cases
    freq = ctx.sums(bucket.tid * C + bucket.y, bucket.w, B * C).reshape(B, C)
    best = np.argmax(freq, axis=1)
    bestf = freq[np.arange(B), best]
    nids = np.asarray([t.nid for t in tasks], dtype=np.intp)
    tree.cls[nids] = best
    tree.items[nids] = cases
    tree.errors[nids] = (cases.astype(np.float64) - bestf.astype(np.float64)).astype(dt)
    tree.dist[nids] = freq
    grows = ~stays_leaf(ctx, cases, bestf)
    if opts.max_depth is not None:  # pre-pruning: nodes at --max-depth stay leaves
        grows &= tree.depth[nids] < opts.max_depth
    keep = np.flatnonzero(grows)
    if keep.size == 0:
        return []
    if keep.size < B:
        bucket = bucket.subset(ctx, keep)
    scores = BucketScores.empty(bucket.n_tasks, len(ctx.kinds))
    _score_nominal(ctx, bucket, opts, scores)
    if ctx.cont_pos:
        _score_continuous(ctx, bucket, scores)
    grouped = None
    if opts.subsets and not ctx.j48:
        grouped = group_values(ctx, bucket, opts, scores)
        if grouped is None:
            tree.leaks_minobjs = True
            return []
    chosen = choose(ctx, opts, scores, grouped)
    if opts.min_gain_ratio:
        drop_below_min_gain_ratio(chosen, scores, opts.min_gain_ratio)
    if not (chosen >= 0).any():
        return []
    return partition(ctx, tree, bucket, scores, chosen)


def _score_nominal(ctx: Context, bucket: Bucket, opts: GrowOptions, scores: BucketScores) -> None:
    """Score every nominal attribute at every node of the bucket into ``scores``.

    With ``--subsets``, attributes of more than two values are scored as
    subset tests (J48 here, node by node with
    :func:`~treegen.trainer.subsets.best_subsets_j48`; c45 in
    :func:`~treegen.trainer.levelwise.grouping.group_values`);
    the others as multiway tests, from one weighted count
    ``Freq[v][c]`` per (node, attribute) for the whole bucket.  Attributes
    already tested on a node's path are inadmissible there.
    """
    tasks, tid, cases = bucket.tasks, bucket.tid, bucket.cases
    B = bucket.n_tasks
    C = ctx.n_classes
    plain = list(ctx.nom_pos)
    if opts.subsets and ctx.j48:
        plain = [a for a in plain if ctx.n_values[a] <= 2]
        multi = [a for a in ctx.nom_pos if ctx.n_values[a] > 2]
        for b, t in enumerate(tasks):
            if not multi:
                break
            f3 = nominal_freq(ctx, multi, t.rows, t.w)
            for j, a in enumerate(multi):
                s = best_subsets_j48(
                    ctx, f3[j, : ctx.n_values[a] + 1], float(cases[b]), opts.criterion
                )
                if s is not None:
                    scores.set_subset(b, a, s)
    if not plain:
        return
    K = len(plain)
    kmax = max(ctx.n_values[a] for a in plain) + 1
    f = np.zeros((B, K, kmax * C), dtype=ctx.dtype)
    base = tid * (kmax * C) + bucket.y
    if native.cscan is not None:
        # f[b, k, v * C + c], every cell summed in case order as below (float32 for
        # c45 as np.add.at, double for j48 as bincount).
        native.cscan.nominal_counts(
            ctx.ncodes,
            ctx.ncodes.dtype.itemsize,
            ctx.ncodes.shape[1],
            bucket.rows,
            np.asarray([ctx.nom_pos[a] for a in plain], dtype=np.intp),
            tid * (K * kmax * C) + bucket.y,
            np.ascontiguousarray(bucket.w, dtype=ctx.dtype),
            kmax * C,
            C,
            f,
        )
    else:
        codes = ctx.ncodes[bucket.rows]  # all codes of a case in one gather (one cache line)
        for k, a in enumerate(plain):  # one attribute at a time keeps temporaries at n rows
            idx = base + codes[:, ctx.nom_pos[a]].astype(np.intp) * C
            f[:, k] = ctx.sums(idx, bucket.w, B * kmax * C).reshape(B, kmax * C)
    att = np.asarray(plain, dtype=np.intp)
    step = max(1, CHUNK // (K * kmax * C))  # tasks per scoring call: bounds temporaries
    for lo in range(0, B, step):
        hi = min(B, lo + step)
        gain, info, ok = score_nominal(
            ctx, f[lo:hi].reshape((hi - lo) * K, kmax, C), np.repeat(cases[lo:hi], K)
        )
        scores.gain[lo:hi, att] = gain.reshape(hi - lo, K)
        scores.info[lo:hi, att] = info.reshape(hi - lo, K)
        scores.ok[lo:hi, att] = ok.reshape(hi - lo, K)
    # Attributes already tested on the path: one scatter for the bucket.
    tb = [b for b, t in enumerate(tasks) for _ in t.tested]
    if tb:
        scores.ok[tb, [a for t in tasks for a in t.tested]] = False


def _score_continuous(ctx: Context, bucket: Bucket, scores: BucketScores) -> None:
    """Score every continuous attribute at every node of the bucket into ``scores``.

    Each (node, attribute) is a segment: the node's cases with a known
    value, in value order (``Task.srt``).  With the C accelerator the
    segments are scanned unpadded (:func:`eval_continuous_flat`); otherwise
    chunks of them are padded into 2-D arrays for :func:`eval_continuous`.
    The same scores either way.
    """
    dt = ctx.dtype
    tasks, tid, rows_cat, w_cat = bucket.tasks, bucket.tid, bucket.rows, bucket.w
    offsets, cases = bucket.offsets, bucket.cases
    B = bucket.n_tasks
    Kc = len(ctx.cont_pos)
    E = rows_cat.size
    lens = np.concatenate([t.lens for t in tasks])
    if ctx.n_classes >= sparse.MANY_CLASSES and sparse.available(ctx):
        _score_continuous_sparse(ctx, bucket, lens, scores)
        return
    if native.cscan is not None and ctx.c_scan and B == 1 and E >= LARGE_TASK:
        _score_large_task(ctx, bucket, lens, scores)
        return
    if native.cscan is not None and ctx.c_scan:
        # The C path: the bucket's values gathered into one record per case (one
        # cache line for all its attributes) with the unknown weights summed in
        # the same pass, then the scan over the unpadded segments.  Same numbers
        # as the numpy path below.
        rec = np.empty((E, Kc + 2), dtype=dt)
        unk = np.zeros(B * Kc, dtype=dt)
        table, width = value_table(ctx)
        native.cscan.gather_values(
            table,
            Kc,
            rows_cat,
            np.ascontiguousarray(w_cat, dt),
            np.ascontiguousarray(bucket.y, np.intp),
            tid,
            rec,
            unk,
            width,
        )
        # The tasks' positions as they are (a lone task's read only), each segment
        # offset to its task's entries in the scan; kept on the bucket for the
        # partition's part_sorted, which reads the same arrays.
        pos = tasks[0].srt if B == 1 else np.concatenate([t.srt for t in tasks])
        per_task = lens.reshape(B, Kc).sum(axis=1)
        bucket.srt, bucket.srt_start = pos, np.cumsum(per_task) - per_task
        cs = eval_continuous_flat(
            ctx,
            rec,
            np.tile(np.arange(Kc, dtype=np.intp), B),
            pos,
            lens,
            np.repeat(cases, Kc),
            unk,
            np.repeat(offsets, Kc),
        )
        scores.set_continuous(ctx, cs)
        return
    rows_ext = np.append(rows_cat, ctx.n_rows)
    w_ext = np.append(w_cat, dt(0)).astype(dt)
    unk = np.zeros(B * Kc, dtype=dt)
    if (lens < np.repeat([t.rows.size for t in tasks], Kc)).any():
        k_idx, e_idx = np.nonzero(np.isnan(ctx.cvals[:, rows_cat]))
        if e_idx.size:
            unk = ctx.sums(tid[e_idx] * Kc + k_idx, w_cat[e_idx], B * Kc)
    n_rows = B * Kc
    gain, info, bar = np.zeros(n_rows), np.zeros(n_rows), np.full(n_rows, np.nan)
    ok = np.zeros(n_rows, dtype=np.bool_)
    widest = lens.reshape(B, Kc).max(axis=1)
    lo = 0
    while lo < B:  # tasks come largest first: chunk so padded cells stay bounded
        width = max(int(widest[lo]), 1)
        hi = min(B, lo + max(1, CHUNK // (width * Kc)))
        # ... and so that little of a chunk is padding: its tasks are within
        # PAD_RATIO of its widest (buckets are coarser, which saves per-call
        # costs in counting and partitioning).
        narrow = np.flatnonzero(widest[lo + 1 : hi] < width * PAD_RATIO)
        if narrow.size:
            hi = lo + 1 + int(narrow[0])
        part = tasks[lo:hi]
        flat = np.concatenate([t.srt for t in part]).astype(np.intp)
        r0, r1 = lo * Kc, hi * Kc
        flat += np.repeat(offsets[lo:hi], lens[r0:r1].reshape(hi - lo, Kc).sum(axis=1))
        idx = padded_rows(flat, lens[r0:r1], E)
        cs = eval_continuous(
            ctx,
            np.tile(np.arange(Kc, dtype=np.intp), hi - lo),
            rows_ext[idx],
            w_ext[idx],
            lens[r0:r1],
            np.repeat(cases[lo:hi], Kc),
            unk[r0:r1],
        )
        gain[r0:r1], info[r0:r1], bar[r0:r1], ok[r0:r1] = cs.gain, cs.info, cs.bar, cs.ok
        lo = hi
    scores.set_continuous(ctx, ContScores(gain, info, bar, ok))


def _score_large_task(ctx: Context, bucket: Bucket, lens: IntArray, scores: BucketScores) -> None:
    """:func:`_score_continuous`'s C path for a bucket of one large task, one attribute
    at a time: records of one value (with the weight and class) instead of all Kc, 12
    bytes a case instead of 48 with 10 attributes (at 1M rows, 23 MB less at growth's
    peak).  The same gathers and scans, so the same scores."""
    assert native.cscan is not None
    dt = ctx.dtype
    task = bucket.tasks[0]
    E = bucket.rows.size
    Kc = len(ctx.cont_pos)
    rows = bucket.rows
    w = np.ascontiguousarray(bucket.w, dt)
    y = np.ascontiguousarray(bucket.y, np.intp)
    first = np.cumsum(lens) - lens
    one = np.zeros(1, dtype=np.intp)
    parts: list[ContScores] = []
    # One record array and one scan scratch for all the attributes: made afresh for
    # each, their pages were faulted in again (at 1M rows about 12 and 20 MB an
    # attribute at the root).
    rec = np.empty((E, 3), dtype=dt)
    scratch = scan_scratch(int(lens.max()) if lens.size else 0)
    table, width = value_table(ctx)
    for k in range(Kc):
        unk = np.zeros(1, dtype=dt)
        if width:  # attribute k of the rows
            native.cscan.gather_values(table, 1, rows, w, y, bucket.tid, rec, unk, width, k)
        else:
            native.cscan.gather_values(table[k : k + 1], 1, rows, w, y, bucket.tid, rec, unk)
        lo, n = int(first[k]), int(lens[k])
        parts.append(
            eval_continuous_flat(
                ctx,
                rec,
                one,
                task.srt[lo : lo + n],
                lens[k : k + 1],
                bucket.cases,
                unk,
                one,
                scratch,
            )
        )
    del rec, scratch
    bucket.srt, bucket.srt_start = task.srt, one
    scores.set_continuous(
        ctx,
        ContScores(
            np.concatenate([p.gain for p in parts]),
            np.concatenate([p.info for p in parts]),
            np.concatenate([p.bar for p in parts]),
            np.concatenate([p.ok for p in parts]),
        ),
    )


def _score_continuous_sparse(
    ctx: Context, bucket: Bucket, lens: IntArray, scores: BucketScores
) -> None:
    """:func:`_score_continuous` with many classes: the segments' rows and weights in
    order, scored over the classes present (:mod:`treegen.trainer.sparse`); the
    unknown weights summed as the numpy path sums them.  The same scores."""
    tasks, tid, rows_cat, w_cat = bucket.tasks, bucket.tid, bucket.rows, bucket.w
    B = bucket.n_tasks
    Kc = len(ctx.cont_pos)
    unk = np.zeros(B * Kc, dtype=ctx.dtype)
    if (lens < np.repeat([t.rows.size for t in tasks], Kc)).any():
        k_idx, e_idx = np.nonzero(np.isnan(ctx.cvals[:, rows_cat]))
        if e_idx.size:
            unk = ctx.sums(tid[e_idx] * Kc + k_idx, w_cat[e_idx], B * Kc)
    pos = np.concatenate([t.srt for t in tasks]).astype(np.intp)
    pos += np.repeat(bucket.offsets, lens.reshape(B, Kc).sum(axis=1))
    cs = sparse.eval_segments(
        ctx,
        np.tile(np.arange(Kc, dtype=np.intp), B),
        rows_cat[pos],
        w_cat[pos],
        lens,
        np.repeat(bucket.cases, Kc),
        unk,
    )
    scores.set_continuous(ctx, cs)


def padded_rows(flat: IntArray, lens: IntArray, pad: int) -> IntArray:
    """Rows of lengths ``lens`` stored one after another -> 2-D, padded with ``pad``."""
    width = max(int(lens.max()) if lens.size else 0, 1)
    out = np.full((lens.size, width), pad, dtype=np.intp)
    starts = np.cumsum(lens) - lens
    # Entry j of row r goes to r * width + (j - starts[r]): one 1-D scatter.
    dest = np.arange(flat.size) + np.repeat(np.arange(lens.size) * width - starts, lens)
    out.ravel()[dest] = flat
    return out
