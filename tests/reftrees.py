"""Parse the trees that C4.5 Release 8 and Weka J48 print into one canonical form.

The golden tests compare treegen's trees with the reference outputs in
``tests/data/reference`` (``c45r8.out`` and ``j48.out``) and, in the Weka
differential test, with live J48 output.  Text diffs would depend on branch
order (Release 8 prints leaf branches first, J48 in declared order) and on
layout ([S1] subtree blocks), so both sides are turned into the same value:

* :class:`Leaf` (class name, N, E as printed strings),
* :class:`Split` (attribute name and its branches sorted by operator and
  value, each branch an operator, a value string and a subtree).

Numbers are kept as the tool prints them (the comparison is on printed
precision): Release 8 prints N and E with ``%.1f`` and thresholds with
``%g``; J48 prints N and E rounded to 2 decimals (``Utils.roundDouble``,
shown by Java's ``Double.toString``) and thresholds with
``Utils.doubleToString(x, 6)``.  An absent ``/E`` means E = 0 and is stored as
a zero string, so ``(4.0)`` and ``(4.0/0.0)`` compare equal.

:func:`from_model` renders a :class:`treegen.model.Model` in either
convention.  The module also parses the evaluation summaries: Release 8's
Before/After pruning table and J48's leaf count, size and training errors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from treegen.model import Model

Style = Literal["c45", "j48"]


@dataclass(frozen=True)
class Leaf:
    """A leaf: class name, N (cases) and E (errors) as printed."""

    cls: str
    n: str
    e: str

    def __str__(self) -> str:
        return f"{self.cls} ({self.n}/{self.e})"


@dataclass(frozen=True)
class Branch:
    """One outcome of a test: ``attr OP value`` leading to ``child``."""

    op: str
    value: str
    child: Tree


@dataclass(frozen=True)
class Split:
    """A test on ``attribute``; ``branches`` sorted by (op, value), so order-free."""

    attribute: str
    branches: tuple[Branch, ...]


Tree = Leaf | Split


class ParseError(ValueError):
    """A printed tree or summary that does not have the expected layout."""


def make_split(attribute: str, branches: Sequence[Branch]) -> Split:
    """A :class:`Split` with its branches in canonical order (duplicates rejected)."""
    ordered = tuple(sorted(branches, key=lambda b: (b.op, b.value)))
    keys = [(b.op, b.value) for b in ordered]
    if len(set(keys)) != len(keys):
        raise ParseError(f"duplicate branch in test on {attribute!r}: {keys}")
    return Split(attribute, ordered)


# ---------------------------------------------------------------- sizes and walks


def size(tree: Tree) -> int:
    """Number of nodes, empty leaves included (both tools' "size")."""
    if isinstance(tree, Leaf):
        return 1
    return 1 + sum(size(b.child) for b in tree.branches)


def n_leaves(tree: Tree) -> int:
    if isinstance(tree, Leaf):
        return 1
    return sum(n_leaves(b.child) for b in tree.branches)


def leaves(tree: Tree, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Leaf]]:
    """Every leaf with its path of ``attr op value`` strings from the root."""
    if isinstance(tree, Leaf):
        yield path, tree
        return
    for b in tree.branches:
        yield from leaves(b.child, (*path, f"{tree.attribute} {b.op} {b.value}"))


def subtree_at(tree: Tree, path: Sequence[str]) -> Tree:
    """The subtree reached by following ``path`` (``attr op value`` strings)."""
    node = tree
    for step in path:
        if not isinstance(node, Split):
            raise KeyError(f"path {list(path)} runs past a leaf at {step!r}")
        for b in node.branches:
            if f"{node.attribute} {b.op} {b.value}" == step:
                node = b.child
                break
        else:
            raise KeyError(f"no branch {step!r} at this node of path {list(path)}")
    return node


def diff(a: Tree, b: Tree, path: tuple[str, ...] = ()) -> list[str]:
    """Human-readable differences between two canonical trees (empty if equal).

    Each entry names the path from the root, so an assertion message tells
    exactly which node differs and how.
    """
    where = " / ".join(path) or "<root>"
    if isinstance(a, Leaf) or isinstance(b, Leaf):
        if a == b:
            return []
        return [f"{where}: {_describe(a)}  !=  {_describe(b)}"]
    if a.attribute != b.attribute:
        return [f"{where}: {_describe(a)}  !=  {_describe(b)}"]
    ka = {(br.op, br.value): br.child for br in a.branches}
    kb = {(br.op, br.value): br.child for br in b.branches}
    if ka.keys() != kb.keys():
        return [f"{where}: branches {sorted(ka)}  !=  {sorted(kb)}"]
    out: list[str] = []
    for key in sorted(ka):
        out += diff(ka[key], kb[key], (*path, f"{a.attribute} {key[0]} {key[1]}"))
    return out


