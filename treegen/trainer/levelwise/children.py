"""The records a bucket's partition passes from step to step, and the children's sorted arrays.

treegen.trainer.levelwise.partition splits a bucket in steps (the first in
treegen.trainer.levelwise.routing); each step's result is one of the records here
(:class:`Tests`, :class:`Branches`, :class:`ChildCases`, :class:`ChildStats`).
:func:`children_sorted` is its step 5: the sorted arrays of the children that grow,
obtained by distributing each parent's sorted arrays in order (the C kernel
``part_sorted``, or a stable sort by child in numpy) instead of sorting the
children's cases again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from treegen.trainer import native
from treegen.trainer.context import Context, IntArray
from treegen.trainer.heap import release_freed_memory
from treegen.trainer.levelwise.bucket import Bucket

FloatArray = npt.NDArray[np.floating]
BoolArray = npt.NDArray[np.bool_]

TRIM_ENTRIES = 1 << 17
"""A bucket of this many entries gives its freed pages back before its children's
sorted arrays are made (malloc_trim walks the heap: not for every small bucket)."""


@dataclass(slots=True)
class Tests:
    """The bucket's chosen tests and where each of its cases goes."""

    split: IntArray  # the tasks that split, ascending
    nids: IntArray  # their node ids
    forks: IntArray  # per task: its test's branch count (0: no test)
    branch: IntArray  # per bucket entry: its branch; -1 unknown value, -2 task not split


@dataclass(frozen=True, slots=True)
class Branches:
    """Per (task, branch) of the bucket: the known weight's share and the child it makes.

    Arrays (tasks x ``width``) where ``width`` is the widest test's branch
    count; children are numbered in task, then branch order.
    """

    width: int
    nonempty: BoolArray  # a known case takes the branch: it makes a child
    factor: FloatArray  # known_v / KnownCases (NaN / inf where empty)
    child_id: IntArray  # the child a non-empty branch makes; -1 for empty ones
    owner: IntArray  # per child: its task
    known: BoolArray  # per bucket entry: its branch is known
    unknown: IntArray  # the bucket entries whose tested value is unknown
    unknown_w: FloatArray  # their weight in each branch (unknown x width)

    @property
    def n_child(self) -> int:
        """How many children the bucket's tests make (non-empty branches)."""
        return self.owner.size


@dataclass(slots=True)
class ChildCases:
    """Every child's cases, child after child, each child's in its parent's entry order.

    ``rows``/``w``: each case's row and its weight in the child; child ``c``'s
    cases are ``starts[c]`` .. ``starts[c] + sizes[c] - 1`` (which child each is,
    and which parent entry, are not kept: at the root of 1M rows they were 17 MB
    more at growth's peak).  The last three map parent entries to positions in
    their children (what :func:`children_sorted` needs): ``pos_known[e]``
    for an entry with a known branch, ``pos_unknown[unk_slot[e], v]`` for
    an unknown one in branch v (both -1 where none; one spare entry each).
    """

    rows: IntArray
    w: FloatArray
    starts: IntArray
    sizes: IntArray
    pos_known: IntArray
    unk_slot: IntArray
    pos_unknown: IntArray


@dataclass(frozen=True, slots=True)
class ChildStats:
    """Every child's weight, class distribution, majority class and leaf rule."""

    cases: FloatArray
    freq: FloatArray  # (children, classes)
    best: IntArray
    best_freq: FloatArray
    leaf: BoolArray  # stays a leaf: needs no task


class SortedChildren(NamedTuple):
    """The growing children's sorted arrays, one after another (the layout of ``Task.srt``)."""

    srt: npt.NDArray[np.int32]
    start: IntArray  # each child's offset into srt (children + 1 entries)
    lens: IntArray  # (children x continuous attributes)


