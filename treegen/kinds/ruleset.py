"""The ruleset kind's entry: c4.5rules' ordered rules (``treegen rules -o RULES``).

Its parts live in :mod:`treegen.rules`: the value and classifier (``core``), the file
(``file``), printing and report (``show``), the C (``ccode``) and verify's rows and
oracles (``check``).  This module binds them into one record.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.errors import UsageError
from treegen.kinds.spec import Kind
from treegen.rules import check, core
from treegen.rules.ccode import RuleIR, check_options, emit_ruleset, lower_ruleset
from treegen.rules.file import FORMAT, ruleset_from_data, ruleset_to_json
from treegen.rules.show import format_data_evaluation, format_rules, format_ruleset_report


def _evaluate(rs: core.RuleSet, ds: Dataset, label: str, unpruned: str | None) -> str:
    """c4.5rules' evaluation table and confusion matrix on the labelled rows."""
    if unpruned is not None:
        raise UsageError("applies to trees, not to a ruleset", option="--unpruned")
    return format_data_evaluation(rs, ds, label)


def _info(rs: core.RuleSet, input_type: str | None) -> str:
    # No flash formula was fitted to rule lists: the compiled size is the measure.
    if input_type is not None:  # it would be ignored
        raise UsageError(
            "a ruleset has no flash estimate to assume an input type for (export it and "
            "compile it)",
            option="--input-type",
        )
    return (
        format_ruleset_report(rs)
        + "estimated flash: none for a ruleset (export it and compile it)\n"
    )


def _predict(rs: core.RuleSet, X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    return core.predict(rs, X)


def _summary(rir: RuleIR, opts: ExportOptions) -> str:
    enc = rir.encoding
    return (
        f"ruleset of {counted(len(rir.rules), 'rule')}, input {enc.input_type}"
        f"{', float compare int' if enc.uses_keys else ''}"
    )


def _notes(rir: RuleIR) -> tuple[str, ...]:
    """One note for the conditions that folded at the input type's range."""
    if not rir.folds:
        return ()
    n = len(rir.folds)
    return (
        f"{counted(n, 'condition')} with a threshold outside "
        f"{rir.encoding.input_type}'s values fold{'' if n != 1 else 's'}: " + "; ".join(rir.folds),
    )


RULESET: Kind[core.RuleSet, RuleIR] = Kind(
    name="ruleset",
    noun="ruleset",
    format=FORMAT,
    suffix=".rules",
    default_name="rules",
    value_type=core.RuleSet,
    from_data=ruleset_from_data,
    to_json=ruleset_to_json,
    predict=_predict,
    predict_proba=None,
    evaluate=_evaluate,
    show={"c45": format_rules},
    info=_info,
    dot=None,
    styles=("ifs",),
    lean=False,
    check_options=check_options,
    lower=lower_ruleset,
    emit=emit_ruleset,
    api=lambda rir: rir,
    rows=check.verify_rows,
    compare=check.compare,
    summary=_summary,
    size=lambda rs: (
        f"{counted(len(rs.rules), 'rule')}, "
        f"{counted(sum(len(r.conditions) for r in rs.rules), 'condition')}"
    ),
    notes=_notes,
)
