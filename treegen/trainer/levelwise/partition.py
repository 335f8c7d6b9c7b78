"""Splitting a batch of nodes into their children (section 1 steps 8-9), all at once.

For every chosen test: the outcome of each case (-1 when its value is
unknown), the known weight per branch, ``Factor = known_v / KnownCases``,
the unknown cases' weights per branch (Release 8's float round trip from
branch to branch), the children's case lists (parent order kept, so sums
run in the same order as a node-by-node grower) and the children's sorted
arrays, obtained by distributing the parent's in order (C ``part_sorted``,
or a stable sort by child in numpy) instead of sorting again.  The
children become consecutive nodes of the FlatTree; branches without a
known case are empty leaves with the parent's class and distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer import native
from treegen.trainer.constants import KIND_CONTINUOUS, KIND_NOMINAL, KIND_SUBSET
from treegen.trainer.context import Context, IntArray
from treegen.trainer.levelwise.flat import FlatTree
from treegen.trainer.route import subset_table
from treegen.trainer.select import stays_leaf
from treegen.trainer.splits import Score

FloatArray = npt.NDArray[np.floating]


@dataclass(slots=True, eq=False)
class Task:
    """A node waiting to be grown, with the cases that reach it."""

    nid: int  # the node's id in the FlatTree
    rows: IntArray  # global row ids, ascending
    w: FloatArray  # their weights at this node
    # Per continuous attribute, one after another: positions into rows of the
    # cases with a known value, in value order (lens[k] of them for attribute k).
    srt: npt.NDArray[np.int32]
    lens: IntArray
    all_known: bool
    tested: frozenset[int]


def _outcomes(
    ctx: Context,
    tree: FlatTree,
    tasks: list[Task],
    split: IntArray,
    chosen: IntArray,
    BAR: npt.NDArray[np.float64],
    subs: dict[tuple[int, int], Score],
    tid: IntArray,
    rows_cat: IntArray,
) -> tuple[IntArray, IntArray]:
    """Branch index of every case of the split tasks (-1 unknown) and each task's forks.

    Also records each split task's test in ``tree``.
    """
    B = len(tasks)
    forks = np.zeros(B, dtype=np.intp)
    br = np.full(rows_cat.size, -2, dtype=np.intp)
    thr = np.full(B, np.nan)
    # Per task, the tested column of cvals (continuous) or ncodes (nominal):
    # one gather per kind of test instead of one pass per attribute.
    cpos = np.full(B, -1, dtype=np.intp)
    npos = np.full(B, -1, dtype=np.intp)
    kind = np.zeros(B, dtype=np.int8)
    subset_tasks: list[int] = []
    for b in split.tolist():
        a = int(chosen[b])
        if ctx.kinds[a] == "continuous":
            kind[b] = KIND_CONTINUOUS
            if ctx.j48:
                thr[b] = ctx.cut_for(a, float(BAR[b, a]))
            forks[b] = 2
            cpos[b] = ctx.cont_pos[a]
        elif (b, a) in subs and len(subs[(b, a)].subsets) < ctx.n_values[a]:
            kind[b] = KIND_SUBSET
            tree.subsets[tasks[b].nid] = subs[(b, a)].subsets
            forks[b] = len(subs[(b, a)].subsets)
            subset_tasks.append(b)
        else:
            kind[b] = KIND_NOMINAL
            forks[b] = ctx.n_values[a]
            npos[b] = ctx.nom_pos[a]
    if not ctx.j48:
        # ctx.cut_for, one binary search per attribute for all its cuts.
        cont = split[kind[split] == KIND_CONTINUOUS]
        for a in np.unique(chosen[cont]).tolist():
            tb = cont[chosen[cont] == a]
            d = ctx.distinct[a]
            bar = BAR[tb, a].astype(d.dtype)  # float32 midpoints: exact
            i = np.searchsorted(d, bar, side="right") - 1
            assert (i >= 0).all(), "midpoint lies above a training value by construction"
            thr[tb] = d[i]
    nids = np.asarray([tasks[b].nid for b in split.tolist()], dtype=np.intp)
    tree.kind[nids] = kind[split]
    tree.attribute[nids] = chosen[split]
    tree.threshold[nids] = thr[split]
    ce = cpos[tid]
    sel = np.flatnonzero(ce >= 0)
    if sel.size:
        v = ctx.cvals[ce[sel], rows_cat[sel]]
        out = np.where(v <= thr[tid[sel]], 0, 1)
        out[np.isnan(v)] = -1
        br[sel] = out
    ne_ = npos[tid]
    sel = np.flatnonzero(ne_ >= 0)
    if sel.size:
        br[sel] = ctx.ncodes[rows_cat[sel], ne_[sel]] - 1
    for b in subset_tasks:
        a = int(chosen[b])
        table = subset_table(ctx.n_values[a], tree.subsets[tasks[b].nid])
        sel = np.flatnonzero(tid == b)
        br[sel] = table[ctx.ncodes[rows_cat[sel], ctx.nom_pos[a]]]
    return br, forks


def partition(
    ctx: Context,
    tree: FlatTree,
    tasks: list[Task],
    split: IntArray,
    chosen: IntArray,
    BAR: npt.NDArray[np.float64],
    subs: dict[tuple[int, int], Score],
    tid: IntArray,
    rows_cat: IntArray,
    w_cat: FloatArray,
    offsets: IntArray,
    cases: FloatArray,
) -> list[Task]:
    dt = ctx.dtype
    br, forks = _outcomes(ctx, tree, tasks, split, chosen, BAR, subs, tid, rows_cat)
    B = len(tasks)
    F = int(forks.max())
    # Per-task unknown weight and known weight per branch (sequential sums).
    unk = br == -1
    unk_w = ctx.sums(tid[unk], w_cat[unk], B)
    known_cases = (cases.astype(dt) - unk_w.astype(dt)).astype(dt)
    kn = br >= 0
    known_v = ctx.sums(tid[kn] * F + br[kn], w_cat[kn], B * F).reshape(B, F)
    count_v = np.bincount(tid[kn] * F + br[kn], minlength=B * F).reshape(B, F)
    nonempty = count_v > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = (known_v / known_cases[:, None]).astype(dt)
    # For the Python pruner's first pass (see TNode.factors).
    nids = np.asarray([tasks[b].nid for b in split.tolist()], dtype=np.intp)
    tree.branch_blocks.append(
        (nids, nonempty[split], np.where(nonempty, factor, np.nan)[split].astype(np.float64))
    )
    # Child ids for non-empty branches, in task then branch order.
    child_id = np.full((B, F), -1, dtype=np.intp)
    ne_t, ne_v = np.nonzero(nonempty)
    child_id[ne_t, ne_v] = np.arange(ne_t.size)
    n_child = ne_t.size
    # Unknown cases: weight in each branch, round trip from branch to branch.
    u_idx = np.flatnonzero(unk)
    u_t = tid[u_idx]
    cw = np.zeros((u_idx.size, F), dtype=dt)
    if u_idx.size:
        cur = w_cat[u_idx].astype(dt)
        for v in range(F):
            has = nonempty[u_t, v]
            if not has.any():
                continue
            f = factor[u_t[has], v]
            val = (cur[has] * f).astype(dt)
            cw[has, v] = val
            if not ctx.j48:  # J48 scales a copy; Release 8 divides back in place
                cur[has] = (val / f).astype(dt)
    # Emit (child, parent entry, weight) for known and unknown cases: every
    # child's cases in entry order.
    E = rows_cat.size
    u_slot = np.full(E + 1, -1, dtype=np.intp)
    u_slot[u_idx] = np.arange(u_idx.size)
    pos_unk = np.full((u_idx.size + 1, F), -1, dtype=np.intp)
    if native.cscan is not None:
        n_ne = nonempty.sum(axis=1)
        total = int(np.count_nonzero(kn)) + int(n_ne[u_t].sum())
        starts_all = np.empty(n_child + 1, dtype=np.intp)
        ent_s = np.empty(total, dtype=np.intp)
        wt_s = np.empty(total, dtype=dt)
        pos_known = np.full(E + 1, -1, dtype=np.intp)
        native.cscan.emit_children(
            tid,
            np.ascontiguousarray(br, dtype=np.intp),
            np.ascontiguousarray(w_cat, dtype=dt),
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
        )
        starts = starts_all[:-1]
        sizes = np.diff(starts_all)
        ch_s = np.repeat(np.arange(n_child), sizes)
    else:
        k_idx = np.flatnonzero(kn & (child_id[tid, np.maximum(br, 0)] >= 0))
        rep_u, rep_v = np.nonzero(nonempty[u_t])
        ch = np.concatenate((child_id[tid[k_idx], br[k_idx]], child_id[u_t[rep_u], rep_v]))
        ent = np.concatenate((k_idx, u_idx[rep_u]))
        wt = np.concatenate((w_cat[k_idx].astype(dt), cw[rep_u, rep_v]))
        order = np.argsort(ch.astype(np.int64) * (E + 1) + ent, kind="stable")
        ch_s, ent_s, wt_s = ch[order], ent[order], wt[order]
        sizes = np.bincount(ch_s, minlength=n_child)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        local = np.arange(ent_s.size) - starts[ch_s]
        pos_known = np.full(E + 1, -1, dtype=np.intp)
        emitted_known = order < k_idx.size
        pos_known[ent_s[emitted_known]] = local[emitted_known]
        uo = order[~emitted_known] - k_idx.size  # index into rep_u/rep_v
        pos_unk[rep_u[uo], rep_v[uo]] = local[~emitted_known]
    # Every child's weight and class distribution now (the same sequential sums
    # the next level would do): children that must stay leaves need no task.
    C = ctx.n_classes
    y_s = ctx.y[rows_cat[ent_s]]
    ccases = ctx.sums(ch_s, wt_s, n_child)
    cfreq = ctx.sums(ch_s * C + y_s, wt_s, n_child * C).reshape(n_child, C)
    cbest = np.argmax(cfreq, axis=1)
    cbestf = cfreq[np.arange(n_child), cbest]
    leaf = stays_leaf(ctx, ccases, cbestf)
    # Children's sorted arrays: every entry of a parent's sorted array goes to
    # its branch's child (unknown values to every non-empty branch), in order.
    kc = len(ctx.cont_pos)
    grows = ~leaf
    if kc and grows.any():
        srt_out, out_start, out_lens = _children_sorted(
            ctx,
            tasks,
            split,
            offsets,
            tid,
            br,
            nonempty,
            child_id,
            grows,
            pos_known,
            u_slot,
            pos_unk,
        )
    else:
        srt_out = np.zeros(0, dtype=np.int32)
        out_start = np.zeros(n_child + 1, dtype=np.intp)
        out_lens = np.zeros((n_child, kc), dtype=np.intp)
    # Child nodes, and tasks for the children that may split.
    rows_s = rows_cat[ent_s]
    has_unknown = np.bincount(tid[unk], minlength=B) > 0
    # The children as nodes: each test's branches get consecutive ids; an
    # empty branch is a leaf with the parent's class and distribution.
    nf = forks[split]
    base = tree.add(int(nf.sum()))
    first = base + np.cumsum(nf) - nf
    tree.first[nids] = first
    tree.count[nids] = nf
    slot_b = np.repeat(split, nf)  # the task of every new node
    slot_v = np.arange(int(nf.sum())) - np.repeat(first - base, nf)  # its branch
    slot_c = child_id[slot_b, slot_v]
    ids = base + np.arange(slot_c.size)
    tree.depth[ids] = np.repeat(tree.depth[nids] + 1, nf)
    full = slot_c >= 0
    par = np.repeat(nids, nf)[~full]
    c = slot_c[full]
    tree.cls[ids[full]] = cbest[c]
    tree.items[ids[full]] = ccases[c]
    tree.errors[ids[full]] = (ccases[c] - cbestf[c]).astype(dt)
    tree.dist[ids[full]] = cfreq[c]
    tree.cls[ids[~full]] = tree.cls[par]
    tree.dist[ids[~full]] = tree.dist[par]
    # Tasks for the children that may split.
    node_of = np.full(n_child, -1, dtype=np.intp)
    node_of[c] = ids[full]
    kind_l = tree.kind[nids].tolist()
    att_l = tree.attribute[nids].tolist()
    starts_l = starts.tolist()
    ends_l = (starts + sizes).tolist()
    ost_l = out_start.tolist()
    grow_c = np.flatnonzero(~leaf)
    new: list[Task] = []
    owner = ne_t[grow_c]  # the task each growing child comes from
    pos_of = {b: k for k, b in enumerate(split.tolist())}
    for cc, b in zip(grow_c.tolist(), owner.tolist()):
        t = tasks[b]
        k = pos_of[b]
        all_known = t.all_known and not has_unknown[b]
        tested = t.tested | {att_l[k]} if kind_l[k] == KIND_NOMINAL else t.tested
        lo, hi = starts_l[cc], ends_l[cc]
        new.append(
            Task(
                int(node_of[cc]),
                rows_s[lo:hi],
                wt_s[lo:hi],
                srt_out[ost_l[cc] : ost_l[cc + 1]],
                out_lens[cc],
                all_known,
                tested,
            )
        )
    return new


def _children_sorted(
    ctx: Context,
    tasks: list[Task],
    split: IntArray,
    offsets: IntArray,
    tid: IntArray,
    br: IntArray,
    nonempty: npt.NDArray[np.bool_],
    child_id: IntArray,
    grows: npt.NDArray[np.bool_],
    pos_known: IntArray,
    u_slot: IntArray,
    pos_unk: IntArray,
) -> tuple[npt.NDArray[np.int32], IntArray, IntArray]:
    """The growing children's sorted arrays in one int32 array.

    Child after child, and within a child attribute after attribute (the
    layout of ``Task.srt``); returns it with each child's offset (n_child + 1
    entries) and its per-attribute lengths (n_child x kc).  The C kernel and
    the numpy code compute the same arrays.
    """

    kc = len(ctx.cont_pos)
    n_child = grows.size
    F = child_id.shape[1]
    sp = split.tolist()
    if native.cscan is not None:
        srt_cat = np.concatenate([tasks[b].srt for b in sp]).astype(np.int32, copy=False)
        lens = np.concatenate([tasks[b].lens for b in sp]).astype(np.intp, copy=False)
        tot = lens.reshape(-1, kc).sum(axis=1)
        out_start = np.empty(n_child + 1, dtype=np.intp)
        out_lens = np.empty((n_child, kc), dtype=np.intp)
        # Per entry: child << 32 | position in it (known outcome), -1 (unknown).
        kn = br >= 0
        dest = np.where(br == -1, -1, -2).astype(np.int64)
        dest[kn] = (child_id[tid[kn], br[kn]].astype(np.int64) << 32) | pos_known[:-1][kn]
        buf = native.cscan.part_sorted(
            srt_cat,
            np.cumsum(tot) - tot,
            lens,
            np.ascontiguousarray(offsets[split], dtype=np.intp),
            np.ascontiguousarray(split, dtype=np.intp),
            dest,
            np.ascontiguousarray(child_id, dtype=np.intp),
            F,
            grows.astype(np.uint8),
            u_slot,
            np.ascontiguousarray(pos_unk, dtype=np.intp),
            kc,
            out_start,
            out_lens,
        )
        return np.frombuffer(buf, dtype=np.int32), out_start, out_lens
    parts = _sorted_by_attribute(
        ctx, tasks, split, offsets, br, nonempty, child_id, grows, pos_known, u_slot, pos_unk
    )
    sizes = np.stack([sz for _, sz in parts], axis=1) if parts else np.zeros((n_child, 0), np.intp)
    per_child = sizes.sum(axis=1)
    out_start = np.concatenate(([0], np.cumsum(per_child))).astype(np.intp)
    out = np.empty(int(out_start[-1]), dtype=np.int32)
    before = np.cumsum(sizes, axis=1) - sizes  # within a child: earlier attributes' entries
    for k, (vals_k, sz_k) in enumerate(parts):
        # Entry j of attribute k (stable-sorted by child) lands at its child's
        # offset + earlier attributes + its rank within the child.
        first_k = np.cumsum(sz_k) - sz_k
        dest = np.repeat(out_start[:-1] + before[:, k] - first_k, sz_k) + np.arange(vals_k.size)
        out[dest] = vals_k
    return out, out_start, sizes.astype(np.intp)


def _sorted_by_attribute(
    ctx: Context,
    tasks: list[Task],
    split: IntArray,
    offsets: IntArray,
    br: IntArray,
    nonempty: npt.NDArray[np.bool_],
    child_id: IntArray,
    grows: npt.NDArray[np.bool_],
    pos_known: IntArray,
    u_slot: IntArray,
    pos_unk: IntArray,
) -> list[tuple[npt.NDArray[np.int32], IntArray]]:
    """numpy path of :func:`_children_sorted`: per attribute, the entries sorted by child.

    One attribute at a time bounds memory; a stable sort by child keeps
    value order.  Returns (positions, per-child counts) per attribute.
    """
    kc = len(ctx.cont_pos)
    n_child = grows.size
    sp = split.tolist()
    n_ne = nonempty.sum(axis=1)
    ne_off = np.cumsum(n_ne) - n_ne
    ne_v = np.nonzero(nonempty)[1]
    lens_all = np.stack([tasks[b].lens for b in sp])  # (split tasks, kc)
    tot = lens_all.sum(axis=1)
    srt_cat = np.concatenate([tasks[b].srt for b in sp]).astype(np.intp)
    # Where attribute k's array starts inside each task's srt.
    att_start = np.cumsum(tot) - tot
    att_first = att_start[:, None] + (np.cumsum(lens_all, axis=1) - lens_all)
    has_unknown = bool((br == -1).any())
    parts: list[tuple[npt.NDArray[np.int32], IntArray]] = []
    for k in range(kc):
        lens_k = lens_all[:, k]
        sel = np.repeat(att_first[:, k] - (np.cumsum(lens_k) - lens_k), lens_k) + np.arange(
            int(lens_k.sum())
        )
        flat = srt_cat[sel]
        flat += np.repeat(offsets[split], lens_k)
        t_of = np.repeat(split, lens_k)
        b_e = br[flat]
        if not has_unknown:  # no unknown value of a tested attribute: no copies
            c_r = child_id[t_of, b_e]
            keep = grows[c_r]
            c_r = c_r[keep]
            mapped = pos_known[flat[keep]]
        else:
            # Entries with an unknown value (few) get one copy per non-empty
            # branch of their task; the rest stay single.  Only the copies
            # need branch and position fix-ups.
            u_pos = np.flatnonzero(b_e < 0)
            n_u = n_ne[t_of[u_pos]]
            cnt = np.ones(flat.size, dtype=np.intp)
            cnt[u_pos] = n_u
            ent = np.repeat(flat, cnt)
            t_r = np.repeat(t_of, cnt)
            v_r = np.repeat(b_e, cnt)
            extra = n_u - 1
            start_u = u_pos + (np.cumsum(extra) - extra)  # first copy's position
            nth_u = np.arange(int(n_u.sum())) - np.repeat(np.cumsum(n_u) - n_u, n_u)
            cp = np.repeat(start_u, n_u) + nth_u
            v_r[cp] = ne_v[ne_off[np.repeat(t_of[u_pos], n_u)] + nth_u]
            c_r = child_id[t_r, v_r]
            mapped = pos_known[ent]
            mapped[cp] = pos_unk[u_slot[ent[cp]], v_r[cp]]
            keep = grows[c_r]
            c_r, mapped = c_r[keep], mapped[keep]
        # A stable sort by child; 16-bit keys take numpy's radix sort (O(n)).
        key = c_r.astype(np.uint16) if n_child <= 0xFFFF else c_r
        order_k = np.argsort(key, kind="stable")
        parts.append((mapped[order_k].astype(np.int32), np.bincount(c_r, minlength=n_child)))
    return parts
