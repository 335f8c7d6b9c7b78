"""What training reads of a :class:`Dataset`, checked and made before growth.

:func:`prepare` checks :func:`~treegen.trainer.fit.train`'s arguments
(:func:`checked`: the data, the options, the case weights), takes the data's
fingerprint before growth allocates its arrays, and builds the run's
:class:`~treegen.trainer.context.Context` (:func:`build_context`, the presort left
for after the data can go); :class:`Prepared` holds them with what the j48
flavour's replay of Weka's orders reads.  :func:`~treegen.trainer.fit.grow_prepared`
grows and prunes from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema
from treegen.data.words import counted
from treegen.errors import TrainError
from treegen.model.optnames import KEYWORDS, OptionNames
from treegen.trainer import j48order
from treegen.trainer.context import Context
from treegen.trainer.heap import STEP_BLOCK, blocks_mapped_from
from treegen.trainer.options import TrainOptions
from treegen.trainer.tables import build_context


@dataclass
class Prepared:
    """What training reads of a :class:`Dataset`, made by :func:`prepare`: the run's
    context, and the data's schema, label type and fingerprint.  The Dataset itself (its
    float64 matrix: 160 MB at 1M rows of 20 attributes) is no longer needed, so a caller
    that drops it (``treegen --quiet train``) trains without holding it."""

    ctx: Context
    schema: Schema
    labels: str
    fingerprint: str
    opts: TrainOptions
    weighted: bool
    # The values, classes and case weights the j48 flavour's replay of Weka's orders reads,
    # where it runs (:func:`treegen.trainer.j48order.uses_weka_order`: a few thousand rows
    # at most, so holding them costs little).
    weka_order: (
        tuple[npt.NDArray[np.float64], npt.NDArray[np.int32], npt.NDArray[np.float64] | None] | None
    ) = None


def prepare(
    ds: Dataset,
    opts: TrainOptions,
    validation: Dataset | None = None,
    weights: npt.NDArray[np.floating] | None = None,
    *,
    spend: bool = False,
    names: OptionNames = KEYWORDS,
) -> Prepared:
    """:func:`train`'s checks and data for growing on ``ds`` (not for reduced-error
    pruning, which reads ``ds`` again): :func:`~treegen.trainer.fit.grow_prepared`
    grows and prunes.
    ``spend``: the context is built by cutting ``ds``'s matrix short where it can
    (:func:`build_context`): nothing may read ``ds`` afterwards."""
    assert not opts.reduced_error
    weights, fingerprint = checked(ds, opts, validation, weights, names)
    replay = (ds.X, ds.y, weights) if j48order.uses_weka_order(ds, opts, weights) else None
    with blocks_mapped_from(STEP_BLOCK):  # where the CLI fixed the mmap threshold
        ctx = _context(ds, opts, weights, spend=spend and replay is None)
    return Prepared(ctx, ds.schema, ds.labels, fingerprint, opts, weights is not None, replay)


def checked(
    ds: Dataset,
    opts: TrainOptions,
    validation: Dataset | None,
    weights: npt.NDArray[np.floating] | None,
    names: OptionNames = KEYWORDS,
) -> tuple[npt.NDArray[np.float64] | None, str]:
    """The checks of :func:`train`'s arguments, an option named as ``names`` spell it;
    the weights (None for all 1) and the data's fingerprint."""
    opts.validate(names)
    if ds.n_rows == 0:
        raise TrainError("no training cases", file=ds.source)
    if not ds.classes:
        raise TrainError("no classes declared", file=ds.source)
    if ds.X.shape[1] == 0:  # (the readers refuse such files at their header)
        raise TrainError("no attributes: a tree needs at least one to test", file=ds.source)
    if all(a.kind == "ignore" for a in ds.schema.attributes):
        # As a file whose only column is the class: a one-leaf "tree" tests nothing,
        # and a names file or --ignore that leaves no attribute is most likely a slip.
        raise TrainError(
            "no attributes: every attribute is ignored (a tree needs at least one to test)",
            file=ds.source,
        )
    if validation is not None and not opts.reduced_error:
        raise TrainError(
            f"a validation set is for {names.setting('pruning', 'reduced-error')}",
            option=names("validation"),
        )
    # Weights given (the API's weights=) are named so; a file's, by the file: an array's
    # error named "<memory>", its Dataset's source.
    given = weights is not None
    where = Where(None, names("weights")) if given else Where(ds.source, None)
    if weights is None:
        weights = ds.weights  # an ARFF file's instance weights, if it gave them
    if weights is not None:
        weights = _check_weights(ds, weights, opts, names, where)
        if np.all(weights == 1.0):
            weights = None  # unit weights: the unweighted tree, in its own case order
    # Hash the data first, before growth allocates its arrays (the hash reads X
    # in place; Dataset.fingerprint).
    return weights, ds.fingerprint()


# The most the case weights may add up to (Python's alone: trainer/constants.py holds
# the numbers shared with C).  The c45 flavour sums weights in float32 (at most about
# 3.4e38) and takes N * log2(N) of such sums, which overflows float32 from about
# 2.6e36; 2**100 (about 1.3e30) leaves every sum, product and estimate finite in
# either flavour, far beyond any real weighting.
MAX_TOTAL_WEIGHT = 2.0**100


class Where(NamedTuple):
    """Where case weights came from, for their errors: a file (its own, or an ARFF
    file's instance weights), or an option (the API's ``weights=``)."""

    file: str | None
    option: str | None


def _check_weights(
    ds: Dataset,
    weights: npt.NDArray[np.floating],
    opts: TrainOptions,
    names: OptionNames,
    where: Where,
) -> npt.NDArray[np.float64]:
    """The case weights as float64, or :class:`TrainError` naming what is wrong and
    ``where`` the weights came from."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (ds.n_rows,):
        raise TrainError(
            f"{w.shape} case weights for {counted(ds.n_rows, 'row')}",
            file=where.file,
            option=where.option,
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise TrainError(
            "case weights must be finite and not negative", file=where.file, option=where.option
        )
    if not np.any(w > 0):  # every case weighs nothing: no case to learn from
        raise TrainError(
            "case weights are all zero: no case to learn from", file=where.file, option=where.option
        )
    with np.errstate(over="ignore"):  # past a double's range, inf: refused below
        total = float(np.sum(w))  # (within a rounding of the exact sum: far from the limit)
    if total > MAX_TOTAL_WEIGHT:
        raise TrainError(
            f"case weights add up to {total:.3g}, more than 2**100 ({MAX_TOTAL_WEIGHT:.3g}): "
            "C4.5's sums of them would overflow",
            file=where.file,
            option=where.option,
        )
    if opts.reduced_error:
        raise TrainError("reduced-error pruning takes no case weights", option=names("pruning"))
    if np.any(ds.y < 0):
        raise TrainError("weighted training needs every row's class", file=ds.source)
    return w


def _context(
    ds: Dataset,
    opts: TrainOptions,
    weights: npt.NDArray[np.float64] | None = None,
    *,
    spend: bool = False,
) -> Context:
    """The run's :class:`Context` (cases at ``weights``, else 1); with ``--subsets`` (c45's)
    every attribute's gain counts in the average gain: Release 8 leaves ``MultiVal`` set
    then (section 8)."""
    ctx = build_context(
        ds, opts.min_cases, opts.flavor == "j48", weights, presort=False, spend=spend
    )
    if opts.subsets:
        ctx.multi_val = True
    return ctx
