"""c4.5rules' candidate rules (steps 1 and 2 of ``treegen.rules.generate``) on hand-built
data: which leaves give a rule, and how a path that covers no case is generalised.

The golden tests (``tests/rules/test_rules_golden.py``) check the same rules on Release 8's
outputs; these pin each rule down on its own, with data where the other readings differ.
"""

from __future__ import annotations

import numpy as np

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import Model, Node
from treegen.rules.core import Condition
from treegen.rules.generate import _Data, candidates, generalise
from treegen.trainer.stats import ErrorBound

BOUND = ErrorBound(0.25, "c45")
PQ = ("p", "q")
SCHEMA = Schema(
    (Attribute("x", "nominal", PQ), Attribute("y", "nominal", PQ), Attribute("z", "nominal", PQ)),
    ("yes", "no"),
)
P, Q = 0, 1
YES, NO = 0, 1


def _dataset(rows: list[tuple[int, int, int, int]]) -> Dataset:
    arr = np.asarray(rows, dtype=np.float64)
    return Dataset(SCHEMA, arr[:, :3].copy(), arr[:, 3].astype(np.int32))


def _eq(attribute: int, value: int) -> Condition:
    return Condition(attribute, "=", value=value)


# No case has z = p together with x = p or y = p; the cases with x = p and y = p are all
# "no"; those with z = p all "yes".
CONFLICT = _dataset(
    [(Q, Q, P, YES)] * 6 + [(P, P, Q, NO)] * 3 + [(P, Q, Q, NO)] * 2 + [(Q, P, Q, NO)] * 2
)


def test_a_rule_covering_no_case_ranks_below_any_that_covers_one_correctly() -> None:
    """``x = p, y = p, z = p -> yes`` covers no case.  Dropping z gives a rule whose every
    case is an error (rate 1); dropping x or y leaves a rule covering nothing.  Release 8
    (hypo's rule 6) takes the latter: covering nothing ranks below every rate under 1 and
    above a rule that is always wrong, so y goes (the deeper of two equal), then x, and
    ``z = p`` (6 cases, no error) is left.  Ranking covering nothing worst, as treegen did,
    drops z first and ends with no condition at all."""
    data = _Data(CONFLICT, BOUND)
    conds, rate = generalise(data, (_eq(0, P), _eq(1, P), _eq(2, P)), YES)
    assert conds == (_eq(2, P),)
    assert rate == BOUND.add_errs(6.0, 0.0) / 6


def test_a_rule_covering_no_case_stays_when_every_removal_is_always_wrong() -> None:
    """When every removal from a rule covering nothing gives one that is always wrong, no
    condition goes (rate 1 ranks below covering nothing); its rate is 1, so the rule is no
    candidate (``_candidates`` keeps only rates below ``1 - (n_C + 1) / (N + 2)``)."""
    ds = _dataset([(P, P, Q, NO)] * 3 + [(P, Q, P, NO)] * 3 + [(Q, P, P, NO)] * 3)
    data = _Data(ds, BOUND)
    path = (_eq(0, P), _eq(1, P), _eq(2, P))
    assert generalise(data, path, YES) == (path, 1.0)


def _one_split_tree(ds: Dataset, items_p: float) -> Model:
    """``x = p: yes (items_p)``, ``x = q: no (7)``."""
    nodes = (
        Node("nominal", NO, items_p + 7, 0.0, (items_p, 7.0), attribute=0, children=(1, 2)),
        Node("leaf", YES, items_p, 0.0, (items_p, 0.0)),
        Node("leaf", NO, 7.0, 0.0, (0.0, 7.0)),
    )
    return Model(ds.schema, nodes)


def test_a_leaf_of_less_than_one_case_gives_no_rule() -> None:
    """A leaf holding fractional cases (from unknown values) that add up to less than one
    gives no rule: soybean-r8's leaves of 0.40 and 0.23 cases give none in Release 8
    (its rule 5 is the leaf after them), while leaves of one case and more all do."""
    ds = _dataset([(P, Q, Q, YES)] * 4 + [(Q, Q, Q, NO)] * 7)
    cls_of = {
        items: [r.cls for r in candidates(ds, _one_split_tree(ds, items), BOUND)]
        for items in (0.4, 0.99, 1.0, 4.0)
    }
    assert cls_of == {0.4: [NO], 0.99: [NO], 1.0: [YES, NO], 4.0: [YES, NO]}
