"""``treegen show`` layouts: C4.5 Release 8's and J48's printed trees, character for character.

The reference outputs are turned back into :class:`Model` values (schema from
the ARFF header, which keeps the declared value order), then printed again
with :func:`format_tree` and compared textually with the section they came
from.  This checks the layout on its own, independent of the trainer: leaf
branches first, ``%g`` thresholds, ``(N/E)``, and the ``[S1]`` subtree blocks
of soybean.  Hand-built trees cover the rest (deep chains, one-leaf trees,
subset tests, J48 number formats).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Schema
from treegen.errors import UsageError
from treegen.model.core import ContinuousTest, Leaf, Model, Node, NominalTest, SubsetTest, make_node
from treegen.model.options import ModelOptions, TrainOptions
from treegen.model.show import format_tree, java_double, weka_double_to_string
from treegen.rules.core import Condition, Rule, RuleSet
from treegen.rules.show import format_path_rules, format_rules, format_rules_evaluation

from support.refparse import c45_sections

DATASETS = [
    "crx",
    "golf",
    "hypo",
    "labor-neg",
    "monk1",
    "monk2",
    "monk3",
    "soybean-r8",
    "vote-r8",
]

_TOKEN = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|([^,{}\s]+)")


def arff_schema(path: Path) -> Schema:
    """The schema of an ARFF header (class = last attribute), declared order kept."""
    attrs: list[Attribute] = []
    for line in path.read_text().splitlines():
        if line.lower().startswith("@data"):
            break
        if not line.lower().startswith("@attribute"):
            continue
        tokens = [a or b or c for a, b, c in _TOKEN.findall(line[len("@attribute") :])]
        name = tokens[0]
        if "{" in line:
            attrs.append(Attribute(name, "nominal", tuple(tokens[1:])))
        else:
            attrs.append(Attribute(name, "continuous"))
    return Schema(tuple(attrs[:-1]), attrs[-1].values, attrs[-1].name)


@dataclass
class _Parsed:
    """A printed node: a leaf (cls set) or a test with branches by key."""

    cls: int = -1
    items: float = 0.0
    errors: float = 0.0
    attribute: int = -1
    threshold: float = float("nan")
    branches: dict[int, _Parsed | int] = field(default_factory=dict)  # int: [Sk]


def _parse_leaf(text: str, schema: Schema, style: str) -> _Parsed | int:
    """``Class (N/E)`` or ``[Sk]`` after a branch label."""
    m = re.fullmatch(r"\[S(\d+)\]", text)
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"(.+) \(([-0-9.E]+)(?:/([-0-9.E]+))?\)", text)
    assert m, text
    n = float(m.group(2))
    e = float(m.group(3)) if m.group(3) else 0.0
    if m.group(3) and e == 0.0 and style == "c45":
        e = 0.01  # printed "/0.0": positive but below 0.05
    return _Parsed(cls=schema.classes.index(m.group(1)), items=n, errors=e)


def _parse_label(content: str, schema: Schema, style: str) -> tuple[int, int, float, str]:
    """(attribute, branch key, threshold, rest of line) of one branch line."""
    colon = ":" if style == "c45" else ""
    for i, a in enumerate(schema.attributes):
        if a.is_nominal and content.startswith(a.name + " = "):
            rest = content[len(a.name) + 3 :]
            for v in sorted(a.values, key=len, reverse=True):
                if rest.startswith(v + ":") or (style == "j48" and rest == v):
                    return i, a.values.index(v), float("nan"), rest[len(v) + 1 :]
        for key, op in ((0, " <= "), (1, " > ")):
            if a.is_continuous and content.startswith(a.name + op):
                m = re.match(r"([^\s:]+)( " + colon + r"|:|$)", content[len(a.name) + len(op) :])
                assert m, content
                rest = content[len(a.name) + len(op) + m.end() :]
                return i, key, float(m.group(1)), rest
    raise AssertionError(f"cannot parse {content!r}")


def _parse_block(lines: list[str], schema: Schema, style: str) -> _Parsed:
    stack: list[_Parsed] = [_Parsed()]
    for line in lines:
        depth = 0
        while line.startswith("|   "):
            line, depth = line[4:], depth + 1
        del stack[depth + 1 :]
        node = stack[depth]
        attr, key, thr, rest = _parse_label(line, schema, style)
        node.attribute, node.threshold = attr, thr
        rest = rest.strip()
        rest = rest.removeprefix(": ")
        if rest:
            node.branches[key] = _parse_leaf(rest, schema, style)
        else:
            child = _Parsed()
            node.branches[key] = child
            stack.append(child)
    return stack[0]


def _to_model(root: _Parsed, blocks: dict[int, _Parsed], schema: Schema, prune: bool) -> Model:
    nodes: list[Node | None] = []

    def emit(p: _Parsed | int) -> tuple[int, float, float]:
        if isinstance(p, int):
            p = blocks[p]
        index = len(nodes)
        nodes.append(None)
        k = len(schema.classes)
        if p.cls >= 0:
            dist = [0.0] * k
            dist[p.cls] = p.items - p.errors
            dist[(p.cls + 1) % k] += p.errors
            nodes[index] = Leaf(p.cls, p.items, p.errors, tuple(dist))
            return index, p.items, p.errors
        children = []
        items = errors = 0.0
        for key in sorted(p.branches):
            c, n, e = emit(p.branches[key])
            children.append(c)
            items, errors = items + n, errors + e
        kind = "continuous" if schema.attributes[p.attribute].is_continuous else "nominal"
        nodes[index] = make_node(
            kind,
            0,
            items,
            errors,
            (items,) + (0.0,) * (k - 1),
            p.attribute,
            p.threshold,
            (),
            tuple(children),
        )
        return index, items, errors

    emit(root)
    assert all(n is not None for n in nodes)
    return Model(
        schema, tuple(n for n in nodes if n is not None), ModelOptions(TrainOptions(prune=prune))
    )


def model_from_c45(section: str, schema: Schema, prune: bool) -> Model:
    parts = re.split(r"\n\n\nSubtree \[S(\d+)\]\n\n", section.split("\n", 2)[2])
    main = _parse_block(parts[0].splitlines(), schema, "c45")
    blocks = {
        int(parts[i]): _parse_block(parts[i + 1].splitlines(), schema, "c45")
        for i in range(1, len(parts), 2)
    }
    return _to_model(main, blocks, schema, prune)


def j48_section(text: str) -> str:
    m = re.search(
        r"^J48 (?:un)?pruned tree\n.*?Size of the tree : \t\d+\n", text, re.DOTALL | re.MULTILINE
    )
    assert m
    return m.group(0)


@pytest.mark.parametrize("name", DATASETS)
def test_c45_layout_reproduces_release8_sections(reference_dir: Path, name: str) -> None:
    folder = reference_dir / name
    schema = arff_schema(folder / f"{name}.arff")
    sections = c45_sections((folder / "c45r8.out").read_text())
    assert "Decision Tree:" in sections
    for title, section in sections.items():
        model = model_from_c45(section, schema, prune=title.startswith("Simplified"))
        printed = format_tree(model, "c45")
        assert printed.endswith("\n") and not printed.endswith("\n\n")
        assert printed.rstrip("\n") == section, f"{name}: {title}"


def test_soybean_subtree_blocks_are_reproduced(reference_dir: Path) -> None:
    folder = reference_dir / "soybean-r8"
    schema = arff_schema(folder / "soybean-r8.arff")
    section = c45_sections((folder / "c45r8.out").read_text())["Decision Tree:"]
    printed = format_tree(model_from_c45(section, schema, prune=False), "c45")
    assert [line for line in printed.splitlines() if line.startswith("Subtree")] == [
        "Subtree [S1]",
        "Subtree [S2]",
        "Subtree [S3]",
        "Subtree [S4]",
    ]
    assert "|   |   |   |   |   |   |   precip = norm:[S1]\n" in printed


@pytest.mark.parametrize("name", DATASETS)
def test_j48_layout_reproduces_weka_tree(reference_dir: Path, name: str) -> None:
    folder = reference_dir / name
    schema = arff_schema(folder / f"{name}.arff")
    section = j48_section((folder / "j48.out").read_text())
    body = section.split("\n", 2)[2].split("\n\nNumber of Leaves")[0]
    if body.startswith(": "):  # a one-leaf tree
        leaf = _parse_leaf(body[2:], schema, "j48")
        assert isinstance(leaf, _Parsed)
        model = _to_model(leaf, {}, schema, prune=True)
    else:
        model = _to_model(
            _parse_block(body.lstrip("\n").splitlines(), schema, "j48"), {}, schema, prune=True
        )
    assert format_tree(model, "j48") == section


# ----------------------------------------------------------- hand-built trees

GOLFISH = Schema(
    (Attribute("x", "nominal", ("yes", "no")), Attribute("t", "continuous")),
    ("c", "d"),
)


def _leaf(cls: int, n: float, e: float = 0.0) -> Node:
    dist = [0.0, 0.0]
    dist[cls] = n - e
    dist[1 - cls] = e
    return Leaf(cls, n, e, tuple(dist))


def chain_model(depth: int, prune: bool = False) -> Model:
    """``x = yes`` nested ``depth`` times; every ``x = no`` is a leaf.

    Pre-order: the chain of tests 0..depth-1, the final "yes" leaf at
    ``depth``, then the "no" leaves of the tests from the deepest up.
    """
    nodes: list[Node] = []
    for level in range(depth):
        n = float(depth - level + 1)
        no_leaf = 2 * depth - level  # index of this test's "no" leaf
        nodes.append(NominalTest(0, n, 0.0, (n, 0.0), attribute=0, children=(level + 1, no_leaf)))
    nodes.append(_leaf(0, 2.0))
    nodes.extend(_leaf(1, 1.0) for _ in range(depth))
    return Model(GOLFISH, tuple(nodes), ModelOptions(TrainOptions(prune=prune)))


def test_deep_chain_moves_subtrees_to_blocks() -> None:
    # Each test's widest line: "x" + 4 + len("no") + 1 + len("d") + 6 = 15 columns, so a
    # node at depth 17 would pass 80 (17 * 4 + 15 = 83) and becomes [S1]; inside the
    # block depth starts again at 0, so 40 levels make [S1] and a nested [S2].
    text = format_tree(chain_model(40), "c45")
    lines = text.splitlines()
    assert lines[0] == "Decision Tree:"
    assert lines[1] == ""
    assert lines[2] == "x = no: d (1.0)"
    assert lines[3] == "x = yes:"
    assert "|   " * 16 + "x = yes:[S1]" in lines
    assert "|   " * 17 not in text.split("Subtree")[0]
    assert text.count("Subtree [S") == 2
    s1 = text.split("Subtree [S1]\n\n")[1].split("\n\n\n")[0].splitlines()
    assert s1[0] == "x = no: d (1.0)" and "|   " * 16 + "x = yes:[S2]" in s1
    s2 = text.split("Subtree [S2]\n\n")[1].splitlines()
    # 40 tests: 17 in the tree, 17 in [S1], 6 in [S2] ending in the "c" leaf.
    assert sum(1 for line in s2 if line.endswith("x = yes:")) == 5
    # The last test has two leaves: printed in branch order.
    assert s2[-2:] == ["|   " * 5 + "x = yes: c (2.0)", "|   " * 5 + "x = no: d (1.0)"]
    assert text.endswith("d (1.0)\n")


def test_continuous_leaf_branch_first_and_threshold_g() -> None:
    # t <= 0.1234567 is a subtree, t > ... a leaf: the leaf prints first, %g gives 6 digits.
    nodes = (
        ContinuousTest(0, 10.0, 1.0, (6.0, 4.0), attribute=1, threshold=0.1234567, children=(1, 4)),
        NominalTest(0, 6.0, 1.0, (5.0, 1.0), attribute=0, children=(2, 3)),
        # Pruned leaves store estimated errors; J48 prints the training errors (dist).
        _leaf(0, 5.0),
        Leaf(1, 1.0, 0.04, (0.0, 1.0)),
        Leaf(1, 4.0, 1.25, (1.0, 3.0)),
    )
    model = Model(GOLFISH, nodes, ModelOptions(TrainOptions(prune=True)))
    assert format_tree(model, "c45") == (
        "Simplified Decision Tree:\n\n"
        "t > 0.123457 : d (4.0/1.2)\n"
        "t <= 0.123457 :\n"
        "|   x = yes: c (5.0)\n"
        "|   x = no: d (1.0/0.0)\n"
    )
    assert format_tree(model, "j48") == (
        "J48 pruned tree\n------------------\n\n"
        "t <= 0.123457\n"
        "|   x = yes: c (5.0)\n"
        "|   x = no: d (1.0)\n"
        "t > 0.123457: d (4.0/1.0)\n\n"
        "Number of Leaves  : \t3\n\nSize of the tree : \t5\n"
    )
    assert format_tree(model, "c45", header=False).startswith("t > 0.123457 : d (4.0/1.2)\n")


def test_single_leaf_tree() -> None:
    model = Model(GOLFISH, (_leaf(0, 14.0, 5.0),), ModelOptions(TrainOptions(prune=False)))
    assert format_tree(model, "c45") == "Decision Tree:\n c (14.0/5.0)\n"
    assert format_tree(model, "j48") == (
        "J48 unpruned tree\n------------------\n: c (14.0/5.0)\n\n"
        "Number of Leaves  : \t1\n\nSize of the tree : \t1\n"
    )


def test_subset_branches() -> None:
    schema = Schema(
        (Attribute("colour", "nominal", ("red", "green", "blue", "black")),), ("c", "d")
    )
    nodes = (
        SubsetTest(
            0,
            9.0,
            0.0,
            (5.0, 4.0),
            attribute=0,
            subsets=((0, 2), (1,), (), (3,)),
            children=(1, 2, 3, 4),
        ),
        _leaf(0, 5.0),
        _leaf(1, 3.0),
        _leaf(0, 0.0),
        _leaf(1, 1.0),
    )
    model = Model(schema, nodes, ModelOptions(TrainOptions(prune=False)))
    # The branch holding no value is not printed at all (Release 8 skips it).
    assert format_tree(model, "c45", header=False) == (
        "colour in {red,blue}: c (5.0)\ncolour = green: d (3.0)\ncolour = black: d (1.0)\n"
    )


def test_long_subset_label_wraps_at_80_columns() -> None:
    values = tuple(f"value-number-{i:02d}" for i in range(8))
    schema = Schema((Attribute("a", "nominal", values),), ("c", "d"))
    nodes = (
        SubsetTest(
            0, 9.0, 0.0, (5.0, 4.0), attribute=0, subsets=(tuple(range(7)), (7,)), children=(1, 2)
        ),
        _leaf(0, 5.0),
        _leaf(1, 4.0),
    )
    text = format_tree(
        Model(schema, nodes, ModelOptions(TrainOptions(prune=False))), "c45", header=False
    )
    first, second, third = text.splitlines()[:3]
    assert first.startswith("a in {value-number-00,") and len(first) <= 80
    assert second.startswith(" " * 6 + "value-number-")  # lined up after "a in {"
    assert third == "a = value-number-07: d (4.0)"


def test_names_that_do_not_print_are_shown_as_the_c_comments_show_them() -> None:
    """A name holding a newline, a tab or another character that does not print keeps
    each tree line on one line: that character as ``<U+XXXX>`` (the generated C's
    comments' notation), and a literal ``<U+`` as ``<U+003C>U+`` so no two names print
    alike; ``show --format rules`` and the rules printout do the same, and a name that
    prints is unchanged (``°C``)."""
    schema = Schema(
        (
            Attribute("a\tb", "nominal", ("x\ny", "<U+000A>", "°C", "e\u2028f")),
            Attribute("t", "continuous"),
        ),
        ("yes\r\nno", "n"),
    )
    nodes = (
        NominalTest(0, 9.0, 0.0, (5.0, 4.0), attribute=0, children=(1, 2, 3, 4)),
        _leaf(0, 3.0),
        _leaf(1, 2.0),
        _leaf(1, 2.0),
        _leaf(0, 2.0),
    )
    model = Model(schema, nodes, ModelOptions(TrainOptions(prune=False)))
    assert format_tree(model, "c45", header=False) == (
        "a<U+0009>b = x<U+000A>y: yes<U+000D><U+000A>no (3.0)\n"
        "a<U+0009>b = <U+003C>U+000A>: n (2.0)\n"
        "a<U+0009>b = °C: n (2.0)\n"
        "a<U+0009>b = e<U+2028>f: yes<U+000D><U+000A>no (2.0)\n"
    )
    j48 = format_tree(model, "j48")
    assert "a<U+0009>b = x<U+000A>y: yes<U+000D><U+000A>no (3.0)\n" in j48
    assert "\t" not in j48.replace(": \t", "")  # the footer's own tabs only
    paths = format_path_rules(model)
    assert paths.splitlines()[0] == "IF a<U+0009>b = x<U+000A>y THEN class yes<U+000D><U+000A>no"
    assert len(paths.splitlines()) == 4
    rules = format_rules(RuleSet(schema, (Rule(1, (Condition(0, "=", value=0),), 0, 0.1),), 1))
    assert "\ta<U+0009>b = x<U+000A>y\n\t->  class yes<U+000D><U+000A>no  [" in rules
    assert rules.endswith("Default class: n\n")
    assert model.schema.printed() is not model.schema and GOLFISH.printed() is GOLFISH


def test_the_rules_evaluation_table_shows_names_as_show_does() -> None:
    """The per-rule table of ``treegen rules`` and ``eval RULES DATA`` ends each line
    with the rule's class: a name holding a newline printed it raw, splitting the line."""
    schema = Schema((Attribute("t", "continuous"),), ("yes\r\nno", "a\tb"))
    rules = (Rule(1, (Condition(0, "<=", threshold=1.0),), 0, 0.1),)
    text = format_rules_evaluation(
        RuleSet(schema, rules, 1), "training", np.array([[0.0], [2.0]]), np.array([0, 1])
    )
    table = text[text.index("Rule  Size") : text.index("Tested")]
    assert table.splitlines()[2].endswith("\tyes<U+000D><U+000A>no"), table
    assert len(table.splitlines()) == 4  # header, dashes, rule 1, the blank before Tested


def test_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as info:
        format_tree(chain_model(1), "weka")
    assert info.value.option == "--format"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (75.0, "75"),
        (27.099998474121094, "27.099998"),
        (-0.5, "-0.5"),
        (1e-7, "0"),
        (0.1234565, "0.123457"),
        (123456.0, "123456"),
        (-3.0000004, "-3"),
        # Scaled by 1e6 beyond a long: Java's Double.toString, as Weka falls back to.
        (9.2e12, "9200000000000"),
        (9.3e12, "9.3E12"),
        (-28782743806003.543, "-2.8782743806003543E13"),
        (-5.451240720570585e99, "-5.451240720570585E99"),
    ],
)
def test_weka_threshold_format(value: float, text: str) -> None:
    assert weka_double_to_string(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0, "2.0"),
        (3.38, "3.38"),
        (0.0, "0.0"),
        (1e7, "1.0E7"),
        (12345678.9, "1.23456789E7"),
        (0.0005, "5.0E-4"),
    ],
)
def test_java_double_format(value: float, text: str) -> None:
    assert java_double(value) == text


def test_more_than_99_subtree_blocks_print_s_unknown() -> None:
    # Release 8 numbers at most 99 blocks; a deeper chain shows "[S??]" and stops there.
    text = format_tree(chain_model(17 * 101), "c45")
    assert text.count("\nSubtree [S") == 99
    assert "Subtree [S99]\n" in text and "[S100]" not in text
    assert text.count("x = yes:[S??]\n") == 1
    assert text.split("Subtree [S99]\n")[1].count("[S??]") == 1
