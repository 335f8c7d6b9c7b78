"""A committee's C: every tree through the tree's code generator, then the integer vote.

Tree ``i`` is lowered by :mod:`treegen.codegen` (:func:`lower`) with the prefix
``PREFIX_t<i>`` and the export options given.  In the table style under C4.5's
missing-value rule (the default), the trees' node tables become one table walked by
one loop (:mod:`~.ctable`), so the walk and its helpers are in the C once.  Otherwise
(the ifs style, ``--missing none``) each tree is emitted (:func:`emit`) as the C that
``treegen export`` writes for that tree alone, and one predict.c holds them all, each
tree's header in place of its ``#include``, then the vote:

* boosting: ``PREFIX_predict`` adds tree ``i``'s integer vote to the class
  ``PREFIX_t<i>_predict`` returns (32-bit sums), then returns the first largest;
* bagging: it adds every tree's ``predict_proba`` (15-bit fixed point) and returns the
  first largest sum; ``PREFIX_predict_proba`` (where a tree would have one: not under
  ``--missing none`` without ``--proba``) writes those sums divided by the number of
  trees (integer division).

There is no float arithmetic in the vote, so with ``--float-compare int`` or an integer
``--input-type`` the whole predict uses none.  predict.h is the tree header's, for the
committee's prefix.  A j48 tree's empty leaves answer with their parent's class
distribution, as J48 computes it (:mod:`treegen.model.j48rule`), as that tree's own C does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from treegen.codegen.costs import committee_safety_lines
from treegen.codegen.emit import emit, make_env, render
from treegen.codegen.header import header_view
from treegen.codegen.ir import IR, Encoding, Feature, Leaf, Outcome, ProbaApi
from treegen.codegen.lower import folds_note, lower
from treegen.codegen.names import comment_text
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import file_names, source_and_header
from treegen.codegen.views import context
from treegen.committee import ctable
from treegen.committee.core import Committee
from treegen.errors import EmitError, UsageError
from treegen.model.fixedpoint import ONE

Provenance = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CommitteeIR:
    """The lowered committee: one IR per tree, the vote, and the C interface verify
    calls (:class:`treegen.verify.build.CApi`)."""

    prefix: str
    method: str
    trees: tuple[IR, ...]
    votes: tuple[int, ...]
    provenance: Provenance
    style: str
    proba: bool  # whether PREFIX_predict_proba is exported (bagging, unless --no-proba)

    @property
    def encoding(self) -> Encoding:
        return self.trees[0].encoding

    @property
    def features(self) -> tuple[Feature, ...]:
        return self.trees[0].features

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def n_classes(self) -> int:
        return self.trees[0].n_classes

    @property
    def proba_api(self) -> ProbaApi | None:
        """Bagging's ``PREFIX_predict_proba``: the mean of the trees' fixed-point
        probabilities, in units of 1/32768."""
        return ProbaApi("predict_proba", "uint16_t", self.n_classes) if self.proba else None


def tree_prefix(prefix: str, i: int) -> str:
    """The C prefix of tree ``i`` inside a committee exported with ``prefix``."""
    return f"{prefix}_t{i}"


def lower_tree(c: Committee, i: int, opts: ExportOptions, prefix: str) -> IR:
    """Tree ``i`` lowered as the committee's C holds it (module docstring)."""
    member_opts = replace(opts, prefix=tree_prefix(prefix, i))
    if c.method == "bag":
        member_opts = replace(member_opts, proba=True)  # the vote adds distributions
    what = f"round {i + 1}" if c.method == "boost" else f"bag {i + 1}"
    lines = (("tree", f"{i + 1} of {c.n_members} ({what}, vote {c.votes[i]})"),)
    return lower(c.members[i], member_opts, lines)


def lower_committee(c: Committee, opts: ExportOptions, provenance: Provenance) -> CommitteeIR:
    """Every tree lowered for ``opts`` (``opts.prefix`` is set), checked to share one input
    encoding; an explicit ``--proba`` is refused for boosting, which has no predict_proba
    (and ``--no-proba`` is its default).
    A bagged committee exports its predict_proba where a tree would
    (:attr:`ExportOptions.wants_proba`: by default with ``--missing c45``, under
    ``--missing none`` only with ``--proba``); its trees keep theirs either way, for the
    vote adds them."""
    if c.method == "boost" and opts.proba is False:
        # What a boosted committee's C is anyway (its vote has no predict_proba): its
        # trees keep the distributions their --missing c45 rule sums, as by default.
        opts = replace(opts, proba=None)
    assert opts.prefix is not None
    opts.check_distributions()  # before its trees: a bagged one's are lowered with --proba
    if opts.proba and c.method == "boost":
        raise UsageError(
            "a boosted committee's C returns the class of its integer vote; predict_proba "
            "is a bagged committee's",
            option="--proba",
        )
    trees = tuple(lower_tree(c, i, opts, opts.prefix) for i in range(c.n_members))
    for i, ir in enumerate(trees[1:], 1):
        if ir.encoding != trees[0].encoding:
            raise EmitError(f"tree {i + 1} lowers to another input encoding than tree 1")
    proba = c.method == "bag" and opts.wants_proba
    return CommitteeIR(
        opts.prefix, c.method, trees, c.votes, provenance, opts.style or "table", proba
    )


