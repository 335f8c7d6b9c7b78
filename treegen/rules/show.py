"""Rulesets printed as c4.5rules prints them, and the plain path rules of a tree."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.analysis.evaluate import confusion_matrix, format_confusion
from treegen.model.core import Model
from treegen.rules.core import Rule, RuleSet, firing, format_condition
from treegen.rules.generate import advantages, final_pass, leaf_paths


def format_path_rules(model: Model) -> str:
    """``treegen show --format rules``: one ``IF ... THEN class C`` line per leaf of the
    tree, in leaf order (pre-order, branch 0 first), with the path's tests as they are
    (a leaf without training cases too; the root alone is ``IF true``)."""
    lines = []
    for leaf, path in leaf_paths(model, empty=True):
        conds = " AND ".join(format_condition(c, model.schema) for c in path) or "true"
        lines.append(f"IF {conds} THEN class {model.schema.classes[model.nodes[leaf].cls]}\n")
    return "".join(lines)


def format_rules(rs: RuleSet) -> str:
    """The "Final rules" block and the default class, in c4.5rules' layout."""
    out = ["\nFinal rules from tree 0:\n"]
    for r in rs.rules:
        out.append(f"\nRule {r.number}:\n")
        for c in r.conditions:
            out.append(f"    \t{format_condition(c, rs.schema)}\n")
        out.append(f"\t->  class {rs.schema.classes[r.cls]}  [{100 - 100 * r.error:.1f}%]\n")
    out.append(f"\nDefault class: {rs.schema.classes[rs.default]}\n")
    return "".join(out)


def _table(
    rs: RuleSet, rules: tuple[Rule, ...], X: npt.NDArray[np.float64], y: npt.NDArray[np.integer]
) -> str:
    fired = firing(rules, X, rs.compares_float32)
    adv = advantages(rules, rs.default, X, y, rs.compares_float32)
    lines = [
        "Rule  Size  Error  Used  Wrong\t          Advantage\n",
        "----  ----  -----  ----  -----\t          ---------\n",
    ]
    for i, r in enumerate(rules):
        used = fired == i
        n_used = int(np.count_nonzero(used))
        if n_used == 0:
            # c4.5rules lists only the rules that classify some case: on vote-r8's test
            # data rule 13 (used by none) is left out of the table.
            continue
        wrong = int(np.count_nonzero(used & (y != r.cls)))
        pct = 100.0 * wrong / n_used if n_used else 0.0
        gain, loss = adv[i]
        lines.append(
            f"{r.number:4d}  {len(r.conditions):4d}  {100 * r.error:4.1f}%  {n_used:4d}  "
            f"{wrong:5d} ({pct:.1f}%)\t  {gain - loss:4d} ({gain}|{loss}) \t"
            f"{rs.schema.classes[r.cls]}\n"
        )
    return "".join(lines)


def format_rules_evaluation(
    rs: RuleSet,
    label: str,
    X: npt.NDArray[np.float64],
    y: npt.NDArray[np.integer],
    *,
    drop: bool = False,
) -> str:
    """c4.5rules' per-rule table (Used, Wrong, Advantage), the totals and confusion matrix.

    With ``drop`` (the training data right after generation) the rules with negative
    advantage are dropped one at a time as Release 8 does, each step printed.
    """
    n = X.shape[0]
    states = final_pass(rs.rules, rs.default, X, y) if drop else [rs.rules]
    text = f"\n\nEvaluation on {label} data ({n} items):\n\n" + _table(rs, states[0], X, y)
    for before, after in zip(states, states[1:], strict=False):
        gone = next(r for r in before if r not in after)
        text += f"\nDrop rule {gone.number}\n\n" + _table(rs, after, X, y)
    rules = states[-1]
    fired = firing(rules, X, rs.compares_float32)
    cls = np.asarray([r.cls for r in rules] + [rs.default], dtype=np.intp)
    predicted = cls[fired]
    errors = int(np.count_nonzero(predicted != y))
    pct = 100.0 * errors / n if n else 0.0
    text += f"\nTested {n}, errors {errors} ({pct:.1f}%)   <<\n"
    matrix = confusion_matrix(y, predicted, len(rs.schema.classes))
    return text + format_confusion(matrix, rs.schema.classes)
