"""The ifs style's view of an ensemble (templates/predict_ensemble_ifs.c.j2): a function
of nested ifs per tree (more where a subtree starts MAX_NEST tests down), the last tests
above the leaves of a key walk or of integer inputs as select expressions
(treegen.ensemble.branchfree), and where a key walk keys its inputs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from treegen.codegen.comments import short
from treegen.codegen.ctype import smallest_uint
from treegen.codegen.keys import float_key, key_float
from treegen.codegen.layout import MAX_NEST
from treegen.codegen.literals import c_hex32, compared_float, compared_literal, value_literal
from treegen.codegen.lower import FLT_MAX
from treegen.codegen.names import comment_text
from treegen.ensemble import branchfree
from treegen.ensemble.ir import CatSplit, EnsembleIR, ETree, LeafRow, Split, bare
from treegen.ensemble.layout import Payloads
from treegen.ensemble.splice import passes
from treegen.ensemble.view_common import key_stride, splits

if TYPE_CHECKING:
    pass

INLINE_TESTS = 4096
"""The most tests an ifs predict.c lets the compiler inline its tree functions for:
measured (gcc 12 -O2), inlining made a 10-tree forest (921 tests) 54 -> 34 ns and a
400-tree boosted model (2,720) 2.5 -> 1.6 us at 2x its 0.2-1.2 s compile time, and a
500-tree one (about 30,000) no faster at 2x its 5.6 s."""


@dataclass(frozen=True, slots=True)
class EnsLine:
    """A line of an ifs function: ``if`` (the test is ``test``: le, lt, known, miss or
    cat), ``else``, ``end``, ``return`` (a payload), ``select`` (a subtree's select
    expression, treegen.ensemble.branchfree), ``call`` (a subtree's function) or, in an
    inline top, ``table`` (the table walk from row ``payload``)."""

    kind: str
    pad: str
    test: str = ""
    feature: int = 0
    threshold: str = ""
    nan_left: bool = False
    offset: int = 0  # a categorical test's bitset
    payload: int = 0
    callee: str = ""
    comment: str = ""
    zero: bool = False  # a value in the zero band goes the missing way too
    bare: bool = False  # --missing none: the comparison alone
    select: tuple[str, ...] = ()  # ``select``: a return statement's lines (branchfree)
    cond: str = ""  # the whole condition of a key test or an integer input's (_int_condition)


@dataclass(frozen=True, slots=True)
class EnsFunction:
    name: str
    lines: tuple[EnsLine, ...]
    uses_k: bool  # compares keys: declares k


@dataclass(frozen=True, slots=True)
class IfsView:
    functions: tuple[EnsFunction, ...]
    tree_functions: tuple[str, ...]  # tree t's function
    tree_outputs: tuple[int, ...]  # the output tree t adds to (0 for whole rows)
    uses_key: bool  # some test reads a key (--float-compare int)
    noinline: bool  # the tree functions stay functions (INLINE_TESTS)
    n_tests: int
    uses_select: bool  # some function returns a select expression (PREFIX_SEL)
    select_levels: str  # the comment's words for the most levels a select holds


def _ifs_tests(ir: EnsembleIR, node: Split | CatSplit, offset: int) -> tuple[str, str, int]:
    """(test, threshold literal, bitset offset) of a split that tests something."""
    if isinstance(node, CatSplit):
        return "cat", "", offset
    if ir.key_walk:  # the whole test is the line's cond (_key_test)
        assert isinstance(node, Split) and node.op == "le"
        return "key", "", 0
    if node.op in ("le", "lt"):
        # Cast where inexact: a one-tree ensemble without sums (decided) has no #error
        # on excess precision, so the constant must not carry any.
        return node.op, compared_literal(ir.frame.encoding, float(node.threshold)), 0
    # Every known value goes one way: the test is whether the value is known.
    return ("known" if node.op == "left" else "miss"), "", 0


def _key_index(ir: EnsembleIR, node: Split) -> int:
    """The key a key walk's test of ``node`` reads: k[f], or k[f] + 1 (at f + stride)
    where a missing value goes left (the threshold's + 1 too)."""
    return node.feature + key_stride(ir) * (ir.key_threshold(node) - int(node.threshold))


def host_floats(ir: EnsembleIR) -> bool:
    """Whether the ifs of a key walk may compare the float inputs themselves where a
    branch predictor guesses the tests and an FPU compares floats (PREFIX_FLOATCMP, on
    x86 and AArch64 hosts) rather than key every input once before the first test: for
    one tree, whose walk reads few inputs, whose first test then waits for no key, and
    whose every test is one float compare (a float32 x <= t exactly when x <= the float32
    t stands for; NaN fails it).  Measured (bench/regress_bench.py's depth-8 regression
    tree on 8 features, gcc 12 -O2, CPU time, interleaved): keys first 9.0 ns over the
    test rows in order and 21.0 shuffled; each test keying its input 6.9 and 17.2; float
    compares 5.7 and 20.9 (emlearn's float compares 6.6 and 23.1).  In order, where the
    predictor learns most paths, what is left is the work per test, least with floats;
    shuffled, gcc lays the keyed tests out around the sign branches, which mispredict
    less here.  Elsewhere the keys come first, as for a forest:
    on a microcontroller a float compare is a library call, and keyed at each test the
    tree took 8,522 -> 9,712 B on the ATmega328P; a forest's walks read every input many
    times (keyed at each test, the 10-tree ExtraTrees regressor took 37.9 -> 55 ns).
    A tree that is one leaf tests nothing: no key walk (view_common), so no keys either."""
    return ir.key_walk and len(ir.trees) == 1 and bool(splits(ir))


def _key_test(ir: EnsembleIR, node: Split) -> str:
    """A key walk's test of ``node``: k[i] <= its key threshold (k[i] is the input's key,
    or that plus 1 where a missing value goes left: _key_index); where the host may
    compare floats (host_floats), PREFIX_LE(i, key, the same test on the float), which
    the C reads either way."""
    i = _key_index(ir, node)
    key = c_hex32(ir.key_threshold(node))
    if not host_floats(ir):
        return f"k[{i}] <= {key}"
    left = ir.key_threshold(node) != int(node.threshold)
    flt = float_test(f"x[{node.feature}]", int(node.threshold), left)
    return f"{ir.prefix.upper()}_LE({i}, {key}, {flt})"


def float_test(x: str, key: int, nan_left: bool) -> str:
    """The test ``key(x) <= key`` (NaN right) or, with ``nan_left``, ``key(x) + 1 <=
    key + 1`` (NaN left) as C on the float32 ``x`` itself: x <= the float32 whose key is
    ``key``, or !(x > it); an infinite one (a threshold beyond every finite float32) as
    the same set of values.  No threshold keys -0.0 (lower_continuous prints +0.0), so
    the two zeros, equal as floats, go the same way here as there."""
    t = key_float(key)
    assert key != float_key(-0.0), "a key threshold is never -0.0's"
    if t == math.inf:  # every value that is not NaN
        return "1" if nan_left else f"{x} == {x}"
    if t == -math.inf:  # -inf alone
        m = compared_float(-FLT_MAX)
        return f"!({x} >= {m})" if nan_left else f"{x} < {m}"
    # Cast where inexact: excess precision (x87; s390's ISO modes) would otherwise
    # compare x with the decimal's wider value, not the float32 t (a one-tree ensemble
    # without sums has no #error on it).
    lit = compared_float(t)
    return f"!({x} > {lit})" if nan_left else f"{x} <= {lit}"


def int_walk(ir: EnsembleIR) -> bool:
    """Whether the tests compare integer inputs (an integer ``--input-type``): each one
    compare of the value (and, unless ``--missing none``, of the missing value), which a
    select expression can hold as a key walk's tests."""
    return ir.frame.encoding.is_int and bool(splits(ir))


def _int_condition(ir: EnsembleIR, node: Split) -> str:
    """An integer input's ``le`` or ``lt`` test (or a missing-only one, in a select) as
    C, the one text of both an ifs line's condition and a select's (which
    parenthesizes it): the compare alone under
    ``--missing none`` (bare), else with the compare of PREFIX_MISSING, which goes the
    missing value's way."""
    x = f"x[{node.feature}]"
    miss = f"{ir.prefix.upper()}_MISSING"
    if node.op in ("left", "right"):
        # Every known value goes one way, a missing value the other (the same way would
        # be no test: treegen.ensemble.splice): the compare of the missing value alone.
        assert not bare(node, ir.lean) and node.nan_left != (node.op == "left")
        return f"{x} {'!=' if node.op == 'left' else '=='} {miss}"
    thr = value_literal(ir.frame.encoding, float(node.threshold))
    test = f"{x} {'<' if node.op == 'lt' else '<='} {thr}"
    if bare(node, ir.lean):
        return test
    return f"{x} == {miss} || {test}" if node.nan_left else f"{x} != {miss} && {test}"


def _select_test(ir: EnsembleIR, node: Split) -> str:
    """A split's condition as an argument of a select: a key walk's, or an integer
    input's in parentheses where it has two compares."""
    if ir.key_walk:
        return _key_test(ir, node)
    cond = _int_condition(ir, node)
    return cond if bare(node, ir.lean) else f"({cond})"


def _select(ir: EnsembleIR, pay: Payloads, tree: ETree, i: int, cast: str) -> tuple[str, ...]:
    """The return statement of the subtree at ``i`` as a select (treegen.ensemble.branchfree)."""
    return tuple(
        branchfree.select_lines(
            tree.nodes,
            i,
            f"return ({cast})",
            f"{ir.prefix.upper()}_SEL",
            lambda n: _select_test(ir, n),
            lambda n: _comment(ir, n),
            lambda leaf: pay.of_row[leaf.row],
        )
    )


def ifs_view(
    ir: EnsembleIR,
    pay: Payloads,
    cat_at: dict[tuple[int, int], int],
    cut: dict[int, int] | None = None,
) -> IfsView:
    """A function per tree (more where a subtree starts MAX_NEST tests down); in a key
    walk or on integer inputs, the last tests above the leaves as select expressions
    (treegen.ensemble.branchfree).  With ``cut`` (a one-tree table's inline top,
    treegen.ensemble.view_top: split -> its table row for each split outside the top)
    the functions are the top's, each split of ``cut`` a ``table`` line that goes on in
    the table walk at its row, and there are no selects."""
    P = ir.prefix
    base = "top" if cut is not None else "tree"
    cast = smallest_uint(max(pay.count - 1, 1)).c_name
    functions: list[EnsFunction] = []
    deepest = 0  # the most levels a select holds
    tree_functions: list[str] = []
    for t, tree in enumerate(ir.trees):
        height = branchfree.heights(tree.nodes, ir.key_walk or int_walk(ir), int_walk(ir))
        # A tree's root holds at most HEIGHT levels: a whole depth-3 tree as one select
        # computes every test (measured slower: branchfree.INT_HEIGHT).
        levels = branchfree.HEIGHT if ir.key_walk else branchfree.INT_HEIGHT
        todo = [(0, f"{P}_{base}{t}")]
        tree_functions.append(todo[0][1])
        while todo:
            root, name = todo.pop()
            lines: list[EnsLine] = []
            uses_k = False
            # Work items: (node, indent, nest) or a ready line.
            stack: list[tuple[int, int, int] | EnsLine] = [(root, 1, 0)]
            while stack:
                item = stack.pop()
                if isinstance(item, EnsLine):
                    lines.append(item)
                    continue
                i, indent, nest = item
                pad = "    " * indent
                node = tree.nodes[i]
                if isinstance(node, LeafRow):
                    lines.append(EnsLine("return", pad, payload=pay.of_row[node.row]))
                    continue
                left, right = i + 1, node.right
                zero = isinstance(node, Split) and node.zero
                plain = bare(node, ir.lean)
                # emit writes the spliced IR: no test sends every value one way.
                assert not passes(node), "ifs_view takes the spliced IR (splice.spliced)"
                if cut is not None and i in cut:
                    lines.append(EnsLine("table", pad, payload=cut[i], comment=_comment(ir, node)))
                    continue
                if cut is None and height[i] <= (levels if i else min(levels, branchfree.HEIGHT)):
                    deepest = max(deepest, height[i])
                    lines.append(EnsLine("select", pad, select=_select(ir, pay, tree, i, cast)))
                    continue
                if nest >= MAX_NEST:
                    callee = f"{P}_{base}{t}_{i}"
                    todo.append((i, callee))
                    lines.append(EnsLine("call", pad, callee=callee))
                    continue
                test, thr, off = _ifs_tests(ir, node, cat_at.get((t, i), 0))
                cond = ""
                if test == "key" and isinstance(node, Split):
                    cond = _key_test(ir, node)
                elif test in ("le", "lt") and int_walk(ir) and not zero and not plain:
                    assert isinstance(node, Split)
                    cond = _int_condition(ir, node)
                uses_k = uses_k or (
                    ir.encoding.uses_keys
                    and not ir.key_walk
                    and test in ("le", "lt")
                    and not zero
                    and not plain
                )
                comment = _comment(ir, node)
                stack += [
                    EnsLine("end", pad),
                    (right, indent + 1, nest + 1),
                    EnsLine("else", pad),
                    (left, indent + 1, nest + 1),
                ]
                lines.append(
                    EnsLine(
                        "if",
                        pad,
                        test,
                        node.feature,
                        thr,
                        node.nan_left,
                        off,
                        comment=comment,
                        zero=zero,
                        bare=plain,
                        cond=cond,
                    )  # fmt: skip
                )
            functions.append(EnsFunction(name, tuple(lines), uses_k))
    outputs = tuple(max(t.output, 0) for t in ir.trees)
    uses_key = ir.encoding.uses_keys and (
        any(line.kind == "if" for fn in functions for line in fn.lines)
    )
    sel = f"{P.upper()}_SEL("
    n_tests = sum(
        1 if line.kind == "if" else sum(text.count(sel) for text in line.select)
        for fn in functions
        for line in fn.lines
    )
    selects = any(line.kind == "select" for fn in functions for line in fn.lines)
    return IfsView(
        tuple(functions),
        tuple(tree_functions),
        outputs,
        uses_key or selects,
        n_tests > INLINE_TESTS,
        n_tests,
        selects,
        _LEVELS.get(deepest, f"last {deepest} levels of tests above the leaves are"),
    )


# The comment's words for the most levels of tests a select holds.
_LEVELS = {
    1: "last level of tests above the leaves is",
    2: "last two levels of tests above the leaves are",
    3: "last three levels of tests above the leaves are",
}


def _comment(ir: EnsembleIR, node: Split | CatSplit) -> str:
    name = ir.features[node.feature].name
    if isinstance(node, CatSplit):
        text = f"{name} in {{{', '.join(str(c) for c in node.left_codes)}}}"
    else:
        text = f"{name} <= {short(node.cut)}"
    missing_left = node.nan_left and not bare(node, ir.lean)  # a bare test has no way
    return comment_text(text + (", missing left" if missing_left else ""))
