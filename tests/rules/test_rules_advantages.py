"""c4.5rules' final pass: each rule's advantage (treegen/rules/final.py).

``advantages`` keeps each case's first and second covering rule; these tests hold it
to the definition (the rest of the list classifying those cases) on random rule
lists, and each list of the drops to the advantages recounted for that list.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.rules.core import Condition, Rule, classify, cover_matrix, covers, firing
from treegen.rules.final import advantages, dropping


def _by_definition(
    rules: tuple[Rule, ...], default: int, X: np.ndarray, y: np.ndarray
) -> list[tuple[int, int]]:
    out = []
    for i in range(len(rules)):
        first = np.ones(X.shape[0], dtype=bool)
        for j in range(i):
            first &= ~covers(rules[j], X)
        used = covers(rules[i], X) & first
        rest = classify(rules[:i] + rules[i + 1 :], default, X[used])
        right = y[used] == rules[i].cls
        other = rest == y[used]
        out.append((int(np.count_nonzero(right & ~other)), int(np.count_nonzero(~right & other))))
    return out


def _random_rules(seed: int) -> tuple[tuple[Rule, ...], int, np.ndarray, np.ndarray]:
    rng = np.random.default_rng([21, seed])
    n, classes = int(rng.integers(1, 300)), int(rng.integers(2, 5))
    X = np.column_stack([rng.integers(0, 4, size=n).astype(float), rng.normal(size=n)])
    X[rng.random(X.shape) < 0.1] = np.nan  # unknown values satisfy no condition
    y = rng.integers(0, classes, size=n)
    rules = []
    for k in range(int(rng.integers(0, 25))):
        conds = []
        if rng.random() < 0.7:
            conds.append(Condition(0, "=", value=int(rng.integers(0, 4))))
        if rng.random() < 0.7 or not conds:
            op = "<=" if rng.random() < 0.5 else ">"
            conds.append(Condition(1, op, threshold=float(np.float32(rng.normal()))))
        rules.append(Rule(k + 1, tuple(conds), int(rng.integers(0, classes)), 0.1))
    default = int(rng.integers(0, classes))
    return tuple(rules), default, X, y


@pytest.mark.parametrize("seed", range(10))
def test_advantages_equal_the_definition(seed: int) -> None:
    rules, default, X, y = _random_rules(seed)
    got = advantages(rules, default, X, y)
    assert got == _by_definition(rules, default, X, y)
    assert len(got) == len(rules)


@pytest.mark.parametrize("seed", range(30))
def test_each_drop_is_the_first_negative_rule_of_the_list_recounted(seed: int) -> None:
    """Every list the final pass makes, with its firing rule per case and advantages kept
    from case to case as rules go, equals that list recounted from scratch; each drop is
    the first rule of the list with a negative advantage (Release 8's ``Interpret``),
    and the pass stops at none."""
    rules, default, X, y = _random_rules(seed)
    states = dropping(cover_matrix(rules, X), [r.cls for r in rules], default, y)
    for k, state in enumerate(states):
        listed = tuple(rules[i] for i in state.index)
        adv = _by_definition(listed, default, X, y)
        assert [(int(state.gain[i]), int(state.loss[i])) for i in state.index] == adv
        fired = firing(listed, X)
        want = np.append(state.index, -1)[fired]  # -1, no rule, indexes the appended -1
        assert np.array_equal(state.fired, want)
        negative = [j for j, (g, lo) in enumerate(adv) if g < lo]
        if k + 1 < len(states):
            gone = set(state.index) - set(states[k + 1].index)
            assert negative and gone == {int(state.index[negative[0]])}
        else:
            assert not negative
    assert sum(len(s.index) < len(rules) for s in states) == len(states) - 1
