"""Training options: what the user chooses (:class:`TrainOptions`) and what growth needs.

One home for the option values and their checks, shared by both engines,
the pruner, the CLI and the Python API.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from treegen.errors import TrainError

Criterion = Literal["gainratio", "gain"]
Flavor = Literal["c45", "j48"]
Engine = Literal["level", "dfs"]

CRITERIA: tuple[Criterion, ...] = ("gainratio", "gain")
FLAVORS: tuple[Flavor, ...] = ("c45", "j48")
ENGINES: tuple[Engine, ...] = ("level", "dfs")


@dataclass(frozen=True)
class TrainOptions:
    """Training options (Release 8's -m, -c, -s, -g; ``prune=False`` is the unpruned tree)."""

    min_cases: int = 2
    cf: float = 0.25
    prune: bool = True
    subsets: bool = False
    criterion: Criterion = "gainratio"
    flavor: Flavor = "c45"

    def as_dict(self) -> dict[str, object]:
        """The options as plain JSON values (what ``Model.options`` records)."""
        d = asdict(self)
        d["min_cases"] = int(self.min_cases)
        d["cf"] = float(self.cf)
        d["prune"] = bool(self.prune)
        d["subsets"] = bool(self.subsets)
        return d

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


@dataclass(frozen=True)
class GrowOptions:
    """What growth needs of the options, and which engine grows."""

    criterion: str  # "gainratio" | "gain"
    subsets: bool = False
    engine: str = "level"  # "level": batched (treegen.trainer.levelwise.grow); "dfs": node by node
