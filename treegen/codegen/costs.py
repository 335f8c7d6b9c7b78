"""What one prediction costs at most, from the IR alone: what predict.h promises.

Firmware engineers ask first whether ``predict`` may run in an interrupt handler, how
deep its stack goes and how long it can take.  The exporter knows the worst cases
without a compiler: the comparisons on the longest path (and, under C4.5's
missing-value rule, over every walk from the root when every value is missing: one
per leaf, each leaf reached once), the data the walk keeps on the stack, and how deep
its calls nest.  The bytes a compiler adds per call frame it cannot know; ``treegen
export --report`` measures those (treegen.firmware.report).  :func:`costs` computes
the numbers, :func:`safety_lines` words them for predict.h.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.ir import IR, Leaf, Member
from treegen.codegen.views import CallLine, Function


@dataclass(frozen=True, slots=True)
class Costs:
    """The worst cases of one call of PREFIX_predict or PREFIX_predict_proba."""

    longest: int  # tests on the longest root-to-leaf path
    walks: int  # walks from the root with every value missing (1 under --missing none)
    total: int  # tests over all those walks
    data: int  # bytes of walk data on the stack (state, class sums)
    calls: int  # nested calls at most, PREFIX_predict included
    loops: bool  # some test loops over a nominal feature's codes (a member test)


def path_costs(ir: IR) -> tuple[int, int, int]:
    """(longest path, number of leaves, total over every leaf's path) in tests."""
    below = {0: 0}  # comparisons made before reaching each node (pre-order: parents first)
    longest = leaves = total = 0
    for i, node in enumerate(ir.nodes):
        cost = below.pop(i)
        if isinstance(node, Leaf):
            longest, leaves, total = max(longest, cost), leaves + 1, total + cost
            continue
        for child in node.children:
            below[child] = cost + 1
    return longest, leaves, total


def call_depth(functions: tuple[Function, ...]) -> int:
    """How many walk functions nest on the longest chain of calls (1: no split)."""
    index = {f.name: k for k, f in enumerate(functions)}
    depth = [1] * len(functions)
    # A function calls only functions laid out after it (treegen.codegen.layout).
    for k in range(len(functions) - 1, -1, -1):
        callees = [index[line.callee] for line in functions[k].lines if isinstance(line, CallLine)]
        depth[k] = 1 + max((depth[c] for c in callees), default=0)
    return depth[0] if functions else 1


def state_bytes(stack_size: int) -> int:
    """sizeof(PREFIX_state): a 32-bit weight, two 16-bit counters and two bytes per
    remembered choice, padded to 4 bytes."""
    return 8 + (2 * stack_size + 3) // 4 * 4


def costs(ir: IR, functions: tuple[Function, ...], table: bool) -> Costs:
    """The costs of ``ir``'s predict.c: ``functions`` are its nested-if walk functions
    (none for a table alone), ``table`` whether it walks a table."""
    longest, leaves, total = path_costs(ir)
    walk_calls = call_depth(functions) if functions else 0
    if ir.missing == "c45":
        # predict -> run -> walk0 [-> walk1 ...] -> the branch helper -> miss -> mul.
        calls = 2 + (walk_calls if functions else 1) + 3
        data = state_bytes(ir.stack_size) + 4 * ir.n_classes
        return Costs(longest, leaves, total, data, calls, False)
    members = any(isinstance(n, Member) for n in ir.nodes)
    # predict -> walk0 [-> the inline top's functions] [-> the table walk
    # [-> PREFIX_member]] -> PREFIX_in -> PREFIX_key, or one helper (key, bits).
    calls = 2 + walk_calls + (int(table) + int(table and members)) + (2 if members else 1)
    return Costs(longest, 1, longest, 0, calls, members)


def _api(P: str, proba: bool) -> str:
    return f"{P}_predict and {P}_predict_proba" if proba else f"{P}_predict"


def _calling(api: str) -> list[str]:
    """The paragraph's opening: reentrancy and allocation, as every kind's C with
    constant tables has them; the worst case per call follows."""
    return [
        f"Calling {api}: reentrant, so safe in several threads or interrupt handlers",
        "   at once (nothing is kept between calls: every variable is local, every table",
        "   constant); nothing is allocated and nothing recurses.  Worst case per call:",
    ]


MEASURED = "(treegen export --report measures the compiled stack)."


def safety_lines(P: str, c: Costs, proba: bool, missing: str) -> tuple[str, ...]:
    """predict.h's paragraph on calling predict: reentrancy, allocation, work, stack."""
    lines = _calling(_api(P, proba))
    if missing == "c45":
        lines += [
            f"   {c.longest} tests on the longest path when no value is missing; with",
            f"   missing values at most {c.walks} walks from the root (one per leaf reached),",
            f"   {c.total} tests in all.  Stack: {c.data} bytes of walk data (the state and",
            f"   the class sums) and at most {c.calls} nested calls, {P}_predict",
        ]
    else:
        loops = " (a test on interleaved codes loops over up to k - 1 of them)" if c.loops else ""
        lines += [
            f"   {c.longest} tests, the longest path{loops}.",
            f"   Stack: a few scalars, and at most {c.calls} nested calls, {P}_predict",
        ]
    lines.append(f"   included {MEASURED}")
    return tuple(lines)


def rules_safety_lines(P: str, conditions: int, keyed: bool) -> tuple[str, ...]:
    """predict.h's paragraph on calling a ruleset's predict."""
    return (
        f"Calling {P}_predict: reentrant, so safe in several threads or interrupt handlers",
        "   at once (nothing is kept between calls: every variable is local); nothing is",
        f"   allocated and nothing recurses.  Worst case per call: {conditions} conditions",
        "   (every condition of every rule).  Stack: a few scalars"
        + (f", and one call deep ({P}_key)." if keyed else ", and no call."),
    )


def ensemble_safety_lines(P: str, trees: int, tests: int, sums: int) -> tuple[str, ...]:
    """predict.h's paragraph on calling an ensemble's functions: ``trees`` walked once
    each, ``tests`` the sum of their longest paths, ``sums`` the running sums kept (0:
    one tree whose leaves return the class decided at export time, with no sums)."""
    if sums == 0:
        return (
            *_calling(f"the {P}_ functions below"),
            f"   1 tree walked once, {tests} tests at most (its longest path).  Stack: a",
            "   few scalars (no sums: each leaf's class was decided when the file was",
            f"   written) {MEASURED}",
        )
    return (
        *_calling(f"the {P}_ functions below"),
        f"   {trees} trees walked once each, {tests} tests in all (the longest path of",
        f"   every tree).  Stack: {sums} running sum{'s' * (sums != 1)} and a few scalars, and",
        "   the calls of the integer float routines where double has 32 bits",
        f"   {MEASURED}",
    )


def committee_safety_lines(P: str, trees: tuple[IR, ...], proba: bool) -> tuple[str, ...]:
    """predict.h's paragraph on calling a committee's predict: its ``trees`` walked in
    turn (each as :func:`path_costs` counts it), one tree's walk data at a time."""
    paths = [path_costs(ir) for ir in trees]
    longest = sum(p[0] for p in paths)
    lines = _calling(_api(P, proba))
    lines.append(f"   {len(trees)} trees walked in turn, {longest} tests on their longest paths")
    if trees[0].missing == "c45":
        walks, total = sum(p[1] for p in paths), sum(p[2] for p in paths)
        data = max(state_bytes(ir.stack_size) for ir in trees) + 4 * trees[0].n_classes
        lines += [
            f"   together; with missing values at most {walks} walks from the roots, {total}",
            f"   tests in all.  Stack: {data} bytes of one tree's walk data (the state and",
            "   the class sums), the vote's class sums and a few nested calls",
        ]
    else:
        lines += ["   together.  Stack: the vote's class sums and a few nested calls"]
    lines.append(f"   {MEASURED}")
    return tuple(lines)
