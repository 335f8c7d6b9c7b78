"""Every attribute scored at every node of a bucket, into its :class:`BucketScores`.

:func:`score_bucket` scores the nominal attributes from one weighted count per (node,
attribute) for the whole bucket, and the continuous ones over each node's cases in
value order: through the C scan of :mod:`~treegen.trainer.levelwise.score` on unpadded
segments where it is built (a bucket of one large task one attribute at a time),
through :mod:`treegen.trainer.sparse` with many classes, else padded into 2-D chunks
for :func:`~treegen.trainer.splits.eval_continuous`. The same scores on every path.
:mod:`~treegen.trainer.levelwise.grow` chooses and splits on them.
"""

from __future__ import annotations

import numpy as np

from treegen.trainer import native, sparse
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.bucket import Bucket, BucketScores
from treegen.trainer.levelwise.rowvalues import value_table
from treegen.trainer.levelwise.score import eval_continuous_flat, scan_scratch
from treegen.trainer.nominal import score_nominal
from treegen.trainer.splits import CHUNK, ContScores, eval_continuous

PAD_RATIO = 0.875  # a scoring chunk's tasks are at least this fraction of its widest
# A lone task of this many cases is scored one attribute at a time (_score_large_task),
# and grow.py starts a bucket whose largest task has this many with the freed heap
# pages given back and maps its arrays of 1 MB and more on their own: at 1M rows
# growth's peak is at such a bucket, and the heap then held 5-50 MB of freed arrays.
LARGE_TASK = 1 << 17


def score_bucket(ctx: Context, bucket: Bucket, scores: BucketScores) -> None:
    """Score every attribute at every node of ``bucket`` into ``scores``."""
    _score_nominal(ctx, bucket, scores)
    if ctx.cont_pos:
        _score_continuous(ctx, bucket, scores)


def _score_nominal(ctx: Context, bucket: Bucket, scores: BucketScores) -> None:
    """Score every nominal attribute at every node of the bucket into ``scores``.

    Every one as a multiway test, from one weighted count ``Freq[v][c]`` per (node,
    attribute) for the whole bucket (with ``--subsets``,
    :func:`~treegen.trainer.levelwise.grouping.group_values` then replaces the scores
    of those of more than two values by their groupings').  Attributes already tested
    on a node's path are inadmissible there.
    """
    tasks, tid, cases = bucket.tasks, bucket.tid, bucket.cases
    B = bucket.n_tasks
    C = ctx.n_classes
    plain = list(ctx.nom_pos)
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
