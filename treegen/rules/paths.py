"""c4.5rules' candidate rules: every leaf's path, generalised (steps 1 and 2 of
:mod:`treegen.rules.generate`; Release 8's ``FormRules``, ``PruneRule`` and ``NewRule``).

Each leaf of the unpruned tree with at least one training case (fractional cases
adding up) gives its path's conditions and class.  The rule is generalised on all
the training cases: for the rule with all its conditions left and with each one
dropped in turn, the cases it covers (a condition on an unknown value does not
hold) and the errors among them give a pessimistic error rate, ``(E + AddErrs(N,
E)) / N`` in Release 8's float arithmetic (``treegen.trainer.stats.ErrorBound``), or
the default error rate where the rule covers nothing.  The condition whose removal
gives the lowest rate (the last of equal ones) is dropped whenever some removal
gives a rate, pessimistic or actual, no higher than the rule's own; this repeats
until no removal does or no condition is left.

The rule is kept when conditions remain, it covers some case and its pessimistic
error rate is below the default one, ``1 - (n_C + 1) / (N + 2)`` (no better than
guessing its class C otherwise).  Its conditions are then ordered by a selection
that takes, for each place, the first condition before which no later one comes,
"before" meaning a lower attribute number, or a lower kind of test (nominal, then
threshold, then subset), or the same attribute with a lower cut; Release 8's
relation, which is not an order, so the selection is followed step by step.  A
rule equal to an earlier one (same class, same number of conditions, each of the
same kind on the same attribute with the same value, cut or subset test, where a
threshold test's side and a subset test's branch are not compared, as in Release
8's ``SameRule``) is not added again; the earlier one keeps the higher error rate.
Rules are numbered in the order they are added.
"""

from __future__ import annotations

from itertools import repeat
from typing import Protocol

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset
from treegen.model.core import Model
from treegen.rules.caselists import PACK_MIN, SHARED_MOST, CaseLists
from treegen.rules.core import CaseColumns, Rule, Steps
from treegen.rules.grown import shape_of
from treegen.rules.native import crules
from treegen.rules.pathtests import EdgeTests, PathTest, before_order, shape_tests
from treegen.rules.roworder import leaf_order
from treegen.rules.shape import TreeShape
from treegen.rules.walk import start
from treegen.trainer.heap import collection_paused
from treegen.trainer.stats import ErrorBound, to_f32

# A leaf with fewer training cases than this gives no rule.
MIN_LEAF_ITEMS = 1.0


def _prune(
    missed: npt.NDArray[np.bool_],
    wrong: npt.NDArray[np.bool_],
    bound: ErrorBound,
    default_error: float,
    fails: npt.NDArray[np.integer] | None = None,
) -> tuple[list[int], float] | None:
    """Release 8's ``PruneRule`` on one path: ``missed[d]`` the cases that fail condition
    d, ``wrong`` the cases of other classes.  Returns the conditions kept (indices into
    the path) and the rule's pessimistic error rate, or None: no rule.

    Only the cases failing at most one of the conditions left count; after ``r``
    removals those are among the cases failing at most ``r + 1`` of the path's, so
    given ``fails`` (how many each fails) each step looks at those alone.
    """
    k = missed.shape[0]
    alive = np.ones(k, dtype=bool)
    level = -1
    m, w = missed, wrong  # every case, without ``fails``
    while True:
        removed = k - int(np.count_nonzero(alive))
        if fails is not None and level < removed + 1:
            level = removed + 2  # one level ahead saves a pass at the next removal
            cols = np.flatnonzero(fails <= level)
            m, w = missed[:, cols], wrong[cols]
        left = np.flatnonzero(alive)
        misses = m[left].sum(axis=0)
        none = misses == 0
        total0 = int(np.count_nonzero(none))
        errors0 = int(np.count_nonzero(none & w))
        one = np.flatnonzero(misses == 1)
        which = left[np.argmax(m[left][:, one], axis=0)] if one.size else one
        totals = np.bincount(which, minlength=k) + total0
        errors = np.bincount(which[w[one]], minlength=k) + errors0
        pess0, actual0 = _rates(total0, errors0, bound, default_error)
        best, best_pess, alter = -1, 0.0, False
        for d in left.tolist():
            pess, actual = _rates(int(totals[d]), int(errors[d]), bound, default_error)
            if best < 0 or pess <= best_pess:
                best, best_pess = d, pess
            if pess <= pess0 or actual <= actual0:
                alter = True
        if not alter:
            break
        alive[best] = False
        if not alive.any():
            return None
    if total0 == 0 or pess0 >= default_error:
        return None
    return np.flatnonzero(alive).tolist(), pess0


