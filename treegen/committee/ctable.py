"""A committee's C in the table style: every tree's node table in one, walked by one loop.

The trees' node tables (:func:`treegen.codegen.layout.flatten`, one per lowered tree)
are laid end to end: tree ``i``'s tests are renumbered after those of the trees before
it, its leaves point into one list of outcomes (equal outcomes of different trees are
stored once), its nominal maps go into one pool, and ``PREFIX_roots[i]`` holds the
reference its walk starts from (a test, or an outcome for a one-leaf tree).  So the
missing-value replay, the walk loop and the helpers of the tree's table C
(``_base.c.j2``, ``predict_table.c.j2``) appear once, whatever the number of trees;
``PREFIX_run(x, proba, root)`` is one tree's class and fixed-point distribution,
exactly as that tree's own C computes them (the same tables, rows renumbered).

The vote (``predict_committee_table.c.j2``) is the one :mod:`treegen.committee.vote`
defines, in the order of :mod:`treegen.committee.ccode`'s per-tree C: boosting adds
``PREFIX_votes[i]`` to the class tree ``i`` returns, bagging adds every tree's
distribution, both in ``uint32_t`` sums, the first largest winning.

Only C4.5's missing-value rule takes this form; under ``--missing none`` and in the ifs
style each tree keeps its own C (:mod:`treegen.committee.ccode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from treegen.codegen import layout, parts, view_c45
from treegen.codegen.avr import avr_message, too_large
from treegen.codegen.emit import make_env, render, with_avr_error
from treegen.codegen.header import header_view
from treegen.codegen.ir import IR, Outcome, Switch, validate
from treegen.codegen.view_table import table_view_of
from treegen.codegen.views import Column, context
from treegen.errors import EmitError

MAX_SLOTS = 65535
"""The most branch slots (and references) one table may hold: the walk indexes slots
and shares with 16-bit integers."""


@dataclass(frozen=True, slots=True)
class Merged:
    """The trees' tables as one (module docstring)."""

    table: layout.NodeTable
    outcomes: tuple[Outcome, ...]
    roots: tuple[int, ...]  # the reference each tree's walk starts from
    has_switch: bool
    stack_size: int  # the largest of the trees'


@dataclass(frozen=True, slots=True)
class VoteView:
    """What the vote's block of predict_committee_table.c.j2 reads."""

    method: str
    n_trees: int
    roots: Column
    votes: Column  # boosting's integer votes (unused by bagging)


def merge(irs: Sequence[IR]) -> Merged:
    """One node table for the trees ``irs`` (module docstring)."""
    tables = [layout.flatten(ir) for ir in irs]
    n_tests = sum(t.n_tests for t in tables)
    outcomes: dict[Outcome, int] = {}
    pool = layout.MapPool()
    op: list[int] = []
    feature: list[int] = []
    threshold: list[int | float] = []
    first: list[int] = []
    ref: list[int] = []
    share: list[int] = []
    roots: list[int] = []
    for ir, t in zip(irs, tables, strict=True):
        at = [outcomes.setdefault(o, len(outcomes)) for o in ir.outcomes]
        base = len(op)

        def move(r: int, t: layout.NodeTable = t, at: list[int] = at, base: int = base) -> int:
            return base + r if r < t.n_tests else n_tests + at[r - t.n_tests]

        roots.append(move(t.root))
        for k, node in enumerate(t.tests):
            test = ir.nodes[node]
            # A nominal test's op names its map's offset: the pooled one now.
            op.append(layout.OP_SWITCH + pool.add(test) if isinstance(test, Switch) else t.op[k])
            first.append(len(ref) + t.first[k])  # slots after the trees before
        feature += t.feature
        threshold += t.threshold
        ref += [move(r) for r in t.ref]
        share += t.share
    if len(ref) > MAX_SLOTS or n_tests + len(outcomes) > MAX_SLOTS:
        raise EmitError(
            f"the committee's trees have {len(ref)} branches and {len(outcomes)} leaf "
            f"outcomes; one table holds at most {MAX_SLOTS} (export fewer or smaller trees)",
            option="--style",
        )
    table = layout.NodeTable(
        tests=tuple(range(n_tests)),
        op=tuple(op),
        feature=tuple(feature),
        threshold=tuple(threshold),
        first=tuple(first),
        ref=tuple(ref),
        share=tuple(share),
        maps=tuple(pool.values) or (0,),
        root=roots[0],
        binary=all(t.binary for t in tables),
    )
    has_switch = any(isinstance(n, Switch) for ir in irs for n in ir.nodes)
    stack = max(ir.stack_size for ir in irs)
    return Merged(table, tuple(outcomes), tuple(roots), has_switch, stack)


def emit_source(
    irs: Sequence[IR],
    prefix: str,
    method: str,
    votes: Sequence[int],
    proba: bool,
    provenance: tuple[tuple[str, str], ...],
) -> str:
    """predict.c of the committee whose lowered trees are ``irs`` (module docstring)."""
    for ir in irs:
        validate(ir)
    m = merge(irs)
    # The trees' shared frame: their encoding, features and classes, the merged outcomes.
    ir = replace(
        irs[0],
        prefix=prefix,
        outcomes=m.outcomes,
        stack_size=m.stack_size,
        provenance=provenance,
        proba=proba,
    )
    kind = parts.value_kind(ir.encoding)
    source = view_c45.source_of(
        ir, uses_rdf=kind == "float", has_tests=m.table.n_tests > 0, has_switch=m.has_switch
    )
    view = table_view_of(
        ir, m.table, replace(source, shared_walk=True, run_class=method == "boost")
    )
    U = prefix.upper()
    vote = VoteView(
        method=method,
        n_trees=len(irs),
        roots=parts.int_column(U, list(m.roots)),
        votes=parts.int_column(U, list(votes)),
    )
    env = make_env()
    template = "predict_committee_table.c.j2"
    header = header_view(ir)
    text = render(env, template, context(header, *view, vote))
    big = too_large(text)
    if big is not None:
        msg = avr_message(big, ir.missing, proba, ir.encoding.input_type)
        text = render(env, template, context(header, *with_avr_error(view, msg), vote))
    return text
