"""Training options: what growth needs (:class:`GrowOptions`) and which engine grows.

What the user chooses, :class:`TrainOptions`, with its values, defaults and checks, is
:mod:`treegen.model.options` (a model records it); it is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from treegen.model.options import (
    CRITERIA,
    FLAVORS,
    PRUNINGS,
    Criterion,
    Flavor,
    Pruning,
    TrainOptions,
)

Engine = Literal["level", "dfs"]
CaseOrder = Literal["auto", "release8", "rows"]

ENGINES: tuple[Engine, ...] = ("level", "dfs")

__all__ = [
    "CRITERIA",
    "ENGINES",
    "FLAVORS",
    "PRUNINGS",
    "CaseOrder",
    "Criterion",
    "Engine",
    "Flavor",
    "GrowOptions",
    "Pruning",
    "TrainOptions",
]


@dataclass(frozen=True)
class GrowOptions:
    """What growth needs of the options, and which engine grows.

    The flavour is the context's (:attr:`Context.flavor
    <treegen.trainer.context.Context.flavor>`), not an option here: each growth function
    refuses ``--subsets`` under j48 from it (:func:`refuse_subsets_with`)."""

    criterion: str  # "gainratio" | "gain"
    subsets: bool = False
    engine: str = "level"  # "level": batched (treegen.trainer.levelwise.grow); "dfs": node by node
    max_depth: int | None = None  # nodes at this depth stay leaves (root: depth 0)
    min_gain_ratio: float = 0.0  # a chosen test below this gain ratio is not made
    # Growth's last step (Release 8's FormTree, J48's collapse): a subtree no
    # better than a leaf on the training data becomes the leaf.  Reduced-error
    # pruning grows without it, as J48 -R does.
    collapse: bool = True
