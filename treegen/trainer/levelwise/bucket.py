"""The level-wise engine's units of work: tasks, buckets of tasks, and their scores.

A :class:`Task` is a node waiting to be grown, with the cases that reach it.
Tasks are grown a :class:`Bucket` at a time: their cases side by side in
flat arrays, so that one numpy pass (or C call) serves every node of the
bucket.  :class:`BucketScores` holds, per task and attribute, the best test
on that attribute at that node, from which one attribute per task is chosen
(:func:`treegen.trainer.levelwise.grow.grow_levels`) before the bucket is
partitioned (:func:`treegen.trainer.levelwise.partition.partition`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.trainer.context import Context, IntArray
from treegen.trainer.splits import ContScores, Score

FloatArray = npt.NDArray[np.floating]

ALONE_MIN = 1 << 16
"""A task of at least this many cases whose arrays are views into a larger parent
array that no other task reads any more gets arrays of its own (:func:`let_parent_go`)."""


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


def let_parent_go(task: Task) -> None:
    """Copy out the task's rows, weights and sorted arrays where each is a view into
    its parent bucket's larger array that only this task still reads, so that the
    parent's array goes.

    A task's arrays are slices of its parent bucket's (the partition makes them for
    all children at once); when its siblings' subtrees are done the rest of the
    parent's array is dead but kept.  At 1M rows the root's second child (650,780
    cases) held the root's children's arrays, 17 MB more than its own.  The
    reference count tells that no other view is left (the view's ``base``, the local
    name and the call's argument: 3 in CPython); a copy made while a sibling still
    read the parent's array would add to the peak instead.
    """
    for name in ("rows", "w", "srt"):
        view = getattr(task, name)
        base = view.base
        if not isinstance(base, np.ndarray) or base.nbytes - view.nbytes < view.nbytes // 4:
            continue  # little of the parent's array is dead
        if sys.getrefcount(base) <= 3:
            setattr(task, name, view.copy())
        del base, view


@dataclass(slots=True, eq=False)
class Bucket:
    """Tasks grown together, their cases concatenated task after task.

    Entry ``e`` is case ``rows[e]`` of task ``tid[e]``, with weight ``w[e]``
    (in the flavour's dtype) and class ``y[e]``; task ``b``'s entries start
    at ``offsets[b]`` (in its own row order) and weigh ``cases[b]`` in all.
    """

    tasks: list[Task]
    tid: IntArray
    rows: IntArray
    w: FloatArray
    y: IntArray
    offsets: IntArray
    cases: FloatArray
    # The tasks' sorted arrays one after another and where each task's starts, once
    # continuous scoring has concatenated them (the partition reuses them).
    srt: npt.NDArray[np.int32] | None = None
    srt_start: IntArray | None = None

    @classmethod
    def gather(cls, ctx: Context, tasks: list[Task], cases: FloatArray | None = None) -> Bucket:
        """The bucket of ``tasks``; ``cases`` their weights, else summed in row order."""
        for t in tasks:
            if t.rows.size >= ALONE_MIN:
                let_parent_go(t)
        sizes = np.asarray([t.rows.size for t in tasks], dtype=np.intp)
        tid = np.repeat(np.arange(len(tasks)), sizes)
        if len(tasks) == 1:  # the task's own arrays, read only (1M rows at the root: 12 MB)
            w = tasks[0].w.astype(ctx.dtype, copy=False)
            rows = tasks[0].rows
        else:
            w = np.concatenate([t.w for t in tasks]).astype(ctx.dtype, copy=False)
            rows = np.concatenate([t.rows for t in tasks])
        return cls(
            tasks=tasks,
            tid=tid,
            rows=rows,
            w=w,
            y=ctx.y_small[rows].astype(np.intp),  # (ctx.y, intp, is not made)
            offsets=np.concatenate(([0], np.cumsum(sizes)[:-1])),
            cases=ctx.sums(tid, w, len(tasks)) if cases is None else cases,
        )

    def subset(self, ctx: Context, keep: IntArray) -> Bucket:
        """The bucket of tasks ``keep`` (ascending) only, their weights carried over."""
        return Bucket.gather(ctx, [self.tasks[i] for i in keep.tolist()], self.cases[keep])

    @property
    def n_tasks(self) -> int:
        """How many tasks (nodes) the bucket holds."""
        return len(self.tasks)


@dataclass(slots=True, eq=False)
class BucketScores:
    """Per task (row) and attribute (column): the best test on it at the task's node.

    ``gain`` (NaN where not scored) and ``info`` are the test's (penalised)
    gain and split information, ``ok`` says the test is admissible, ``bar``
    is a continuous test's cut midpoint (NaN otherwise); ``subsets`` holds
    the value groups of the (task, attribute) pairs scored as subset tests.
    """

    gain: npt.NDArray[np.float64]
    info: npt.NDArray[np.float64]
    ok: npt.NDArray[np.bool_]
    bar: npt.NDArray[np.float64]
    subsets: dict[tuple[int, int], Score]

    @classmethod
    def empty(cls, n_tasks: int, n_attributes: int) -> BucketScores:
        """Nothing scored yet: no attribute admissible."""
        shape = (n_tasks, n_attributes)
        return cls(
            gain=np.full(shape, np.nan),
            info=np.zeros(shape),
            ok=np.zeros(shape, dtype=np.bool_),
            bar=np.full(shape, np.nan),
            subsets={},
        )

    def of_task(self, task: int) -> dict[int, Score]:
        """The admissible tests of one task by attribute, a recorded subset test's
        own :class:`Score` where there is one."""
        return {
            a: self.subsets.get((task, a))
            or Score(float(self.gain[task, a]), float(self.info[task, a]), self._bar(task, a))
            for a in np.flatnonzero(self.ok[task]).tolist()
        }

    def _bar(self, task: int, att: int) -> float | None:
        # The score arrays hold NaN where the attribute is nominal: no cut.
        bar = float(self.bar[task, att])
        return None if math.isnan(bar) else bar

    def set_subset(self, task: int, attribute: int, score: Score) -> None:
        """Record a subset test's score for one (task, attribute)."""
        self.subsets[(task, attribute)] = score
        self.gain[task, attribute] = score.gain
        self.info[task, attribute] = score.info
        self.ok[task, attribute] = True

    def set_continuous(self, ctx: Context, cs: ContScores) -> None:
        """Store every continuous attribute's scores, one row per (task, attribute), task major."""
        n_cont = len(ctx.cont_pos)
        att = np.asarray(list(ctx.cont_pos), dtype=np.intp)
        n_tasks = self.gain.shape[0]
        self.gain[:, att] = cs.gain.reshape(n_tasks, n_cont)
        self.info[:, att] = cs.info.reshape(n_tasks, n_cont)
        self.ok[:, att] = cs.ok.reshape(n_tasks, n_cont)
        self.bar[:, att] = cs.bar.reshape(n_tasks, n_cont)