def route_known(tree: Tree, row: dict[str, str | float | None]) -> Leaf | None:
    """The leaf a case reaches when every test on its path has a known value.

    ``row`` maps attribute names to a nominal value string, a continuous
    float, or None (unknown).  Returns None when the path meets an unknown
    value (the classifier would then mix several leaves) or a continuous value
    within 1e-5 (relative) of a threshold, which printed ``%g`` thresholds
    cannot place reliably.
    """
    node = tree
    while isinstance(node, Split):
        value = row.get(node.attribute)
        if value is None:
            return None
        for b in node.branches:
            if b.op == "=" and value == b.value:
                node = b.child
                break
            if b.op in ("<=", ">") and isinstance(value, float):
                t = float(b.value)
                if abs(value - t) <= 1e-5 * max(1.0, abs(t)):
                    return None
                if (value <= t) == (b.op == "<="):
                    node = b.child
                    break
            if b.op == "in" and isinstance(value, str) and value in b.value[1:-1].split(","):
                node = b.child
                break
        else:
            raise KeyError(f"no branch of {node.attribute!r} takes {value!r}")
    return node


def _describe(t: Tree) -> str:
    if isinstance(t, Leaf):
        return f"leaf {t}"
    return f"test on {t.attribute!r} ({', '.join(b.op + ' ' + b.value for b in t.branches)})"


def render(tree: Tree) -> str:
    """The canonical tree as indented text (for failure messages and debugging)."""
    lines: list[str] = []

    def walk(t: Tree, depth: int) -> None:
        if isinstance(t, Leaf):
            lines.append("|   " * depth + f": {t}")
            return
        for b in t.branches:
            if isinstance(b.child, Leaf):
                lines.append("|   " * depth + f"{t.attribute} {b.op} {b.value}: {b.child}")
            else:
                lines.append("|   " * depth + f"{t.attribute} {b.op} {b.value}")
                walk(b.child, depth + 1)

    walk(tree, 0)
    return "\n".join(lines)


# ---------------------------------------------------------------- number formats


def c45_number(x: float) -> str:
    """Release 8's ``%.1f`` for N and E."""
    return f"{x:.1f}"


def c45_threshold(x: float) -> str:
    """Release 8's ``%g`` for a threshold."""
    return f"{x:g}"