def children_sorted(
    ctx: Context,
    bucket: Bucket,
    tests: Tests,
    branches: Branches,
    cases: ChildCases,
    grows: BoolArray,
) -> SortedChildren:
    """The sorted arrays of the children that grow (``grows``), in one int32 array.

    Every entry of a parent's sorted array goes to its branch's child
    (unknown values to every non-empty branch), in order.  Child after
    child, and within a child attribute after attribute (the layout of
    ``Task.srt``), with each child's offset (n_child + 1 entries) and its
    per-attribute lengths (n_child x kc).  The C kernel and the numpy code
    compute the same arrays.
    """
    tasks, split = bucket.tasks, tests.split
    tid, br, child_id = bucket.tid, tests.branch, branches.child_id
    kc = len(ctx.cont_pos)
    n_child = grows.size
    F = branches.width
    sp = split.tolist()
    if native.cscan is not None:
        lens = np.concatenate([tasks[b].lens for b in sp]).astype(np.intp, copy=False)
        if bucket.srt is not None and bucket.srt_start is not None:
            # The arrays continuous scoring concatenated (no second copy).
            srt_cat, srt_start = bucket.srt, bucket.srt_start[split]
        else:
            # (One task's array as it is: at the root a copy was 38 MB more at the peak.)
            srt_cat = (
                tasks[sp[0]].srt if len(sp) == 1 else np.concatenate([tasks[b].srt for b in sp])
            ).astype(np.int32, copy=False)
            tot = lens.reshape(-1, kc).sum(axis=1)
            srt_start = np.cumsum(tot) - tot
        out_start = np.empty(n_child + 1, dtype=np.intp)
        out_lens = np.empty((n_child, kc), dtype=np.intp)
        # Per entry: child << 32 | position in it (known outcome), -1 (unknown).
        dest = np.empty(br.size, dtype=np.int64)
        native.cscan.part_dest(
            tid,
            np.ascontiguousarray(br, dtype=np.intp),
            np.ascontiguousarray(child_id, dtype=np.intp),
            F,
            cases.pos_known,
            dest,
        )
        if br.size >= TRIM_ENTRIES:
            # dest has what the branches and the known positions said, and the
            # partition reads neither again: in a large bucket they go, with their
            # pages, before the children's arrays are made (at 1M rows, 10 MB less at
            # growth's peak; the heap keeps a freed array's pages until trimmed).
            tests.branch = np.empty(0, dtype=np.intp)  # (a slice [:0] would keep it)
            cases.pos_known = np.empty(0, dtype=np.intp)
            del br
            release_freed_memory()
        buf = native.cscan.part_sorted(
            srt_cat,
            np.ascontiguousarray(srt_start, dtype=np.intp),
            lens,
            np.ascontiguousarray(bucket.offsets[split], dtype=np.intp),
            np.ascontiguousarray(split, dtype=np.intp),
            dest,
            np.ascontiguousarray(child_id, dtype=np.intp),
            F,
            grows.astype(np.uint8),
            cases.unk_slot,
            np.ascontiguousarray(cases.pos_unknown, dtype=np.intp),
            kc,
            out_start,
            out_lens,
            np.ascontiguousarray(cases.sizes, dtype=np.intp),
        )
        return SortedChildren(np.frombuffer(buf, dtype=np.int32), out_start, out_lens)
    parts = _sorted_by_attribute(ctx, bucket, tests, branches, cases, grows)
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
    return SortedChildren(out, out_start, sizes.astype(np.intp))


def _sorted_by_attribute(
    ctx: Context,
    bucket: Bucket,
    tests: Tests,
    branches: Branches,
    cases: ChildCases,
    grows: BoolArray,
) -> list[tuple[npt.NDArray[np.int32], IntArray]]:
    """numpy path of :func:`children_sorted`: per attribute, the entries sorted by child.

    One attribute at a time bounds memory; a stable sort by child keeps
    value order.  Returns (positions, per-child counts) per attribute.
    """
    tasks, split, offsets, br = bucket.tasks, tests.split, bucket.offsets, tests.branch
    nonempty, child_id = branches.nonempty, branches.child_id
    pos_known, u_slot, pos_unk = cases.pos_known, cases.unk_slot, cases.pos_unknown
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
    has_unknown = branches.unknown.size > 0
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
