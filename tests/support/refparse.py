"""Parse what C4.5 Release 8 and Weka J48 print into the canonical form (tests/support/reftypes.py).

Numbers are kept as the tool prints them (the comparison is on printed precision).
An absent ``/E`` means E = 0 and is stored as a zero string, so ``(4.0)`` and
``(4.0/0.0)`` compare equal.  Release 8's ``[Sk]`` subtree blocks are spliced back
in; a ``[S??]`` (a block past Release 8's 99th, never printed) becomes
:data:`~support.reftypes.UNPRINTED`.  Besides the trees: Release 8's Before/After
pruning table and J48's leaf count, size and training errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .reftypes import UNPRINTED, Branch, Leaf, ParseError, Style, Tree, make_split

# ---------------------------------------------------------------- line parsing

_INDENT = "|   "
_STATS = r"\((?P<n>-?[0-9.]+)(?:/(?P<e>-?[0-9.]+))?\)"
# Release 8: "attr <= t :" / "attr > t :" then optional " class (N/E)" or "[Sk]"
# ("[S??]" past the 99th block).
_R8_CONT = re.compile(
    r"^(?P<attr>.+?) (?P<op><=|>) (?P<val>\S+) :"
    r"(?:\[S(?P<sub>\d+|\?\?)\]| (?P<cls>.+) " + _STATS + r")?$"
)
# Release 8: "attr = value:" (value may contain spaces, never ':').
_R8_NOM = re.compile(
    r"^(?P<attr>.+?) (?P<op>=) (?P<val>[^:]*?):"
    r"(?:\[S(?P<sub>\d+|\?\?)\]| (?P<cls>.+) " + _STATS + r")?$"
)
# Release 8 with -s: "attr in {a,b}:".
_R8_SUB = re.compile(
    r"^(?P<attr>.+?) (?P<op>in) \{(?P<val>[^}]*)\}:"
    r"(?:\[S(?P<sub>\d+|\?\?)\]| (?P<cls>.+) " + _STATS + r")?$"
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
    sub = m.group("sub")
    if sub == "??":
        leaf, sub = UNPRINTED, None
    return _Line(
        depth, m.group("attr"), m.group("op"), value, leaf, int(sub) if sub else None, lineno
    )


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
    body: list[tuple[int, str]] = []
    for no, t in texts:
        if not t.strip():
            continue
        if body and kind == "c45" and body[-1][1].count("{") > body[-1][1].count("}"):
            # Release 8 wraps a long "in {...}" test: the rest of the values follow
            # on the next line, indented under the first.
            body[-1] = (body[-1][0], body[-1][1] + _split_indent(t)[1].strip())
            continue
        body.append((no, t))
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
    titles = ("J48 pruned tree", "J48 unpruned tree")
    heads = [k for k, ln in enumerate(lines) if ln.strip() in titles]
    if not heads:
        raise ParseError("no 'J48 pruned tree' header")
    i = heads[0]
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


def c45_sections(text: str) -> dict[str, str]:
    """Release 8's tree sections, title line to the end of its last block."""
    out = {}
    for title in ("Decision Tree:", "Simplified Decision Tree:"):
        m = re.search(
            r"^" + re.escape(title) + r"\n.*?(?=\n\n\n(?:Simplified|Tree saved))",
            text,
            re.DOTALL | re.MULTILINE,
        )
        if m:
            out[title] = m.group(0)
    return out