def java_double_repr(x: float) -> str:
    """Java's ``Double.toString``: shortest digits, ``E`` notation outside [1e-3, 1e7)."""
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if math.isinf(x) or math.isnan(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if 1e-3 <= abs(x) < 1e7:
        return repr(x)  # Python also prints these in plain decimal, shortest digits
    # Shortest round-trip digits (Python's repr) placed as d.ddd "E" exponent.
    t = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    assert isinstance(t.exponent, int)
    e10 = len(t.digits) - 1 + t.exponent
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{e10}"


def java_round2(x: float) -> str:
    """J48's ``Utils.roundDouble(x, 2)`` printed by Java's ``Double.toString``.

    ``roundDouble`` is ``Math.round(x * 100) / 100`` (round half up, i.e.
    ``floor(v + 0.5)``).
    """
    return java_double_repr(math.floor(x * 100.0 + 0.5) / 100.0)


def weka_double_to_string(value: float, after: int = 6) -> str:
    """Weka's ``Utils.doubleToString(value, afterDecimalPoint)`` (thresholds).

    Multiply by 10^after, round half up to a long, place the decimal point,
    strip trailing zeros and a trailing point.
    """
    temp = value * math.pow(10.0, after)
    if abs(temp) >= 9.2e18:
        return java_double_repr(value)
    pv = int(temp + 0.5) if temp > 0 else -int(abs(temp) + 0.5)
    neg = pv < 0
    digits = str(abs(pv)).rjust(after + 1, "0")
    text = digits[: len(digits) - after] + "." + digits[len(digits) - after :]
    text = text.rstrip("0").rstrip(".")
    if neg and text != "0":
        text = "-" + text
    return text


# ---------------------------------------------------------------- line parsing

_INDENT = "|   "
_STATS = r"\((?P<n>-?[0-9.]+)(?:/(?P<e>-?[0-9.]+))?\)"
# Release 8: "attr <= t :" / "attr > t :" then optional " class (N/E)" or "[Sk]".
_R8_CONT = re.compile(
    r"^(?P<attr>.+?) (?P<op><=|>) (?P<val>\S+) :"
    r"(?:\[S(?P<sub>\d+)\]| (?P<cls>.+) " + _STATS + r")?$"
)
# Release 8: "attr = value:" (value may contain spaces, never ':').
_R8_NOM = re.compile(
    r"^(?P<attr>.+?) (?P<op>=) (?P<val>[^:]*?):"
    r"(?:\[S(?P<sub>\d+)\]| (?P<cls>.+) " + _STATS + r")?$"
)
# Release 8 with -s: "attr in {a,b}:".
_R8_SUB = re.compile(
    r"^(?P<attr>.+?) (?P<op>in) \{(?P<val>[^}]*)\}:"
    r"(?:\[S(?P<sub>\d+)\]| (?P<cls>.+) " + _STATS + r")?$"
)
_R8_ROOTLEAF = re.compile(r"^\s*(?P<cls>.+?) " + _STATS + r"$")
# J48: "attr = value", "attr <= t", "attr > t", optionally ": class (N/E)".
_J48_LINE = re.compile(
    r"^(?P<attr>.+?) (?P<op><=|>|=|!=) (?P<val>.+?)(?:: (?P<cls>.+) " + _STATS + r")?$"
)
_J48_ROOTLEAF = re.compile(r"^: (?P<cls>.+) " + _STATS + r"$")


@dataclass(frozen=True)
class _Line:
    depth: int
    attr: str
    op: str
    value: str
    leaf: Leaf | None
    sub: int | None
    lineno: int


def _zero(e: str | None) -> str:
    return e if e is not None else "0.0"


def _split_indent(text: str) -> tuple[int, str]:
    depth = 0
    while text.startswith(_INDENT):
        text = text[len(_INDENT) :]
        depth += 1
    return depth, text


def _r8_line(raw: str, lineno: int) -> _Line:
    depth, body = _split_indent(raw)
    for rx in (_R8_CONT, _R8_SUB, _R8_NOM):
        m = rx.match(body)
        if m:
            break
    else:
        raise ParseError(f"line {lineno}: not a Release 8 tree line: {raw!r}")
    leaf = None
    if m.group("cls") is not None:
        leaf = Leaf(m.group("cls"), m.group("n"), _zero(m.group("e")))
    value = m.group("val")
    if m.group("op") == "in":
        value = "{" + ",".join(sorted(v.strip() for v in value.split(","))) + "}"
    sub = int(m.group("sub")) if m.group("sub") is not None else None
    return _Line(depth, m.group("attr"), m.group("op"), value, leaf, sub, lineno)


def _j48_line(raw: str, lineno: int) -> _Line:
    depth, body = _split_indent(raw)
    m = _J48_LINE.match(body)
    if not m:
        raise ParseError(f"line {lineno}: not a J48 tree line: {raw!r}")
    leaf = None
    if m.group("cls") is not None:
        leaf = Leaf(m.group("cls"), m.group("n"), _zero(m.group("e")))
    return _Line(depth, m.group("attr"), m.group("op"), m.group("val"), leaf, None, lineno)


@dataclass
class _SubRef:
    """A ``[Sk]`` placeholder, resolved once all subtree blocks are read."""

    number: int


def _build(lines: list[_Line], pos: int, depth: int) -> tuple[object, int]:
    """Read the test whose branch lines sit at ``depth`` starting at ``pos``."""
    first = lines[pos]
    if first.depth != depth:
        raise ParseError(f"line {first.lineno}: expected depth {depth}, got {first.depth}")
    branches: list[tuple[str, str, object]] = []
    while pos < len(lines) and lines[pos].depth == depth:
        ln = lines[pos]
        if ln.attr != first.attr:
            raise ParseError(
                f"line {ln.lineno}: test on {ln.attr!r} among branches of {first.attr!r}"
            )
        pos += 1
        child: object
        if ln.leaf is not None:
            child = ln.leaf
        elif ln.sub is not None:
            child = _SubRef(ln.sub)
        else:
            if pos >= len(lines) or lines[pos].depth != depth + 1:
                raise ParseError(f"line {ln.lineno}: branch without leaf or subtree")
            child, pos = _build(lines, pos, depth + 1)
        branches.append((ln.op, ln.value, child))
    if pos < len(lines) and lines[pos].depth > depth:
        raise ParseError(f"line {lines[pos].lineno}: unexpected indentation")
    return ("split", first.attr, branches), pos


def _resolve(raw: object, blocks: dict[int, object], seen: frozenset[int] = frozenset()) -> Tree:
    if isinstance(raw, Leaf):
        return raw
    if isinstance(raw, _SubRef):
        if raw.number not in blocks:
            raise ParseError(f"reference to missing subtree [S{raw.number}]")
        if raw.number in seen:
            raise ParseError(f"subtree [S{raw.number}] refers to itself")
        return _resolve(blocks[raw.number], blocks, seen | {raw.number})
    assert isinstance(raw, tuple)
    _, attr, branches = raw
    return make_split(
        attr, [Branch(op, val, _resolve(child, blocks, seen)) for op, val, child in branches]
    )


def _tree_from_lines(
    texts: list[tuple[int, str]], kind: Style, blocks: dict[int, object] | None = None
) -> object:
    body = [(no, t) for no, t in texts if t.strip()]
    if not body:
        raise ParseError("empty tree")
    if len(body) == 1:
        _no, t = body[0]
        m = (_J48_ROOTLEAF if kind == "j48" else _R8_ROOTLEAF).match(t)
        if m:
            return Leaf(m.group("cls").strip(), m.group("n"), _zero(m.group("e")))
    parse = _r8_line if kind == "c45" else _j48_line
    lines = [parse(t, no) for no, t in body]
    raw, pos = _build(lines, 0, 0)
    if pos != len(lines):
        raise ParseError(f"line {lines[pos].lineno}: trailing tree lines")
    return raw


# ---------------------------------------------------------------- Release 8 output

_R8_HEADERS = ("Decision Tree:", "Simplified Decision Tree:")
_SUBTREE = re.compile(r"^Subtree \[S(\d+)\]$")


def _r8_section(lines: list[str], header: str) -> Tree | None:
    """The tree printed under ``header`` (with its [Sk] blocks spliced back)."""
    try:
        start = lines.index(header) + 1
    except ValueError:
        return None
    end = start
    while end < len(lines) and lines[end] not in _R8_HEADERS and lines[end] != "Tree saved":
        end += 1
    parts: list[tuple[int | None, list[tuple[int, str]]]] = [(None, [])]
    for i in range(start, end):
        m = _SUBTREE.match(lines[i])
        if m:
            parts.append((int(m.group(1)), []))
        else:
            parts[-1][1].append((i + 1, lines[i]))
    blocks: dict[int, object] = {}
    for number, texts in parts[1:]:
        assert number is not None
        blocks[number] = _tree_from_lines(texts, "c45")
    return _resolve(_tree_from_lines(parts[0][1], "c45"), blocks)


@dataclass(frozen=True)
class R8Evaluation:
    """One Release 8 evaluation table (training or test data)."""

    items: int
    size_before: int
    errors_before: int
    pct_before: str
    size_after: int
    errors_after: int
    pct_after: str
    estimate: str


@dataclass(frozen=True)
class R8Output:
    """Everything the golden tests need from a ``c45r8.out``."""

    cases: int
    unpruned: Tree
    pruned: Tree
    simplified_printed: bool
    training: R8Evaluation
    test: R8Evaluation | None


_EVAL_HEAD = re.compile(r"^Evaluation on (training|test) data \((\d+) items\):$")
_EVAL_ROW = re.compile(
    r"^\s*(\d+)\s+(\d+)\(\s*([0-9.]+)%\)\s+(\d+)\s+(\d+)\(\s*([0-9.]+)%\)\s+\(\s*([0-9.]+)%\)"
)


def parse_c45r8(text: str) -> R8Output:
    """Parse a ``c4.5 -f stem`` output.

    When pruning changes nothing Release 8 prints no "Simplified Decision
    Tree" section; the pruned tree is then the unpruned one (same tests,
    classes and N), but its E values are not printed (the unpruned section
    shows training errors).  ``simplified_printed`` tells which case holds.
    """
    lines = text.splitlines()
    m = re.search(r"^Read (\d+) cases", text, re.MULTILINE)
    if not m:
        raise ParseError("no 'Read N cases' line")
    unpruned = _r8_section(lines, "Decision Tree:")
    if unpruned is None:
        raise ParseError("no 'Decision Tree:' section")
    pruned = _r8_section(lines, "Simplified Decision Tree:")
    evals: dict[str, R8Evaluation] = {}
    for i, ln in enumerate(lines):
        h = _EVAL_HEAD.match(ln)
        if not h:
            continue
        for row in lines[i + 1 : i + 8]:
            r = _EVAL_ROW.match(row)
            if r:
                evals[h.group(1)] = R8Evaluation(
                    int(h.group(2)),
                    int(r.group(1)),
                    int(r.group(2)),
                    r.group(3),
                    int(r.group(4)),
                    int(r.group(5)),
                    r.group(6),
                    r.group(7),
                )
                break
        else:
            raise ParseError(f"line {i + 1}: evaluation header without a result row")
    if "training" not in evals:
        raise ParseError("no evaluation on training data")
    return R8Output(
        int(m.group(1)),
        unpruned,
        pruned if pruned is not None else unpruned,
        pruned is not None,
        evals["training"],
        evals.get("test"),
    )


# ---------------------------------------------------------------- J48 output


@dataclass(frozen=True)
class J48Output:
    """A J48 tree with its printed leaf count, size and training errors."""

    tree: Tree
    n_leaves: int
    size: int
    training_errors: int | None
    training_total: int | None


def parse_j48(text: str) -> J48Output:
    """Parse J48's ``toString`` (as in ``j48.out`` or live ``weka`` output).

    The first tree ("J48 pruned tree" or "J48 unpruned tree") is read, plus
    "Number of Leaves", "Size of the tree" and, when present, the incorrectly
    classified count under "=== Error on training data ===".
    """
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.strip() in ("J48 pruned tree", "J48 unpruned tree"):
            break
    else:
        raise ParseError("no 'J48 pruned tree' header")
    if not set(lines[i + 1].strip()) <= {"-"}:
        raise ParseError(f"line {i + 2}: expected the dashes under the J48 header")
    start = i + 2
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    tree = _resolve(_tree_from_lines([(k + 1, lines[k]) for k in range(start, end)], "j48"), {})
    leaves_m = re.search(r"^Number of Leaves\s*:\s*(\d+)", text, re.MULTILINE)
    size_m = re.search(r"^Size of the tree\s*:\s*(\d+)", text, re.MULTILINE)
    if not leaves_m or not size_m:
        raise ParseError("no 'Number of Leaves' / 'Size of the tree' lines")
    errors = total = None
    k = text.find("=== Error on training data ===")
    if k >= 0:
        em = re.search(r"^Incorrectly Classified Instances\s+(\d+)", text[k:], re.MULTILINE)
        tm = re.search(r"^Total Number of Instances\s+(\d+)", text[k:], re.MULTILINE)
        if not em or not tm:
            raise ParseError("training evaluation without error/total lines")
        errors, total = int(em.group(1)), int(tm.group(1))
    return J48Output(tree, int(leaves_m.group(1)), int(size_m.group(1)), errors, total)


# ---------------------------------------------------------------- treegen models


def from_model(model: Model, style: Style = "c45") -> Tree:
    """A treegen model in the canonical form, formatted as ``style`` prints it.

    ``c45``: N and E ``%.1f``, thresholds ``%g``.  ``j48``: N and E via
    ``roundDouble(.., 2)``, thresholds via ``doubleToString(.., 6)``.  Works
    iteratively (children before parents) so deep trees need no recursion.
    """
    schema = model.schema
    num = c45_number if style == "c45" else java_round2
    thr = c45_threshold if style == "c45" else weka_double_to_string
    built: dict[int, Tree] = {}
    for i in range(len(model.nodes) - 1, -1, -1):  # pre-order: children follow parents
        node = model.nodes[i]
        if node.kind == "leaf":
            e = node.errors
            # J48 prints "/E" only when E > 1e-6 (Utils.gr); Release 8 when E > 0.
            shown = e > 1e-6 if style == "j48" else e > 0
            built[i] = Leaf(schema.classes[node.cls], num(node.items), num(e) if shown else num(0))
            continue
        attr = schema.attributes[node.attribute]
        branches: list[Branch] = []
        if node.kind == "continuous":
            t = thr(node.threshold)
            branches = [
                Branch("<=", t, built[node.children[0]]),
                Branch(">", t, built[node.children[1]]),
            ]
        elif node.kind == "nominal":
            branches = [Branch("=", attr.values[b], built[c]) for b, c in enumerate(node.children)]
        else:
            for b, c in enumerate(node.children):
                vals = [attr.values[v] for v in node.subsets[b]]
                if len(vals) == 1:
                    branches.append(Branch("=", vals[0], built[c]))
                else:
                    branches.append(Branch("in", "{" + ",".join(sorted(vals)) + "}", built[c]))
        built[i] = make_split(attr.name, branches)
    return built[0]
