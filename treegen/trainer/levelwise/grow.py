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
from treegen.model.options import refuse_subsets_with
from treegen.trainer import native
from treegen.trainer.context import Context
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from, release_freed_memory
from treegen.trainer.levelwise import evaluate
from treegen.trainer.levelwise.bucket import Bucket, BucketScores, Task
from treegen.trainer.levelwise.choose import choose, drop_below_min_gain_ratio
from treegen.trainer.levelwise.flat import FlatTree, collapse
from treegen.trainer.levelwise.grouping import group_values
from treegen.trainer.levelwise.partition import partition
from treegen.trainer.levelwise.rowvalues import values_by_column, values_by_row
from treegen.trainer.options import GrowOptions
from treegen.trainer.select import stays_leaf
from treegen.trainer.thresholds import cuts_by_scan

FloatArray = npt.NDArray[np.float64]

# (nodes x attributes x width) grouped in one bucket.  This and GROUP_ENTRIES bound
# what growth holds at once: at 100k rows the peak of the whole command went from
# 188 MB to 115 MB when they went from 1 << 22 and 1 << 20 to 1 << 20 and 1 << 16
# (with score.NATIVE_CHUNK and Workspace.LIMIT smaller too), at the same CPU time;
# GROUP_ENTRIES from 1 << 16 to 1 << 15 took 7 MB more off (101 -> 94 MB at 100k rows).
BUCKET_CELLS = 1 << 20
GROUP_ENTRIES = 1 << 15  # cases (with copies) grown together before going deeper
# Rounds between trims of the heap (every round: growth's peak at 1M rows 5 MB lower,
# 1.4-1.9 s more system time).  Since growth's scratch is reused (score.scan_scratch)
# its peak at 1M rows is 213 MB whether the heap is trimmed every 8 rounds, every 32 or
# never (its peak is at the large buckets, which trim first: evaluate.LARGE_TASK);
# every 64 rounds took 240k fewer page faults than every 8, about 0.8 s of system time.
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
    refuse_subsets_with(ctx.flavor, opts.subsets)
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
            tasks = _merged(stack, tasks, sum(sizes))
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


def _merged(stack: list[list[Task]], tasks: list[Task], entries: int) -> list[Task]:
    """``tasks`` with the groups on top of ``stack`` taken off it and added while the
    cases stay within :data:`GROUP_ENTRIES`.

    Deep in the tree a group's children are a small group (most of its nodes became
    leaves), and the halving never joins groups again: at 1M rows 571 of 1,223 groups
    held under 2^14 cases, each at two to eight times the cost a case of a full one
    (a bucket's numpy and Python calls); taken together, 164 of 858.  Those groups are
    held on the stack anyway, so growing them together holds no more at once than one
    group of GROUP_ENTRIES does; and tasks are independent, so the tree is the same.
    """
    while stack and stack[-1]:
        more = sum(t.rows.size for t in stack[-1])
        if entries + more > GROUP_ENTRIES:
            break
        tasks = tasks + stack.pop()
        entries += more
    return tasks


def _grow_round(ctx: Context, tree: FlatTree, tasks: list[Task], opts: GrowOptions) -> list[Task]:
    """Grow ``tasks`` bucket by bucket; their children's tasks (none once the tree
    leaks MINOBJS)."""
    nxt: list[Task] = []
    for bucket in _buckets(ctx, tasks):
        if bucket[0].rows.size >= evaluate.LARGE_TASK:
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

    The bound keeps a bucket's arrays small where the continuous scores are computed
    on padded (tasks x widest) arrays (numpy's path); padding is kept low by the
    scoring chunks (:data:`~treegen.trainer.levelwise.evaluate.PAD_RATIO`), so
    buckets need not be of similar size, and fewer, larger buckets save per-call
    costs.  The C scan pads nothing (a bucket's arrays are a few per case), so there
    the whole group is one bucket: at 1M rows the bound had split 1,223 groups into
    1,513 buckets, mostly a full group's large tasks apart from its many small ones.
    """
    order = sorted(tasks, key=lambda t: -t.rows.size)
    if native.cscan is not None and ctx.c_scan:
        return [order]
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
    evaluate.score_bucket(ctx, bucket, scores)
    grouped = None
    if opts.subsets:
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
