"""Random nodes' continuous segments, scored by the C scan and by the numpy path.

:func:`node_segments` draws nodes (subsets of a dataset's rows, some with fractional
weights) and lays out each node x continuous attribute as the level-wise grower does:
the known cases in value order, as positions into one record array.
:func:`flat_scores` scores them as growth does with the accelerator
(``levelwise.score.eval_continuous_flat``), :func:`numpy_scores` by the padded numpy
path (``splits.eval_continuous``), and :func:`assert_same_scores` holds the two equal,
bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer.context import Context
from treegen.trainer.levelwise.evaluate import padded_rows
from treegen.trainer.levelwise.score import eval_continuous_flat
from treegen.trainer.splits import ContScores, eval_continuous


def continuous_data(
    seed: int, n: int, n_cont: int, n_classes: int, unknown: float = 0.08
) -> Dataset:
    """Continuous attributes with many repeated values and a share ``unknown`` unknown,
    the classes partly tied to the last attribute."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_cont)) * rng.choice([1.0, 10.0, 1000.0]), 1)
    X[rng.random(X.shape) < unknown] = np.nan
    X[:, 0] = np.floor(X[:, 0])  # few distinct values: ties and runs
    attrs = tuple(Attribute(f"a{j}", "continuous", ()) for j in range(n_cont))
    schema = Schema(attrs, tuple(f"c{c}" for c in range(n_classes)), "class")
    # classes tied to the last attribute, half of them drawn at random
    noise = rng.integers(0, n_classes, size=n) * (rng.random(n) < 0.5)
    y = ((X[:, -1] > 0).astype(np.int64) + noise) % n_classes
    return Dataset(schema, X, y.astype(np.int32), "test")


@dataclass(frozen=True)
class NodeSegments:
    """One segment per node and continuous attribute (see ``eval_continuous_flat``):
    ``flat`` indexes ``rec``, the nodes' cases one after another; ``base[r]`` is
    where segment r's node starts in it, ``rows``/``w`` the cases' rows and weights."""

    rec: npt.NDArray[np.floating]
    att: npt.NDArray[np.intp]
    flat: npt.NDArray[np.intp]
    lens: npt.NDArray[np.intp]
    cases: npt.NDArray[np.floating]
    unknown: npt.NDArray[np.floating]
    base: npt.NDArray[np.intp]
    rows: npt.NDArray[np.intp]
    w: npt.NDArray[np.floating]


def node_segments(
    ctx: Context, rng: np.random.Generator, sizes: Sequence[int], fractional: float = 0.3
) -> NodeSegments:
    """Nodes of ``sizes`` rows each (drawn without replacement from ``ctx``'s rows), a
    share ``fractional`` of their cases with a random weight below 1, the others 1."""
    dt = ctx.dtype
    att, lens, parts, cases, unknown, base = [], [], [], [], [], []
    rows_all: list[npt.NDArray[np.intp]] = []
    w_all: list[npt.NDArray[np.floating]] = []
    for size in sizes:
        rows = np.sort(rng.choice(ctx.n_rows, size=size, replace=False))
        w = np.where(rng.random(size) < fractional, rng.random(size), 1.0).astype(dt)
        start = sum(r.size for r in rows_all)
        rows_all.append(rows)
        w_all.append(w)
        tot = float(np.cumsum(w, dtype=dt)[-1])  # summed in order, as growth does
        for k in range(len(ctx.cont_pos)):
            v = ctx.cvals[k, rows]
            known = np.flatnonzero(~np.isnan(v))
            unk = np.flatnonzero(np.isnan(v))
            att.append(k)
            lens.append(known.size)
            base.append(start)
            parts.append(known[np.argsort(v[known], kind="stable")] + start)
            cases.append(tot)
            unknown.append(float(np.cumsum(w[unk], dtype=dt)[-1]) if unk.size else 0.0)
    rows_cat = np.concatenate(rows_all)
    w_cat = np.concatenate(w_all)
    rec = np.column_stack((ctx.cvals[:, rows_cat].T, w_cat, ctx.y[rows_cat])).astype(dt)
    return NodeSegments(
        rec=rec,
        att=np.asarray(att, dtype=np.intp),
        flat=np.concatenate(parts).astype(np.intp),
        lens=np.asarray(lens, dtype=np.intp),
        cases=np.asarray(cases, dtype=dt),
        unknown=np.asarray(unknown, dtype=dt),
        base=np.asarray(base, dtype=np.intp),
        rows=rows_cat,
        w=w_cat,
    )


def flat_scores(
    ctx: Context,
    s: NodeSegments,
    shifted: bool = False,
    scratch: npt.NDArray[np.uint8] | None = None,
) -> ContScores:
    """The C path's scores; ``shifted``: each segment's positions given within its node,
    with the node's start as the segment's offset (as a bucket's tasks are scored)."""
    if not shifted:
        return eval_continuous_flat(
            ctx, s.rec, s.att, s.flat, s.lens, s.cases, s.unknown, None, scratch
        )
    local = (s.flat - np.repeat(s.base, s.lens)).astype(np.int32)
    return eval_continuous_flat(
        ctx, s.rec, s.att, local, s.lens, s.cases, s.unknown, s.base, scratch
    )


def numpy_scores(ctx: Context, s: NodeSegments) -> ContScores:
    """The numpy path's scores of the same segments (padded with the dummy row)."""
    idx = padded_rows(s.flat, s.lens, s.rows.size)
    rows_ext = np.append(s.rows, ctx.n_rows)
    w_ext = np.append(s.w, ctx.dtype(0))
    return eval_continuous(ctx, s.att, rows_ext[idx], w_ext[idx], s.lens, s.cases, s.unknown)


def assert_same_scores(got: ContScores, want: ContScores) -> None:
    """Every segment's gain, split info, threshold and verdict equal, bit for bit."""
    for name in ("gain", "info", "bar", "ok"):
        assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), name
