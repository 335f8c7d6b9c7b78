"""c4.5rules' final pass: each rule's advantage (treegen/rules/generate.py).

``advantages`` finds each rule's covered cases once and, for the cases a rule
classifies, the first later rule covering them; these tests hold it to the
definition (the rest of the list classifying those cases) on random rule lists.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.rules.core import Condition, Rule, classify, covers
from treegen.rules.generate import advantages


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


@pytest.mark.parametrize("seed", range(10))
def test_advantages_equal_the_definition(seed: int) -> None:
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
    got = advantages(tuple(rules), default, X, y)
    assert got == _by_definition(tuple(rules), default, X, y)
    assert len(got) == len(rules)