def _shared(path: tuple[PathTest, ...], tests: list[PathTest]) -> int:
    """How many of ``path``'s first tests are those of ``tests`` (the same objects: the
    paths of :func:`~treegen.rules.pathtests.leaf_tests` share their common prefix's tests)."""
    keep, most = 0, min(len(path), len(tests))
    while keep < most and path[keep] is tests[keep]:
        keep += 1
    return keep


class _Prefix:
    """The current path's failed-condition rows and, per depth, how many of its
    conditions so far each case fails; consecutive leaves in depth-first order share a
    prefix, which is kept."""

    def __init__(self, ds: Dataset) -> None:
        self.cols = CaseColumns(ds.X)
        self.tests: list[PathTest] = []
        self.missed = np.zeros((16, ds.n_rows), dtype=bool)
        self.fails: list[npt.NDArray[np.int32]] = [np.zeros(ds.n_rows, dtype=np.int32)]

    def follow(self, path: tuple[PathTest, ...]) -> None:
        keep = _shared(path, self.tests)
        del self.tests[keep:], self.fails[keep + 1 :]
        if len(path) > self.missed.shape[0]:
            grown = np.zeros((2 * len(path), self.missed.shape[1]), dtype=bool)
            grown[:keep] = self.missed[:keep]
            self.missed = grown
        for d in range(keep, len(path)):
            row = self.cols.satisfied(path[d].cond, out=self.missed[d])
            np.logical_not(row, out=row)
            self.tests.append(path[d])
            self.fails.append(self.fails[-1] + row)


def _rates(n: int, e: int, bound: ErrorBound, default_error: float) -> tuple[float, float]:
    """(pessimistic, actual) error rate of a rule covering ``n`` cases, ``e`` wrong."""
    if n == 0:
        return default_error, 0.0
    extra = bound.add_errs(float(n), float(e))
    return to_f32(to_f32(e + extra) / n), to_f32(e / n)


def _sorted(path: tuple[PathTest, ...], kept: list[int]) -> list[PathTest]:
    """The kept conditions in Release 8's order: for each place in turn, a scan of the
    path from that place keeps the first kept condition, replaced by any later one
    that comes before it, and swaps it into the place (the dropped conditions move
    about with the swaps, and are passed over)."""
    conds = list(path)
    order = [t.order for t in conds]
    keep = set(kept)
    done = [d not in keep for d in range(len(conds))]
    for place in range(len(kept)):
        best = -1
        for d in range(place, len(conds)):
            if not done[d] and (best < 0 or before_order(order[d], order[best])):
                best = d
        if best != place:
            conds[place], conds[best] = conds[best], conds[place]
            order[place], order[best] = order[best], order[place]
            done[best] = done[place]
        done[place] = True
    return conds[: len(kept)]


class CaseSink(Protocol):
    """Where :func:`candidates` puts each rule's cases: it only appends (a list, or
    :class:`~treegen.rules.caselists.CaseLists`, which holds them packed)."""

    def append(self, rows: npt.NDArray[np.int32], /) -> None: ...


def candidates(
    ds: Dataset,
    tree: Model,
    bound: ErrorBound,
    progress: Steps | None = None,
    rows: CaseSink | None = None,
    with_tests: bool = True,
) -> list[tuple[Rule, tuple[PathTest, ...]]]:
    """The candidate rules of ``tree``'s leaves, numbered, each with its tests
    (``progress``: called with the leaves done and their number, now and then).
    ``rows``: given, each rule's cases satisfying its conditions (ascending) are
    appended to it, from the sets its generalisation had at hand.  Without
    ``with_tests`` each rule's tests are left out (``()``; they are most of a rule's
    memory, and only SameRule's keys of them are needed here)."""
    with collection_paused():
        return _candidates(ds, tree, bound, progress, rows, with_tests)


