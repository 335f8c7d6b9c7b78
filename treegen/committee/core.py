"""The committee kind's value: C4.5 trees that vote, boosted (AdaBoost.M1) or bagged.

A :class:`Committee` holds ordinary treegen trees (:class:`~treegen.model.core.Model`,
each classifying with C4.5's missing-value rule) and how they vote:

* ``method == "boost"``: member ``i`` votes for its class with weight ``votes[i]``;
* ``method == "bag"``: every member adds its class distribution (15-bit fixed point,
  the tree's ``predict_proba`` in the C) with weight 1.

The vote is integer arithmetic, defined by treegen (:mod:`treegen.committee.vote`): the
class is the first with the largest sum, in Python and in the exported C alike, on
every target.  ``betas`` keeps the double vote weights boosting computed
(``log(1/beta)``, Weka's ``m_Betas``); ``votes`` are those weights on the fixed scale
``2**shift``, rounded to integers (the one place they are made is
:func:`treegen.committee.vote.integer_votes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from treegen.data.dataset import Schema
from treegen.model.core import Model

Method = Literal["boost", "bag"]
METHODS: tuple[Method, ...] = ("boost", "bag")
ADJECTIVE: dict[str, str] = {"boost": "boosted", "bag": "bagged"}


@dataclass(frozen=True)
class Committee:
    """Trees and their vote (module docstring); ``stopped`` says why boosting made
    fewer rounds than asked ("" when it made them all, or for bagging)."""

    schema: Schema
    method: Method
    members: tuple[Model, ...]
    betas: tuple[float, ...]
    votes: tuple[int, ...]
    shift: int
    options: dict[str, object] = field(default_factory=dict)
    treegen_version: str = ""
    data_fingerprint: str = ""
    stopped: str = ""

    @property
    def compares_float32(self) -> bool:
        """Whether continuous values are compared as float32 (the c45 flavour's trees)."""
        return self.members[0].compares_float32

    @property
    def flavor(self) -> str:
        return self.members[0].options.flavor

    @property
    def n_members(self) -> int:
        return len(self.members)

    @property
    def size(self) -> int:
        """Nodes of all the trees together."""
        return sum(m.size for m in self.members)

    @property
    def n_leaves(self) -> int:
        return sum(m.n_leaves for m in self.members)

    def depth(self) -> int:
        return max(m.depth() for m in self.members)
