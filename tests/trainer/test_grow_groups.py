"""The level-wise grower's groups and buckets: small groups grown together, the same tree.

``grow_levels`` takes small groups of tasks off its stack together (``_merged``) and,
with the C scan, grows a group as one bucket (``_buckets``); tasks are independent, so
the tree must be the one grown group by group and bucket by bucket, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.model.core import Node
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.levelwise import grow
from treegen.trainer.levelwise.bucket import Task
from treegen.trainer.prepare import prepare


def _task(size: int) -> Task:
    return Task(
        0,
        np.arange(size, dtype=np.intp),
        np.ones(size),
        np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.intp),
        True,
        frozenset(),
    )


def test_small_groups_are_taken_off_the_stack_while_they_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(grow, "GROUP_ENTRIES", 100)
    bottom, big, mid, top = [_task(5)], [_task(60)], [_task(30), _task(10)], [_task(25)]
    stack = [bottom, big, mid, top]
    popped = stack.pop()
    got = grow._merged(stack, popped, 25)
    # 25 + 40 fit in 100; 65 + 60 do not, so the big group and the one below it stay.
    assert [t.rows.size for t in got] == [25, 30, 10]
    assert stack == [bottom, big]
    # Exactly at the limit is taken; one over is not.
    stack = [[_task(50)], [_task(25)]]
    assert len(grow._merged(stack, [_task(25)], 25)) == 3 and stack == []
    stack = [[_task(51)], [_task(25)]]
    assert len(grow._merged(stack, [_task(25)], 25)) == 2 and stack == [stack[0]]


def test_a_group_is_one_bucket_with_the_c_scan_else_bounded() -> None:
    ds = synthetic.generate(synthetic.summary_spec(600, seed=3))
    ctx = prepare(ds, TrainOptions()).ctx
    tasks = [_task(s) for s in (3, 40_000, 7, 900)]
    if native.cscan is not None and ctx.c_scan:
        assert grow._buckets(ctx, tasks) == [[tasks[1], tasks[3], tasks[2], tasks[0]]]
    ctx.c_scan = False  # the padded numpy path: (tasks x widest x attributes) bounded
    kc = len(ctx.cont_pos)
    buckets = grow._buckets(ctx, tasks)
    assert len(buckets) > 1
    for b in buckets:
        assert len(b) == 1 or len(b) * b[0].rows.size * kc <= grow.BUCKET_CELLS


def _largest_first(tasks: list[Task]) -> list[Task]:
    return sorted(tasks, key=lambda t: -t.rows.size)


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = grow._grow_bucket

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(grow, "_grow_bucket", counting)
    return calls


@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_groups_grown_together_give_the_same_tree(
    monkeypatch: pytest.MonkeyPatch, flavor: str
) -> None:
    """Small groups so that the stack holds many (unknown values: fractional weights),
    grown together and, with merging turned off, group by group with every task a
    bucket of its own: the same nodes, in fewer buckets."""
    ds = synthetic.generate(synthetic.summary_spec(3000, seed=11))
    opts = TrainOptions(flavor=flavor)  # type: ignore[arg-type]
    monkeypatch.setattr(grow, "GROUP_ENTRIES", 400)
    calls = _counted(monkeypatch)
    merged: tuple[Node, ...] = train(ds, opts, case_order="rows").nodes
    merged_buckets = len(calls)
    monkeypatch.setattr(grow, "_merged", lambda stack, tasks, entries: tasks)
    monkeypatch.setattr(grow, "_buckets", lambda ctx, tasks: [[t] for t in _largest_first(tasks)])
    calls.clear()
    apart = train(ds, opts, case_order="rows").nodes
    assert merged == apart
    assert len(merged) > 100
    assert 0 < merged_buckets < len(calls) / 2