def _candidates(
    ds: Dataset,
    tree: Model,
    bound: ErrorBound,
    progress: Steps | None,
    rows: CaseSink | None,
    with_tests: bool,
) -> list[tuple[Rule, tuple[PathTest, ...]]]:
    """:func:`candidates`' work."""
    n = ds.n_rows
    counts = np.bincount(ds.y, minlength=len(ds.classes))
    # each class's default error rate (a rule of the class must do better)
    default_errors = [to_f32(1.0 - (int(c) + 1.0) / (n + 2.0)) for c in counts.tolist()]
    shape = shape_of(tree.nodes)  # the walks read arrays, not nodes
    if crules is not None:
        return _walked(ds, shape, (bound, default_errors), progress, rows, with_tests)
    # Without the accelerator: the paths one by one, with a row of flags a condition.
    out: list[tuple[Rule, tuple[PathTest, ...]]] = []
    seen: dict[tuple[int, tuple[tuple[int, int, float], ...]], int] = {}  # SameRule's keys
    prefix = _Prefix(ds)
    wrong: dict[int, npt.NDArray[np.bool_]] = {}
    n_leaves = shape.n_leaves(MIN_LEAF_ITEMS)
    leaf_items, leaf_cls = shape.items, shape.cls
    for done, (leaf, path) in enumerate(shape_tests(shape, MIN_LEAF_ITEMS)):
        if progress is not None and done % 256 == 0:
            progress("generalising rules", done, n_leaves)
        if not leaf_items[leaf] >= MIN_LEAF_ITEMS or not path:
            continue
        cls = leaf_cls[leaf]
        prefix.follow(path)
        if cls not in wrong:
            wrong[cls] = ds.y != cls
        kept = _prune(
            prefix.missed[: len(path)], wrong[cls], bound, default_errors[cls], prefix.fails[-1]
        )
        if kept is None:
            continue
        chosen, error = kept
        tests = _sorted(path, chosen)
        key = (cls, tuple(t.key for t in tests))
        if _repeats(out, seen.get(key), error):
            continue
        rule = Rule(len(out) + 1, tuple(t.cond for t in tests), cls, error)
        seen[key] = len(out)
        out.append((rule, tuple(tests) if with_tests else ()))
        if rows is not None:
            hit = ~prefix.missed[chosen].any(axis=0)
            rows.append(np.flatnonzero(hit).astype(np.int32))
    return out


def _walked(
    ds: Dataset,
    shape: TreeShape,
    rates: tuple[ErrorBound, list[float]],
    progress: Steps | None,
    rows: CaseSink | None,
    with_tests: bool,
) -> list[tuple[Rule, tuple[PathTest, ...]]]:
    """:func:`_candidates` by the C walk (:mod:`treegen.rules.walk`) over ``shape``'s
    paths (``rates``: the error bound and each class's default error rate): one call a
    new rule (the walk keeps SameRule's keys, and a repeat raises its earlier rule's
    error rate there, read at the end); here only each rule's conditions and cases."""
    assert crules is not None
    order = leaf_order(ds.X, shape)
    walk = start(ds, shape, order, *rates, MIN_LEAF_ITEMS)
    step, rows_of, capsule = crules.walk_next, crules.walk_rows, walk.capsule
    edges = walk.edges.data  # a memoryview: an element is a Python int
    tests = EdgeTests(shape, walk.owner)
    made = tests.made  # each edge's condition once made (looked up here: a call fewer)
    n_leaves = shape.n_leaves(MIN_LEAF_ITEMS)
    leaf_cls = shape.cls
    out: list[tuple[Rule, tuple[PathTest, ...]]] = []
    found = np.empty(ds.n_rows, dtype=np.int32)  # walk_rows' output
    lists = rows if isinstance(rows, CaseLists) else None
    if lists is not None and not with_tests:
        _walked_many(walk.capsule, tests, order, found, lists, out, progress, n_leaves)
        return _raised(out, walk.capsule)
    report = 0
    while True:
        if progress is not None and report <= 0:
            progress("generalising rules", 0, n_leaves)
            report = 256
        got = step(capsule)
        if got is None:
            break
        leaf, _, count, error, done = got
        if progress is not None and done >= report:
            progress("generalising rules", done, n_leaves)
            report = done + 256
        conds = tuple([made[e] or tests.condition(e) for e in edges[:count]])
        kept = tuple([tests.test(e) for e in edges[:count]]) if with_tests else ()
        out.append((Rule(len(out) + 1, conds, leaf_cls[leaf], error), kept))
        if lists is not None:
            # the cases' file rows, in the leaves' order: sorted and packed in one call
            lists.append_unsorted(found, rows_of(capsule, found, order))
        elif rows is not None:
            mine = found[: rows_of(capsule, found, order)].copy()
            mine.sort()
            rows.append(mine)
    return _raised(out, capsule)


