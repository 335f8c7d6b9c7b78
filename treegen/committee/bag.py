"""Bagging C4.5 trees: Weka's ``Bagging -I N -S S -W J48``, bootstrap draws included.

One ``java.util.Random(S)`` serves every bag: bag ``j`` is ``n`` rows drawn with
replacement by ``Instances.resampleWithWeights`` (Walker's alias method over the rows'
weights, all 1; :func:`treegen.data.weka_rows.resample_with_weights`), in draw order, each
drawn row a case of weight 1.  A tree is grown on each bag as on any data set (J48 is not
randomizable, so Weka draws no seed per tree).  The committee adds the trees' class
distributions (:mod:`treegen.committee.vote`; Weka averages them in double).  The
flavour decides the trees (``j48``: Weka's, ``c45``: Release 8's on the same bags).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from treegen.committee.boost import check_rounds, labelled
from treegen.committee.core import Committee
from treegen.data.dataset import Dataset
from treegen.data.weka_rows import JavaRandom, resample_with_weights
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.model.optnames import KEYWORDS, OptionNames
from treegen.model.version import VERSION
from treegen.trainer import TrainOptions, train
from treegen.trainer.fit import recorded_options

Progress = Callable[[str, int], None]


def bag_rows(n_rows: int, bags: int, seed: int) -> list[np.ndarray]:
    """The rows of each bag, in draw order (Weka's draws for ``new Random(seed)``)."""
    rnd = JavaRandom(seed)
    weights = np.ones(n_rows, dtype=np.float64)
    return [resample_with_weights(weights, rnd) for _ in range(bags)]


def bag(
    ds: Dataset,
    opts: TrainOptions,
    bags: int,
    seed: int = 1,
    progress: Progress | None = None,
    names: OptionNames = KEYWORDS,
) -> Committee:
    """``bags`` trees, each grown on a bootstrap sample of ``ds`` (module docstring); an
    error names the options as ``names`` spell them."""
    check_rounds(bags, names("bag"), ds)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TrainError("must be an integer", option=names("bag_seed"))
    if not -(2**63) <= seed < 2**63:
        raise TrainError(f"must fit a Java long, got {seed}", option=names("bag_seed"))
    fingerprint = ds.fingerprint()
    data = labelled(ds)
    members: list[Model] = []
    for j, rows in enumerate(bag_rows(data.n_rows, bags, int(seed))):
        members.append(train(data.subset(rows), opts, names=names))
        if progress is not None:
            progress("bagging", j + 1)
    options = recorded_options(opts.as_dict(), ds)
    options["bag"] = int(bags)
    options["bag_seed"] = int(seed)
    return Committee(
        schema=ds.schema,
        method="bag",
        members=tuple(members),
        betas=tuple(1.0 for _ in members),
        votes=tuple(1 for _ in members),
        shift=0,
        options=options,
        treegen_version=VERSION,
        data_fingerprint=fingerprint,
    )
