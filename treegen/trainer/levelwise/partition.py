"""Splitting a bucket of nodes into their children (section 1 steps 8-9), all at once.

:func:`partition` takes the bucket's chosen tests through these steps:

1. :func:`~treegen.trainer.levelwise.routing.write_tests`: each test written to
   the tree, and the branch of every case (-1 when its value is unknown);
2. :func:`_branches`: the known weight per branch, ``Factor = known_v /
   KnownCases``, which branches are non-empty (each becomes a child), and
   the unknown cases' weights per branch (Release 8's float round trip from
   branch to branch);
3. :func:`_child_cases`: the children's case lists (parent order kept, so
   sums run in the same order as a node-by-node grower);
4. :func:`_child_stats`: every child's weight and class distribution, and
   whether it stays a leaf;
5. :func:`~treegen.trainer.levelwise.children.children_sorted`: the sorted
   arrays of the children that grow, obtained by distributing the parent's in
   order (C ``part_sorted``, or a stable sort by child in numpy) instead of
   sorting again;
6. :func:`_add_children`: the children as consecutive nodes of the
   FlatTree, branches without a known case as empty leaves with the
   parent's class and distribution;
7. :func:`_child_tasks`: a task for every child that may split.

A test that leaves all the known weight in one branch is undone before step 2
(:func:`_drop_one_branch_tests`: the node stays a leaf), since that child would
be the node itself again and split the same way forever.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.model.constants import KIND_LEAF, KIND_NOMINAL
from treegen.trainer import native
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.bucket import Bucket, BucketScores, Task
from treegen.trainer.levelwise.children import (
    Branches,
    ChildCases,
    ChildStats,
    SortedChildren,
    Tests,
    children_sorted,
)
from treegen.trainer.levelwise.flat import FlatTree
from treegen.trainer.levelwise.routing import write_tests
from treegen.trainer.select import stays_leaf

FloatArray = npt.NDArray[np.floating]
BoolArray = npt.NDArray[np.bool_]


def partition(
    ctx: Context, tree: FlatTree, bucket: Bucket, scores: BucketScores, chosen: IntArray
) -> list[Task]:
    """Split the bucket's nodes on their chosen attributes (``chosen[b]``, -1: none).

    Writes each test and the children's nodes into ``tree`` and returns a
    task for every child that may split in turn (the others are leaves).
    Sums run as a node-by-node grower runs them, so the children's weights
    and records are bit for bit the reference engine's.
    """
    tests, known = _drop_one_branch_tests(
        ctx, tree, bucket, write_tests(ctx, tree, bucket, scores, chosen)
    )
    if tests.split.size == 0:
        return []
    branches = _branches(ctx, tree, bucket, tests, known)
    cases, sums = _child_cases(ctx, bucket, tests, branches)
    # Nothing reads the entries' classes after the children's sums: they go before the
    # sorted arrays are made (at 1M rows, 5 MB less at growth's peak).
    bucket.y = np.empty(0, dtype=bucket.y.dtype)
    stats = _child_stats(ctx, *sums)
    del sums
    grows = ~stats.leaf
    kc = len(ctx.cont_pos)
    if kc and grows.any():
        sorted_ = children_sorted(ctx, bucket, tests, branches, cases, grows)
    else:
        n_child = branches.n_child
        sorted_ = SortedChildren(
            np.zeros(0, dtype=np.int32),
            np.zeros(n_child + 1, dtype=np.intp),
            np.zeros((n_child, kc), dtype=np.intp),
        )
    node_of = _add_children(ctx, tree, tests, branches, stats)
    return _child_tasks(tree, bucket, tests, branches, cases, stats, sorted_, node_of)


# Per (task, branch) the known weight and how many entries, per task the unknown
# weight (_branch_sums), as _drop_one_branch_tests sums them for _branches (None
# when a test was undone).
KnownSums = tuple[FloatArray, IntArray, FloatArray] | None


def _branch_sums(
    ctx: Context, bucket: Bucket, br: IntArray, F: int
) -> tuple[FloatArray, IntArray, FloatArray]:
    """Per (task, branch) of width ``F``: the known weight (B, F) and the entries
    (B, F) going that way; per task the weight of the entries whose value is unknown.

    Every sum runs in entry order (``CountItems``), in the flavour's precision:
    ``branch_sums`` in one pass, or ``ctx.sums`` (the same additions).
    """
    B = bucket.n_tasks
    tid, w = bucket.tid, bucket.w
    if native.cscan is not None and F > 0:
        known_v = np.empty(B * F, dtype=ctx.dtype)
        count_v = np.empty(B * F, dtype=np.intp)
        unk_w = np.empty(B, dtype=ctx.dtype)
        native.cscan.branch_sums(
            tid, br, np.ascontiguousarray(w, dtype=ctx.dtype), F, known_v, count_v, unk_w
        )
        return known_v.reshape(B, F), count_v.reshape(B, F), unk_w
    kn = br >= 0
    cell = tid[kn] * F + br[kn]
    counts: IntArray = np.bincount(cell, minlength=B * F).reshape(B, F)
    unk = br == -1
    return ctx.sums(cell, w[kn], B * F).reshape(B, F), counts, ctx.sums(tid[unk], w[unk], B)


def _drop_one_branch_tests(
    ctx: Context, tree: FlatTree, bucket: Bucket, tests: Tests
) -> tuple[Tests, KnownSums]:
    """The tests without those that leave all the known weight in one branch.

    Such a child would be its parent again (and split the same way forever),
    so the test is no split and the node stays a leaf, as in the reference
    engine's ``form_tree``: its test is taken out of ``tree`` and its cases
    go nowhere (branch -2, as an unsplit task's).  "Weight > 0" is the test,
    so summation order cannot make the engines disagree.  When no test is undone
    the sums are :func:`_branches`' too, and are handed on.
    """
    B = bucket.n_tasks
    F = int(tests.forks.max()) if B else 0
    sums = _branch_sums(ctx, bucket, tests.branch, F)
    one = np.count_nonzero(sums[0][tests.split] > 0, axis=1) < 2
    if not one.any():
        return tests, sums
    undone = tests.split[one]
    nids = tests.nids[one]
    tree.kind[nids] = KIND_LEAF
    tree.attribute[nids] = -1
    tree.threshold[nids] = np.nan
    for nid in nids.tolist():
        tree.subsets.pop(nid, None)
    gone = np.zeros(B, dtype=np.bool_)
    gone[undone] = True
    branch = np.where(gone[bucket.tid], -2, tests.branch)
    forks = tests.forks.copy()
    forks[undone] = 0
    return Tests(tests.split[~one], tests.nids[~one], forks, branch), None


def _branches(
    ctx: Context, tree: FlatTree, bucket: Bucket, tests: Tests, known: KnownSums = None
) -> Branches:
    """Known weight per branch, Factors, the children, the unknown cases' weights.

    The known and unknown sums run per task in entry order (sequential, as
    ``CountItems`` runs); the tests' non-empty branches and Factors are also
    recorded in ``tree`` for the Python pruner's first pass (TNode.factors).
    """
    dt = ctx.dtype
    B = bucket.n_tasks
    F = int(tests.forks.max())
    br = tests.branch
    # the same tests as known's when it comes, so the same width F and cells
    known_v, count_v, unk_w = _branch_sums(ctx, bucket, br, F) if known is None else known
    known_cases = (bucket.cases.astype(dt) - unk_w.astype(dt)).astype(dt)
    nonempty = count_v > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = (known_v / known_cases[:, None]).astype(dt)
    split = tests.split
    # The Factors in the flavour's type, as computed (float32 for c45: half the bytes;
    # to_tnodes' tolist() gives the same Python floats).
    tree.branch_blocks.append(
        (tests.nids, nonempty[split], np.where(nonempty, factor, np.nan)[split])
    )
    # Child ids for non-empty branches, in task then branch order.
    child_id = np.full((B, F), -1, dtype=np.intp)
    ne_t, ne_v = np.nonzero(nonempty)
    child_id[ne_t, ne_v] = np.arange(ne_t.size)
    u_idx = np.flatnonzero(br == -1)
    cw = _unknown_weights(ctx, bucket, u_idx, nonempty, factor)
    return Branches(F, nonempty, factor, child_id, ne_t, br >= 0, u_idx, cw)


def _unknown_weights(
    ctx: Context, bucket: Bucket, u_idx: IntArray, nonempty: BoolArray, factor: FloatArray
) -> FloatArray:
    """Weight of each unknown-valued entry ``u_idx`` in each non-empty branch of its test.

    Release 8's round trip: branch v gets ``fl(w * F_v)`` and the next
    branch starts from ``fl(fl(w * F_v) / F_v)``; J48 scales the original
    weight each time.
    """
    dt = ctx.dtype
    F = nonempty.shape[1]
    u_t = bucket.tid[u_idx]
    cw = np.zeros((u_idx.size, F), dtype=dt)
    if u_idx.size:
        cur = bucket.w[u_idx].astype(dt)
        for v in range(F):
            has = nonempty[u_t, v]
            if not has.any():
                continue
            f = factor[u_t[has], v]
            val = (cur[has] * f).astype(dt)
            cw[has, v] = val
            if not ctx.j48:  # J48 scales a copy; Release 8 divides back in place
                cur[has] = (val / f).astype(dt)
    return cw


def _child_cases(
    ctx: Context, bucket: Bucket, tests: Tests, branches: Branches
) -> tuple[ChildCases, tuple[FloatArray, FloatArray]]:
    """Every child's (parent entry, weight) list: its branch's known cases and every unknown
    one; and every child's weight and class weights (n_child x classes), summed in list
    order (the sums the next level would do).

    The C kernel (``emit_children``) and the numpy code give the same lists and sums.
    """
    dt = ctx.dtype
    C = ctx.n_classes
    tid, br, w = bucket.tid, tests.branch, bucket.w
    F, nonempty, child_id = branches.width, branches.nonempty, branches.child_id
    n_child = branches.n_child
    u_idx, cw = branches.unknown, branches.unknown_w
    u_t = tid[u_idx]
    E = bucket.rows.size
    u_slot = np.full(E + 1, -1, dtype=np.intp)
    u_slot[u_idx] = np.arange(u_idx.size)
    pos_unk = np.full((u_idx.size + 1, F), -1, dtype=np.intp)
    pos_known = np.full(E + 1, -1, dtype=np.intp)
    if native.cscan is not None:
        n_ne = nonempty.sum(axis=1)
        total = int(np.count_nonzero(branches.known)) + int(n_ne[u_t].sum())
        starts_all = np.empty(n_child + 1, dtype=np.intp)
        ent_s = np.empty(total, dtype=np.intp)
        wt_s = np.empty(total, dtype=dt)
        rows = np.empty(total, dtype=np.intp)
        ccases = np.empty(n_child, dtype=dt)
        cfreq = np.empty(n_child * C, dtype=dt)
        native.cscan.emit_children(
            tid,
            np.ascontiguousarray(br, dtype=np.intp),
            np.ascontiguousarray(w, dtype=dt),
            np.ascontiguousarray(child_id, dtype=np.intp),
            F,
            u_slot,
            np.ascontiguousarray(cw, dtype=dt),
            np.dtype(dt).itemsize,
            starts_all,
            ent_s,
            wt_s,
            pos_known,
            pos_unk,
            np.ascontiguousarray(bucket.rows, dtype=np.intp),
            np.ascontiguousarray(bucket.y, dtype=np.intp),
            C,
            rows,
            ccases,
            cfreq,
        )
        del ent_s
        starts = starts_all[:-1]
        sizes = np.diff(starts_all)
        cases = ChildCases(rows, wt_s, starts, sizes, pos_known, u_slot, pos_unk)
        return cases, (ccases, cfreq.reshape(n_child, C))
    k_idx = np.flatnonzero(branches.known & (child_id[tid, np.maximum(br, 0)] >= 0))
    rep_u, rep_v = np.nonzero(nonempty[u_t])
    ch = np.concatenate((child_id[tid[k_idx], br[k_idx]], child_id[u_t[rep_u], rep_v]))
    ent = np.concatenate((k_idx, u_idx[rep_u]))
    wt = np.concatenate((w[k_idx].astype(dt), cw[rep_u, rep_v]))
    order = np.argsort(ch.astype(np.int64) * (E + 1) + ent, kind="stable")
    ch_s, ent_s, wt_s = ch[order], ent[order], wt[order]
    sizes = np.bincount(ch_s, minlength=n_child)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    local = np.arange(ent_s.size) - starts[ch_s]
    emitted_known = order < k_idx.size
    pos_known[ent_s[emitted_known]] = local[emitted_known]
    uo = order[~emitted_known] - k_idx.size  # index into rep_u/rep_v
    pos_unk[rep_u[uo], rep_v[uo]] = local[~emitted_known]
    rows = bucket.rows[ent_s]
    del ent_s
    ccases = ctx.sums(ch_s, wt_s, n_child)
    cfreq = ctx.sums(ch_s * C + ctx.y_small[rows], wt_s, n_child * C).reshape(n_child, C)
    return ChildCases(rows, wt_s, starts, sizes, pos_known, u_slot, pos_unk), (ccases, cfreq)


def _child_stats(ctx: Context, ccases: FloatArray, cfreq: FloatArray) -> ChildStats:
    """Every child's weight, class distribution, majority class and leaf rule.

    So the children that must stay leaves (:func:`~treegen.trainer.select.stays_leaf`)
    need no task.
    """
    cbest = np.argmax(cfreq, axis=1)
    cbestf = cfreq[np.arange(cfreq.shape[0]), cbest]
    return ChildStats(ccases, cfreq, cbest, cbestf, stays_leaf(ctx, ccases, cbestf))


def _add_children(
    ctx: Context, tree: FlatTree, tests: Tests, branches: Branches, stats: ChildStats
) -> IntArray:
    """Append every test's branches to ``tree`` as consecutive nodes; each child's node id.

    A non-empty branch's node takes its child's records; an empty branch is
    a leaf with the parent's class and distribution (and no cases).
    """
    dt = ctx.dtype
    split, nids = tests.split, tests.nids
    nf = tests.forks[split]
    base = tree.add(int(nf.sum()))
    first = base + np.cumsum(nf) - nf
    tree.first[nids] = first
    tree.count[nids] = nf
    slot_b = np.repeat(split, nf)  # the task of every new node
    slot_v = np.arange(int(nf.sum())) - np.repeat(first - base, nf)  # its branch
    slot_c = branches.child_id[slot_b, slot_v]
    ids = base + np.arange(slot_c.size)
    tree.depth[ids] = np.repeat(tree.depth[nids] + 1, nf)
    full = slot_c >= 0
    par = np.repeat(nids, nf)[~full]
    c = slot_c[full]
    tree.cls[ids[full]] = stats.best[c]
    tree.items[ids[full]] = stats.cases[c]
    tree.errors[ids[full]] = (stats.cases[c] - stats.best_freq[c]).astype(dt)
    tree.dist[ids[full]] = stats.freq[c]
    tree.cls[ids[~full]] = tree.cls[par]
    tree.dist[ids[~full]] = tree.dist[par]
    node_of = np.full(branches.n_child, -1, dtype=np.intp)
    node_of[c] = ids[full]
    return node_of


def _child_tasks(
    tree: FlatTree,
    bucket: Bucket,
    tests: Tests,
    branches: Branches,
    cases: ChildCases,
    stats: ChildStats,
    sorted_: SortedChildren,
    node_of: IntArray,
) -> list[Task]:
    """A task for every child that may split: its node, cases, weights and sorted arrays.

    A child's cases are all known in the attributes tested on its path when
    its parent's were and its parent's test met no unknown value; a nominal
    test's attribute is not tested again below it.
    """
    tasks, split, nids = bucket.tasks, tests.split, tests.nids
    has_unknown = np.bincount(bucket.tid[branches.unknown], minlength=bucket.n_tasks) > 0
    kind_l = tree.kind[nids].tolist()
    att_l = tree.attribute[nids].tolist()
    starts_l = cases.starts.tolist()
    ends_l = (cases.starts + cases.sizes).tolist()
    ost_l = sorted_.start.tolist()
    grow_c = np.flatnonzero(~stats.leaf)
    new: list[Task] = []
    owner = branches.owner[grow_c]  # the task each growing child comes from
    # Per parent task (children come parent by parent): its children's all_known and
    # tested set, made once; Python values rather than numpy scalars in the loop.
    unknown_l = has_unknown.tolist()
    shared: dict[int, tuple[bool, frozenset[int]]] = {}
    for k, b in enumerate(split.tolist()):
        t = tasks[b]
        tested = t.tested | {att_l[k]} if kind_l[k] == KIND_NOMINAL else t.tested
        shared[b] = (t.all_known and not unknown_l[b], tested)
    rows, w, srt, lens = cases.rows, cases.w, sorted_.srt, sorted_.lens
    node_l = node_of.tolist()
    for cc, b in zip(grow_c.tolist(), owner.tolist(), strict=True):
        all_known, tested = shared[b]
        lo, hi = starts_l[cc], ends_l[cc]
        new.append(
            Task(
                node_l[cc],
                rows[lo:hi],
                w[lo:hi],
                srt[ost_l[cc] : ost_l[cc + 1]],
                lens[cc],
                all_known,
                tested,
            )
        )
    return new