# Rules a call of walk_many: the progress line moves every so many.
WALK_BATCH = 256


def _walked_many(
    capsule: object,
    tests: EdgeTests,
    order: npt.NDArray[np.int32],
    found: npt.NDArray[np.int32],
    lists: CaseLists,
    out: list[tuple[Rule, tuple[PathTest, ...]]],
    progress: Steps | None,
    n_leaves: int,
) -> None:
    """:func:`_walked`'s loop, WALK_BATCH rules a call of ``crules.walk_many``: the
    walk, each rule's conditions and its cases packed into ``lists``' open block are
    one C call a batch, not three calls and a few numpy calls a rule (about 0.1 s of the
    interpreter's at 100k rows, 19,188 rules).  A list that does not fit in the block is
    held by :meth:`CaseLists.append`, as :meth:`CaseLists.append_unsorted` holds it."""
    assert crules is not None
    info = np.empty((WALK_BATCH, 5), dtype=np.int64)  # leaf, class, kind, first byte, items
    errors = np.empty(WALK_BATCH, dtype=np.float64)
    if progress is not None:
        progress("generalising rules", 0, n_leaves)
    while True:
        block, fill, marks = lists.open_block(found.size)
        got, fill, done, pending, conds = crules.walk_many(
            capsule, order, found, marks, block, fill, SHARED_MOST, PACK_MIN,
            tests.made, tests.condition, info, errors,
        )  # fmt: skip
        if got == 0:
            return
        written = got if pending < 0 else got - 1
        lists.packed_into_block(info[:written, 2:], fill)
        if pending >= 0:  # found[:pending] sorted
            lists.append(found[:pending].copy())
        first = len(out) + 1
        rules = map(
            Rule, range(first, first + got), conds, info[:got, 1].tolist(), errors[:got].tolist()
        )
        out.extend(zip(rules, repeat((), got), strict=True))
        if progress is not None:
            progress("generalising rules", done, n_leaves)


def _raised(
    out: list[tuple[Rule, tuple[PathTest, ...]]], capsule: object
) -> list[tuple[Rule, tuple[PathTest, ...]]]:
    """``out`` with the rates the repeats raised (each rule's highest, as _repeats keeps
    it), read from the walk ``capsule`` once it is done."""
    assert crules is not None
    errors = memoryview(crules.walk_errors(capsule)).cast("d").tolist()
    assert len(errors) == len(out)
    for i, (error, (r, ts)) in enumerate(zip(errors, out, strict=True)):
        if error > r.error:
            out[i] = (Rule(r.number, r.conditions, r.cls, error), ts)
    return out


def _repeats(out: list[tuple[Rule, tuple[PathTest, ...]]], same: int | None, error: float) -> bool:
    """Whether a rule is the ``same``-th one again (None: no earlier rule is the same),
    which then keeps the higher of the two error rates."""
    if same is None:
        return False
    r, ts = out[same]
    if error > r.error:
        out[same] = (Rule(r.number, r.conditions, r.cls, error), ts)
    return True
