"""Training options: what the user chooses (:class:`TrainOptions`) and what growth needs.

One home for the option values and their checks, shared by both engines,
the pruner, the CLI and the Python API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from treegen.errors import TrainError

Criterion = Literal["gainratio", "gain"]
Flavor = Literal["c45", "j48"]
Engine = Literal["level", "dfs"]
CaseOrder = Literal["auto", "release8", "rows"]
Pruning = Literal["error-based", "reduced-error"]

CRITERIA: tuple[Criterion, ...] = ("gainratio", "gain")
FLAVORS: tuple[Flavor, ...] = ("c45", "j48")
ENGINES: tuple[Engine, ...] = ("level", "dfs")
PRUNINGS: tuple[Pruning, ...] = ("error-based", "reduced-error")


@dataclass(frozen=True)
class TrainOptions:
    """Training options (Release 8's -m, -c, -s, -g; ``prune=False`` is the unpruned tree).

    Pre-pruning: a node at depth ``max_depth`` (the root is depth 0) stays a
    leaf, and so does a node whose chosen test has a gain ratio (gain / split
    information, in double) below ``min_gain_ratio``.  ``pruning`` is how a
    pruned tree is pruned: Release 8's error-based pruning (``cf``), or
    reduced-error pruning as Weka J48 ``-R -N folds -Q seed`` does it (grown
    on all folds but the last of J48's stratified split, pruned on the last;
    or grown on all the data and pruned on a validation set given to
    :func:`treegen.trainer.fit.train`).
    """

    min_cases: int = 2
    cf: float = 0.25
    prune: bool = True
    subsets: bool = False
    criterion: Criterion = "gainratio"
    flavor: Flavor = "c45"
    max_depth: int | None = None
    min_gain_ratio: float = 0.0
    pruning: Pruning = "error-based"
    folds: int = 3
    seed: int = 1

    def as_dict(self) -> dict[str, object]:
        """The options as plain JSON values (what ``Model.options`` records).

        The pre-pruning and reduced-error options are recorded only when they
        are used, so a model trained without them is the same file as before
        they existed.
        """
        d: dict[str, object] = {
            "min_cases": int(self.min_cases),
            "cf": float(self.cf),
            "prune": bool(self.prune),
            "subsets": bool(self.subsets),
            "criterion": self.criterion,
            "flavor": self.flavor,
        }
        if self.max_depth is not None:
            d["max_depth"] = int(self.max_depth)
        if self.min_gain_ratio:
            d["min_gain_ratio"] = float(self.min_gain_ratio)
        if self.reduced_error:
            d["pruning"] = self.pruning
            d["folds"] = int(self.folds)
            d["seed"] = int(self.seed)
        return d

    @property
    def reduced_error(self) -> bool:
        """Whether the tree is pruned by reduced-error pruning."""
        return self.prune and self.pruning == "reduced-error"

    def validate(self) -> None:
        """Raise :class:`TrainError` naming the offending option."""
        if isinstance(self.min_cases, bool) or not isinstance(self.min_cases, int | np.integer):
            raise TrainError("must be an integer", option="--min-cases")
        if self.min_cases < 1:
            raise TrainError(f"must be at least 1, got {self.min_cases}", option="--min-cases")
        if not (0.0 < float(self.cf) < 1.0):
            raise TrainError(f"must be between 0 and 1 (exclusive), got {self.cf:g}", option="--cf")
        if self.criterion not in CRITERIA:
            raise TrainError(f"unknown criterion {self.criterion!r}", option="--criterion")
        if self.flavor not in FLAVORS:
            raise TrainError(f"unknown flavor {self.flavor!r}", option="--flavor")
        if self.max_depth is not None:
            _check_int(self.max_depth, 0, "--max-depth")
        g = float(self.min_gain_ratio)
        if not (0.0 <= g <= 1.0):
            raise TrainError(f"must be between 0 and 1, got {g:g}", option="--min-gain-ratio")
        if self.pruning not in PRUNINGS:
            raise TrainError(f"unknown pruning {self.pruning!r}", option="--prune")
        _check_int(self.folds, 2, "--folds")
        _check_int(self.seed, -(2**63), "--seed")


def _check_int(value: object, lo: int, option: str) -> None:
    """``value`` is an integer (not a bool) of at least ``lo``, else :class:`TrainError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TrainError("must be an integer", option=option)
    if value < lo:
        raise TrainError(f"must be at least {lo}, got {value}", option=option)


@dataclass(frozen=True)
class GrowOptions:
    """What growth needs of the options, and which engine grows."""

    criterion: str  # "gainratio" | "gain"
    subsets: bool = False
    engine: str = "level"  # "level": batched (treegen.trainer.levelwise.grow); "dfs": node by node
    max_depth: int | None = None  # nodes at this depth stay leaves (root: depth 0)
    min_gain_ratio: float = 0.0  # a chosen test below this gain ratio is not made
    # Growth's last step (Release 8's FormTree, J48's collapse): a subtree no
    # better than a leaf on the training data becomes the leaf.  Reduced-error
    # pruning grows without it, as J48 -R does.
    collapse: bool = True
