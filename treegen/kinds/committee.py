"""The committee kind's entry: boosted and bagged C4.5 trees (``treegen train --boost``,
``--bag``).

Its parts live in :mod:`treegen.committee`: the value (``core``), its integer vote
(``vote``), the file (``file``), printing (``show``), the C (``ccode``) and verify's rows
and comparison (``check``).  This module binds them into one record.
"""

from __future__ import annotations

from treegen.codegen.options import ExportOptions
from treegen.committee import check, vote
from treegen.committee.ccode import (
    CommitteeIR,
    check_options,
    emit_committee,
    fold_note,
    lower_committee,
)
from treegen.committee.core import ADJECTIVE, Committee
from treegen.committee.file import FORMAT, committee_from_data, committee_to_json
from treegen.committee.show import format_committee, format_evaluation, format_info
from treegen.data.dataset import Dataset
from treegen.data.words import counted
from treegen.errors import UsageError
from treegen.kinds.spec import Kind, flash_input_type


def _evaluate(c: Committee, ds: Dataset, label: str, unpruned: str | None) -> str:
    if unpruned is not None:
        raise UsageError("applies to trees, not to a committee", option="--unpruned")
    return format_evaluation(c, ds, label)


def _summary(cir: CommitteeIR, opts: ExportOptions) -> str:
    enc = cir.encoding
    return (
        f"{ADJECTIVE[cir.method]} committee of {counted(len(cir.trees), 'tree')}, "
        f"style {cir.style}, "
        f"input {enc.input_type}{', float compare int' if enc.uses_keys else ''}"
    )


def _trained(c: Committee, trees: str) -> str:
    return (
        f"{ADJECTIVE[c.method]} committee of {c.n_members} {trees} "
        f"{'tree' if c.n_members == 1 else 'trees'} "
        f"({counted(c.size, 'node')}, {counted(c.n_leaves, 'leaf')})"
        + (f", stopped at {c.stopped}" if c.stopped else "")
    )


COMMITTEE: Kind[Committee, CommitteeIR] = Kind(
    name="committee",
    noun="committee",
    format=FORMAT,
    suffix=".committee",
    default_name="committee",
    value_type=Committee,
    from_data=committee_from_data,
    to_json=committee_to_json,
    predict=vote.predict,
    predict_proba=vote.predict_proba,
    evaluate=_evaluate,
    show={
        "weka": format_committee,
        "j48": lambda c: format_committee(c, "j48"),
        "c45": lambda c: format_committee(c, "c45"),
    },
    info=lambda c, given: format_info(c, flash_input_type(given)),
    dot=None,
    styles=("table", "ifs"),
    check_options=check_options,
    lower=lower_committee,
    emit=emit_committee,
    api=lambda cir: cir,
    rows=check.verify_rows,
    compare=check.compare,
    summary=_summary,
    notes=lambda cir: tuple(n for n in (fold_note(cir),) if n),
    size=lambda c: (
        f"{counted(c.n_members, 'tree')}, {counted(c.size, 'node')}, {counted(c.n_leaves, 'leaf')}"
    ),
    trained=_trained,
)
