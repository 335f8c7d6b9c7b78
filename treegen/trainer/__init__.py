"""The C4.5 trainer: data in, an unpruned or pruned :class:`~treegen.model.Model` out.

:func:`train` (in :mod:`~treegen.trainer.fit`) grows a tree as Release 8
(``flavor="c45"``) or Weka J48 (``flavor="j48"``) does and prunes it.  At
this level live the pieces both growth engines share: the options
(:mod:`~treegen.trainer.options`), the shared numbers (:mod:`~.constants`,
also read by the C accelerator's build), the per-node data (:mod:`~.context`),
split scoring (:mod:`~.stats`, :mod:`~.splits`, :mod:`~.subsets`), the
leaf rule and attribute choice (:mod:`~.select`) and routing (:mod:`~.route`).  The
engines are sub-packages: :mod:`~.reference` grows node by node (readable,
the specification's order), :mod:`~.levelwise` a level of nodes at a time
into arrays (the default, tested bit-identical); :mod:`~.pruning` holds
Release 8's pessimistic pruning in Python and its bridge to the C walk;
:mod:`~.native` loads the optional C accelerator.
"""

from __future__ import annotations

from treegen.trainer.fit import train
from treegen.trainer.options import Criterion, Engine, Flavor, TrainOptions

__all__ = ["Criterion", "Engine", "Flavor", "TrainOptions", "train"]