def fold_note(cir: CommitteeIR) -> str:
    """The export's note on the tests its trees fold at the input type (each named by its
    tree and model node, as an ensemble's are), or "" for none."""
    named = [(f"tree {t} node {f.source}", f) for t, ir in enumerate(cir.trees) for f in ir.folds]
    return folds_note(named, cir.encoding, cir.features)


def check_options(opts: ExportOptions) -> None:
    """A committee has C for every tree export option; --scores is an ensemble's."""
    if opts.scores:
        raise UsageError(
            "applies to ensembles (their decision_function); a committee's C returns the "
            "class of its integer vote",
            option="--scores",
        )


def _header(cir: CommitteeIR) -> str:
    """predict.h: the tree header for the committee's prefix (a one-leaf tree's, so it
    renders fast), declaring predict_proba only for bagging, with the paragraph on
    calling it worked out from every tree."""
    ir0 = cir.trees[0]
    proba = tuple(ONE if c == 0 else 0 for c in range(ir0.n_classes))
    stub = replace(
        ir0,
        prefix=cir.prefix,
        provenance=cir.provenance,
        proba=cir.proba,
        nodes=(Leaf(0, 0),),
        outcomes=(Outcome(0, proba),),
        stack_size=1,
        inline_top=None,
    )
    header = header_view(stub, committee_safety_lines(cir.prefix, cir.trees, cir.proba))
    return render(make_env(), "predict.h.j2", context(header))


def _vote(cir: CommitteeIR) -> str:
    """The vote's C (module docstring)."""
    P, U = cir.prefix, cir.prefix.upper()
    n = len(cir.trees)
    lines = [
        f"/* The committee's vote: {n} trees, integer sums, the first largest wins. */",
        "",
    ]
    if cir.method == "boost":
        lines += [
            f"int {P}_predict(const {P}_input_t *x)",
            "{",
            f"    uint32_t sums[{U}_N_CLASSES];",
            "    int c, best = 0;",
            f"    for (c = 0; c < {U}_N_CLASSES; c++) {{",
            "        sums[c] = 0u;",
            "    }",
        ]
        for i, v in enumerate(cir.votes):
            lines.append(f"    sums[{tree_prefix(P, i)}_predict(x)] += {v}u;")
        lines += [
            f"    for (c = 1; c < {U}_N_CLASSES; c++) {{",
            "        if (sums[c] > sums[best]) {",
            "            best = c;",
            "        }",
            "    }",
            "    return best;",
            "}",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f"static void {P}_sums(const {P}_input_t *x, uint32_t *sums)",
        "{",
        f"    uint16_t p[{U}_N_CLASSES];",
        "    int c;",
        f"    for (c = 0; c < {U}_N_CLASSES; c++) {{",
        "        sums[c] = 0u;",
        "    }",
    ]
    for i in range(n):
        lines += [
            f"    {tree_prefix(P, i)}_predict_proba(x, p);",
            f"    for (c = 0; c < {U}_N_CLASSES; c++) {{",
            "        sums[c] += p[c];",
            "    }",
        ]
    lines += [
        "}",
        "",
        f"int {P}_predict(const {P}_input_t *x)",
        "{",
        f"    uint32_t sums[{U}_N_CLASSES];",
        "    int c, best = 0;",
        f"    {P}_sums(x, sums);",
        f"    for (c = 1; c < {U}_N_CLASSES; c++) {{",
        "        if (sums[c] > sums[best]) {",
        "            best = c;",
        "        }",
        "    }",
        "    return best;",
        "}",
    ]
    if not cir.proba:
        return "\n".join(lines) + "\n"
    lines += [
        "",
        f"void {P}_predict_proba(const {P}_input_t *x, uint16_t *proba)",
        "{",
        f"    uint32_t sums[{U}_N_CLASSES];",
        "    int c;",
        f"    {P}_sums(x, sums);",
        f"    for (c = 0; c < {U}_N_CLASSES; c++) {{",
        f"        proba[c] = (uint16_t)(sums[c] / {n}u);",
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def shares_walker(cir: CommitteeIR) -> bool:
    """Whether the committee's C is one table with one walk (:mod:`~.ctable`): the table
    style under C4.5's missing-value rule; otherwise every tree has its own C."""
    return cir.style == "table" and cir.trees[0].missing == "c45"


def emit_committee(cir: CommitteeIR, opts: ExportOptions) -> dict[str, str]:
    """predict.h and predict.c (module docstring)."""
    # The members are lowered with the committee's options: their files share its stem.
    source_name, header_name = file_names(cir.trees[0].stem)
    if shares_walker(cir):
        source = ctable.emit_source(
            cir.trees, cir.prefix, cir.method, cir.votes, cir.proba, cir.provenance
        )
    else:
        source = per_tree_source(cir, header_name)
    return {header_name: _header(cir), source_name: source}


def per_tree_source(cir: CommitteeIR, header_name: str) -> str:
    """predict.c as every tree's own C, then the vote (module docstring)."""
    include = f'#include "{header_name}"\n'
    head = (
        "/*\n" + "".join(f" * {comment_text(f'{k}: {v}')}\n" for k, v in cir.provenance) + " */\n"
    )
    parts = [head, include, "\n"]
    for ir in cir.trees:
        files = emit(ir, cir.style)
        source, header = (files[n] for n in source_and_header(files))
        if include not in source:
            raise EmitError(f"tree {ir.prefix}: its C does not include {header_name}")
        parts += [header, "\n", source.replace(include, "", 1), "\n"]
    parts.append(_vote(cir))
    return "".join(parts)
