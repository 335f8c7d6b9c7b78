"""Rulesets printed as c4.5rules prints them, the plain path rules of a tree, and a
ruleset's facts for ``treegen info``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from treegen.analysis.evaluate import confusion_matrix, format_confusion, labelled_rows
from treegen.analysis.report import attribute_lines, bars, provenance_lines
from treegen.data.dataset import Dataset, printed_name
from treegen.model.core import Model
from treegen.model.show import printed_schema
from treegen.rules.core import RuleSet, cover_rows, format_condition
from treegen.rules.final import ListState, dropping
from treegen.rules.generate import leaf_paths
from treegen.trainer.stats import to_f32


def format_path_rules(model: Model) -> str:
    """``treegen show --format rules``: one ``IF ... THEN class C`` line per leaf of the
    tree, in leaf order (pre-order, branch 0 first), with the path's tests as they are
    (a leaf without training cases too; the root alone is ``IF true``)."""
    lines = []
    model = printed_schema(model)
    for leaf, path in leaf_paths(model, empty=True):
        conds = " AND ".join(format_condition(c, model.schema) for c in path) or "true"
        lines.append(f"IF {conds} THEN class {model.schema.classes[model.nodes[leaf].cls]}\n")
    return "".join(lines)


def format_rules(rs: RuleSet) -> str:
    """The "Final rules" block and the default class, in c4.5rules' layout."""
    rs = replace(rs, schema=rs.schema.printed())  # names on one line, as show prints them
    out = ["\nFinal rules from tree 0:\n"]
    for r in rs.rules:
        out.append(f"\nRule {r.number}:\n")
        for c in r.conditions:
            out.append(f"    \t{format_condition(c, rs.schema)}\n")
        confidence = to_f32(100 * to_f32(1 - r.error))  # as Release 8 computes it, in float
        out.append(f"\t->  class {rs.schema.classes[r.cls]}  [{confidence:.1f}%]\n")
    out.append(f"\nDefault class: {rs.schema.classes[rs.default]}\n")
    return "".join(out)


def _table(rs: RuleSet, state: ListState, y: npt.NDArray[np.integer]) -> str:
    """The table of one rule list of :func:`~treegen.rules.final.dropping`."""
    m = len(rs.rules)
    by_rule = state.fired >= 0
    fired = state.fired[by_rule]
    n_used = np.bincount(fired, minlength=m)
    classes = np.asarray([r.cls for r in rs.rules], dtype=np.intp)
    n_wrong = np.bincount(fired[y[by_rule] != classes[fired]], minlength=m)
    lines = [
        "Rule  Size  Error  Used  Wrong\t          Advantage\n",
        "----  ----  -----  ----  -----\t          ---------\n",
    ]
    for i in state.index:
        r = rs.rules[i]
        used, wrong = int(n_used[i]), int(n_wrong[i])
        if used == 0:
            # c4.5rules lists only the rules that classify some case: on vote-r8's test
            # data rule 13 (used by none) is left out of the table.
            continue
        pct = to_f32(100 * to_f32(wrong / used))  # Release 8's float error rate
        gain, loss = int(state.gain[i]), int(state.loss[i])
        lines.append(
            f"{r.number:4d}  {len(r.conditions):4d}  {to_f32(100 * r.error):4.1f}%  {used:4d}  "
            f"{wrong:5d} ({pct:.1f}%)\t  {gain - loss:4d} ({gain}|{loss}) \t"
            f"{printed_name(rs.schema.classes[r.cls])}\n"  # one line, as show prints it
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
    return format_cover_evaluation(rs, label, cover_rows(rs.rules, X, rs.compares_float32), y, drop)


def format_data_evaluation(rs: RuleSet, ds: Dataset, label: str) -> str:
    """c4.5rules' evaluation of ``rs`` on ``ds``'s labelled rows (``treegen eval RULES
    DATA``, and ``treegen rules`` on STEM.test as c4.5rules -u prints it); data with no
    labelled row is the error every kind's eval gives."""
    labelled = labelled_rows(ds)
    return format_rules_evaluation(rs, label, ds.X[labelled], ds.y[labelled])


def format_cover_evaluation(
    rs: RuleSet,
    label: str,
    cover: list[npt.NDArray[np.int32]],
    y: npt.NDArray[np.integer],
    drop: bool = False,
    states: list[ListState] | None = None,
) -> str:
    """:func:`format_rules_evaluation` from each rule's covered cases (ascending), as
    :func:`cover_rows` gives them or :func:`treegen.rules.generate.generate` had them
    (``treegen rules`` on its training data: no case's values read again, which at 1M
    rows took seconds).  ``states``: :func:`~treegen.rules.final.dropping`'s lists of
    these, if already made (:func:`treegen.rules.generate.select` makes them)."""
    n = y.shape[0]
    if states is None:
        states = dropping(cover, [r.cls for r in rs.rules], rs.default, y, drop=drop)
    text = f"\n\nEvaluation on {label} data ({n} items):\n\n" + _table(rs, states[0], y)
    for before, after in zip(states, states[1:], strict=False):
        gone = next(int(i) for i in before.index if i not in after.index)
        text += f"\nDrop rule {rs.rules[gone].number}\n\n" + _table(rs, after, y)
    fired = states[-1].fired
    cls = np.asarray([r.cls for r in rs.rules] + [rs.default], dtype=np.intp)
    predicted = cls[fired]
    errors = int(np.count_nonzero(predicted != y))
    pct = to_f32(100 * errors / n) if n else 0.0
    text += f"\nTested {n}, errors {errors} ({pct:.1f}%)   <<\n"
    matrix = confusion_matrix(y, predicted, len(rs.schema.classes))
    return text + format_confusion(matrix, rs.schema.classes)


def format_ruleset_report(rs: RuleSet) -> str:
    """A ruleset's facts: rules and conditions, rules per class, conditions on each
    attribute and per rule, the options and the data fingerprint."""
    classes = rs.schema.printed().classes  # names on one line
    n_conditions = sum(len(r.conditions) for r in rs.rules)
    lines = [
        f"rules {len(rs.rules)}, conditions {n_conditions}, default class {classes[rs.default]}",
        f"classes ({len(classes)}): {', '.join(classes)}",
        "rules per class:",
    ]
    width = max(len(c) for c in classes)
    for k, name in enumerate(classes):
        lines.append(f"  {name:<{width}}  {sum(r.cls == k for r in rs.rules):>4}")
    tests = {a.name: 0 for a in rs.schema.attributes}
    sizes: dict[int, int] = {}
    for r in rs.rules:
        for c in r.conditions:
            tests[rs.schema.attributes[c.attribute].name] += 1
        sizes[len(r.conditions)] = sizes.get(len(r.conditions), 0) + 1
    lines.append("attributes (conditions on each):")
    lines += attribute_lines(rs.schema, tests)
    if sizes:
        lines.append("rules with N conditions:")
        lines += bars(dict(sorted(sizes.items())))
    else:  # the default class alone: no histogram to draw
        lines.append("rules with N conditions: none")
    lines += provenance_lines(
        rs.options, rs.data_fingerprint, f"made by treegen {rs.treegen_version}"
    )
    return "\n".join(lines) + "\n"
