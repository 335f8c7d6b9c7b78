"""Training end to end: :func:`train` grows with the chosen engine, then prunes.

``train`` grows a tree as C4.5 Release 8 does (``flavor="c45"``, float32
values and weights as Release 8 stores them) or as Weka's J48 does
(``flavor="j48"``, double precision and Weka's tolerances), then prunes it
unless ``prune=False``.  The specification is docs/C45.md.

What ``Node.errors`` holds (chosen so a printed tree matches the tool's):

* unpruned tree (both flavours): training errors (weighted), as grown;
* pruned c45 tree: Release 8's *estimated* errors (``LeafEst`` at leaves,
  the subtree estimate at tests), i.e. the E of its ``(N/E)``;
* pruned j48 tree: training errors of the pruned tree (J48 prints those).

``items`` and ``dist`` are the weights that reached the node in the last
pass over the training data (pruning's pass for a pruned tree); empty
branches are leaves with ``items == 0``, the parent's class and the
parent's distribution.  Thresholds are training values: float32 values
(held in a float64) for c45, doubles for j48.

Where treegen knowingly departs from Release 8's float noise (all at the
float32-ulp level; the nine reference trees are reproduced exactly):

* sums of weights run in row order; Release 8 sums in its item order,
  which its in-place sorts and partitions permute;
* weights are per node: the unknown cases' ``Factor`` round trip
  (multiply, then divide back) is carried from branch to branch, but not
  the drift that round trips *inside* a branch's subtree leave on them
  before the next branch (Release 8 reuses one global weight array);
* only NaN is unknown: Release 8 also reads the value -999 as unknown.

Engines: ``engine="level"`` (default) grows a level of nodes at a time into
arrays (:mod:`treegen.trainer.levelwise.grow`, :mod:`treegen.trainer.levelwise.flat`) and, with
the C accelerator, prunes those arrays in C and makes the model nodes from
them; ``engine="dfs"`` is the readable node-by-node reference.  Both give
the same model, bit for bit, with or without the accelerator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema
from treegen.data.words import counted
from treegen.errors import TrainError
from treegen.model.core import Leaf, Model, Node
from treegen.model.j48rule import is_empty
from treegen.model.options import ModelOptions, with_labels
from treegen.model.optnames import KEYWORDS, OptionNames
from treegen.model.version import VERSION
from treegen.trainer import j48order, native
from treegen.trainer.constants import RELEASE8_ORDER_MAX_ROWS
from treegen.trainer.context import Context
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from, release_freed_memory
from treegen.trainer.levelwise import flat
from treegen.trainer.levelwise.grow import grow_levels
from treegen.trainer.options import CaseOrder, Engine, GrowOptions, TrainOptions
from treegen.trainer.prepare import Prepared, checked, prepare
from treegen.trainer.pruning.native import prune_native
from treegen.trainer.pruning.possible import check_possible_values
from treegen.trainer.pruning.prune import prune as _prune_tree
from treegen.trainer.pruning.prune import training_errors
from treegen.trainer.pruning.reduced import j48_split, reduced_error_prune
from treegen.trainer.reference import grow as reference
from treegen.trainer.release8 import grow as release8_grow
from treegen.trainer.release8 import prune as release8_prune
from treegen.trainer.stats import weka_max_class
from treegen.trainer.tables import build_context, widen_to
from treegen.trainer.tree import TNode, count_nodes, flatten, shape_copy

# progress(phase, nodes so far): see train().
Progress = Callable[[str, int], None]


def grow(ctx: Context, opts: GrowOptions) -> TNode:
    """The unpruned tree as :class:`TNode` objects, by ``opts.engine`` (both the same)."""
    if opts.engine == "level":
        tree = grow_levels(ctx, opts)
        if not tree.leaks_minobjs:
            return tree.to_tnodes()
    return reference.grow(ctx, opts)


def train(
    ds: Dataset,
    opts: TrainOptions | None = None,
    *,
    engine: Engine = "level",
    progress: Progress | None = None,
    validation: Dataset | None = None,
    weights: npt.NDArray[np.floating] | None = None,
    case_order: CaseOrder = "auto",
    names: OptionNames = KEYWORDS,
) -> Model:
    """Train a C4.5 tree on ``ds``.

    The c45 flavour reproduces Release 8's float sums in its own case order
    (:mod:`treegen.trainer.release8`, one engine, depth first) on training sets with
    unknown values of up to :data:`~treegen.trainer.constants.RELEASE8_ORDER_MAX_ROWS`
    rows, and sums in row order otherwise (the engines below, the same trees where no
    value is unknown); ``case_order="release8"`` or ``"rows"`` chooses either
    regardless (:func:`uses_release8_order`).

    ``engine="level"`` (default) grows all nodes of a tree level in one
    batch; ``engine="dfs"`` grows node by node, depth first, as Release 8
    does.  Both compute the same tree bit for bit; "dfs" is the readable
    reference the batched engine is tested against.  ``progress(phase,
    nodes)`` is told "growing" (after each round of the level-wise grower)
    and "pruning", with the number of nodes so far (the CLI's progress line).

    With ``opts.pruning == "reduced-error"`` the tree is pruned on
    ``validation`` (rows of ``ds``'s schema; its fingerprint is recorded in
    the model's options) or, without it, as J48 -R does: grown on all folds
    of ``ds`` but the last, pruned on the last (:mod:`treegen.trainer.pruning.reduced`).

    ``weights`` (one per row, finite and not negative) start each case at that weight
    instead of 1: a weighted case counts as that many cases everywhere C4.5 counts
    cases, as J48 counts a weighted instance (boosting trains so,
    :mod:`treegen.committee.boost`).  Not with reduced-error pruning.  Weighted cases
    (other than all 1) grow in row order, in either flavour.

    A j48 tree trained on cases of fractional weight (an unknown value, or ``weights``)
    gets Weka's own sums, made in J48's orders, and each test J48's counts of its
    branches (:mod:`treegen.trainer.j48order`, up to its row limit).

    An error about the options names them as ``names`` spell them (the API's keywords
    by default; the command line passes its flags).
    """
    opts = opts or TrainOptions()
    if opts.reduced_error:
        fingerprint = checked(ds, opts, validation, weights, names)[1]
        return _train_reduced_error(ds, opts, engine, validation, fingerprint, names)
    return grow_prepared(
        prepare(ds, opts, validation, weights, names=names),
        engine=engine,
        progress=progress,
        case_order=case_order,
    )


def grow_prepared(
    p: Prepared,
    *,
    engine: Engine = "level",
    progress: Progress | None = None,
    case_order: CaseOrder = "auto",
    keep_data: bool = False,
) -> Model:
    """The tree :func:`train` grows and prunes from :func:`prepare`'s ``p``.  The C
    pruner spends the context's classes, values and codes (prune_native's ``spend``):
    nothing may read ``p.ctx``'s data afterwards, unless ``keep_data`` (for
    :func:`~treegen.trainer.errcount.training_errors`)."""
    opts, ctx = p.opts, p.ctx
    ctx.presort()  # prepare() left it for after the data could go
    j48 = opts.flavor == "j48"
    gopts = _grow_options(opts, engine)
    nodes: tuple[Node, ...] | None = None
    # Release 8's case order is for unit weights (weighted cases grow in row order).
    if not p.weighted and uses_release8_order(ctx, case_order):
        grown, cases = release8_grow.grow(ctx, gopts, progress)
        if opts.prune:
            if progress is not None:
                progress("pruning", count_nodes(grown))
            release8_prune.prune(cases, grown, float(opts.cf))
        nodes = flatten(grown)
        if opts.subsets and opts.prune:
            nodes = check_possible_values(nodes, ctx.n_values)
        return _model(p.schema, nodes, ModelOptions.of(opts, p.labels), p.fingerprint)
    # (spend: the context's presorted rows go after the root; presort() again below.)
    tree = grow_levels(ctx, gopts, progress, spend=True) if engine == "level" else None
    if tree is not None and not tree.leaks_minobjs:
        # The level-wise grower writes arrays; with the C pruner the tree
        # stays arrays until the pruned model nodes are made.
        ctx.release_growth_arrays()  # pruning's peak memory without them
        release_freed_memory()
        if progress is not None and opts.prune:
            progress("pruning", tree.n)
        if not opts.prune:
            nodes = flat.grown_nodes(tree)
        elif native.cprune is not None:
            # Nothing reads the context's data after the walk: it lets them go once
            # it has read them (a tree the walk declines keeps them).
            with blocks_mapped_from(STEP_BLOCK):  # where the CLI fixed the mmap threshold
                nodes = prune_native(ctx, tree, float(opts.cf), spend=True, keep_data=keep_data)
        root = tree.to_tnodes() if nodes is None else None
    else:
        # Depth first: also where a --subsets growth leaks MINOBJS (subsets.leaking_attribute).
        ctx.presort()
        root = reference.grow(ctx, gopts)
    if nodes is None:
        assert root is not None
        if opts.prune:
            _prune_tree(ctx, root, float(opts.cf))
            if j48:
                training_errors(ctx, root)
        nodes = flatten(root)
    if opts.subsets and opts.prune:
        # Release 8 narrows or drops the last branch of subset tests after pruning (-s).
        nodes = check_possible_values(nodes, ctx.n_values)
    if p.weka_order is not None:
        # Weka's own sums where their order matters (unknown values, weighted cases).
        X, y, weights = p.weka_order
        nodes = j48order.in_weka_order(
            Dataset(p.schema, X, y, labels=p.labels),
            opts,
            weights,
            nodes,
            lambda c: grow(c, _grow_options(opts, engine, collapse=False)),
        )
    if j48:  # pruned or not: J48 labels every leaf maxClass (unpruned-label-tie.arff)
        nodes = j48_empty_leaves(nodes)
    return _model(p.schema, nodes, ModelOptions.of(opts, p.labels), p.fingerprint)


def grow_unpruned(p: Prepared, *, progress: Progress | None = None) -> flat.FlatTree | Model:
    """The unpruned tree of ``p`` (``opts.prune`` off) as the level-wise grower's arrays
    (collapsed), where that engine grows it, without making its model nodes (at 1M
    rows, 700,000 nodes: about 200 MB as Python objects); else (Release 8's case order,
    Weka's orders, a ``--subsets`` growth that leaks MINOBJS) the model
    :func:`grow_prepared` makes.  The context keeps its data (only growth's own arrays
    go), for a caller that reads them before it lets ``p`` go."""
    opts, ctx = p.opts, p.ctx
    assert not opts.prune
    ctx.presort()
    if p.weka_order is None and (p.weighted or not uses_release8_order(ctx)):
        tree = grow_levels(ctx, _grow_options(opts, "level"), progress, spend=True)
        if not tree.leaks_minobjs:
            ctx.release_growth_arrays()
            release_freed_memory()
            return tree
        # grow_prepared grows it depth first (its level-wise pass is done again: rare).
    return grow_prepared(p, progress=progress)


def _model(
    schema: Schema, nodes: tuple[Node, ...], options: ModelOptions, fingerprint: str
) -> Model:
    return Model(
        schema=schema,
        nodes=nodes,
        options=options,
        treegen_version=VERSION,
        data_fingerprint=fingerprint,
    )


def j48_empty_leaves(nodes: tuple[Node, ...]) -> tuple[Node, ...]:
    """A j48 tree's (pruned or not) leaves that no training weight reaches (``perBag`` 0 within
    ``J48_TOL``) labelled as J48 labels them: with the class of their parent's final
    distribution (``maxClass``).  Pruning's subtree raising can change a parent's
    distribution after growth gave its empty branches the parent's class; an empty leaf
    also takes that final distribution, as growth gives it the parent's.  Every other
    leaf is labelled ``maxClass`` of its own distribution, its errors the rest of its
    weight (``numIncorrect``): this differs from the first largest class only where
    fractional weights bring two classes within ``J48_TOL`` (or all below it)."""
    out = list(nodes)
    for i, n in enumerate(nodes):
        if isinstance(n, Leaf) and not is_empty(n.items):
            cls = weka_max_class(n.dist)
            if cls != n.cls:
                out[i] = replace(n, cls=cls, errors=n.items - n.dist[cls])
    for n in nodes:
        if isinstance(n, Leaf):
            continue
        cls = weka_max_class(n.dist)
        for c in n.children:
            child = out[c]
            if not isinstance(child, Leaf):
                continue
            if is_empty(child.items) and child.cls != cls:
                out[c] = replace(child, cls=cls, dist=n.dist if child.items == 0 else child.dist)
            elif child.items == 0 and child.dist != n.dist:
                out[c] = replace(child, dist=n.dist)
    return tuple(out)


def uses_release8_order(ctx: Context, case_order: CaseOrder = "auto") -> bool:
    """Whether training sums weights in Release 8's case order rather than in row order
    (docs/C45.md section 0): as ``case_order`` says, or by default (``"auto"``) in the
    c45 flavour on up to :data:`~treegen.trainer.constants.RELEASE8_ORDER_MAX_ROWS`
    rows with an unknown value (or a column holding both 0.0 and -0.0).  Without one
    every weight is 1 and every sum exact, so both orders give the same tree and the
    faster row-order engines grow it."""
    if ctx.j48 or case_order == "rows":
        return False
    if case_order == "release8":
        return True
    n = ctx.n_rows
    if n > RELEASE8_ORDER_MAX_ROWS:
        return False
    vals = ctx.cvals[:, :n]
    if np.isnan(vals).any() or (ctx.ncodes[:n] == 0).any():
        return True
    # A threshold at zero is 0.0 or -0.0 as Release 8 meets one first in its case order
    # (release8.grow.greatest_value_below): a column holding both needs that order.
    zero = vals == 0
    signed = np.signbit(vals) & zero
    return bool((signed.any(axis=1) & (zero & ~signed).any(axis=1)).any())


def recorded_options(options: dict[str, object], ds: Dataset) -> dict[str, object]:
    """What a ruleset's or committee's file records as ``"options"``: ``options``, then
    the type of the labels where they were not text (as a tree's :class:`ModelOptions`)."""
    return with_labels(options, ds.labels)


def _grow_options(opts: TrainOptions, engine: Engine, *, collapse: bool = True) -> GrowOptions:
    return GrowOptions(
        criterion=opts.criterion,
        subsets=opts.subsets,
        engine=engine,
        max_depth=opts.max_depth,
        min_gain_ratio=float(opts.min_gain_ratio),
        collapse=collapse,
    )


def _train_reduced_error(
    ds: Dataset,
    opts: TrainOptions,
    engine: Engine,
    validation: Dataset | None,
    fingerprint: str,
    names: OptionNames,
) -> Model:
    """Grow without collapse, prune on the pruning set (J48 -R), errors = training errors."""
    j48 = opts.flavor == "j48"
    validated: str | None = None  # the validation set's fingerprint, when given
    if validation is None:
        keep = np.flatnonzero(ds.y >= 0)
        # With fewer cases than folds the pruning fold (the last, of n // folds cases) is
        # empty; with at least as many both sets have cases.
        if keep.size < opts.folds:
            raise TrainError(
                f"{counted(keep.size, 'labelled case')} are fewer than {opts.folds} folds "
                "(J48 -R refuses this too)",
                option=names("folds"),
            )
        grow_rows, prune_rows = j48_split(ds.y[keep], opts.folds, opts.seed)
        grow_ds, prune_ds = ds.subset(keep[grow_rows]), ds.subset(keep[prune_rows])
        ctx = build_context(grow_ds, opts.min_cases, j48)
        widen_to(ctx, ds.subset(keep))
    else:
        if validation.schema != ds.schema:
            raise TrainError(
                "has other attributes or classes than the training data",
                file=validation.source,
                option=names("validation"),
            )
        prune_ds = validation.subset(np.flatnonzero(validation.y >= 0))
        ctx = build_context(ds, opts.min_cases, j48)
        validated = validation.fingerprint()
    if opts.subsets:
        ctx.multi_val = True  # as in prepare._context
    root = grow(ctx, _grow_options(opts, engine, collapse=False))
    replays = j48 and validation is None and j48order.order_matters(grow_ds, None)
    grown = shape_copy(root) if replays else None
    if prune_ds.n_rows:
        reduced_error_prune(build_context(prune_ds, opts.min_cases, j48), root)
    training_errors(ctx, root)
    nodes = flatten(root)
    if grown is not None:
        # Weka's own sums (J48 -R's orders on its growing set) where their order matters.
        nodes = j48order.reduced_in_weka_order(grow_ds, nodes, grown, root)
    return _model(ds.schema, nodes, ModelOptions.of(opts, ds.labels, validated), fingerprint)
