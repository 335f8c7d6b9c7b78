"""Model file: exact round trip, deterministic text, and rejection of every kind of damage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treegen.data.dataset import Attribute, Schema
from treegen.errors import ModelFileError
from treegen.model.classify import predict, predict_proba
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest, SubsetTest
from treegen.model.file import load_model, model_from_json, model_to_json, save_model
from treegen.model.options import ModelOptions, TrainOptions

from support import codegen_models as cm
from support.floatbits import same_bits

SCHEMA = Schema(
    (
        Attribute("outlook", "nominal", ("sunny", "overcast", "rain")),
        Attribute("temp, °C", "continuous"),
        Attribute("id", "ignore"),
        Attribute("windy", "nominal", ("true", "false")),
    ),
    ("Play", "Don't Play"),
    "play",
)

# Thresholds that decimal printing gets wrong easily: float32 values, a
# subnormal, negative zero, 0.1 + 0.2, the largest double.
THRESHOLDS = [float(np.float32(72.3)), 5e-324, -0.0, 0.1 + 0.2, 1.7976931348623157e308]


def hand_built(threshold: float = 75.5, flavor: str = "c45") -> Model:
    nodes = (
        NominalTest(0, 14.0, 5.0, (9.0, 5.0), attribute=0, children=(1, 4, 5)),
        ContinuousTest(1, 5.0, 2.0, (2.0, 3.0), attribute=1, threshold=threshold, children=(2, 3)),
        Leaf(0, 2.0, 0.0, (2.0, 0.0)),
        Leaf(1, 3.0000001192092896, 0.5, (0.0, 3.0000001192092896)),
        Leaf(0, 0.0, 0.0, (0.0, 0.0)),  # an empty leaf
        SubsetTest(0, 7.0, 1.0, (6.0, 1.0), attribute=3, subsets=((1,), (0,)), children=(6, 7)),
        Leaf(0, 4.0, 0.0, (4.0, 0.0)),
        Leaf(1, 3.0, 1.0, (2.0, 1.0)),
    )
    return Model(
        SCHEMA,
        nodes,
        ModelOptions.of(TrainOptions(cf=0.25, min_cases=2, flavor=flavor)),
        "0.1.0",
        "sha256:0123456789abcdef",
    )


def test_a_c45_threshold_must_be_a_float32_value(tmp_path: Path) -> None:
    """The c45 flavour compares float32(v) with its thresholds (and its C stores them as
    floats): a double between two float32 values can only be a hand edit."""
    path = tmp_path / "m.tree"
    save_model(hand_built(0.1 + 0.2, "c45"), path)
    with pytest.raises(ModelFileError, match=r"nodes\[1\]\.threshold: .* not a float32 value"):
        load_model(path)
    save_model(hand_built(float(np.float32(0.3)), "c45"), path)
    assert load_model(path).nodes[1].threshold == float(np.float32(0.3))


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_round_trip_is_exact(tmp_path: Path, threshold: float) -> None:
    # A c45 tree's thresholds are float32 values (it compares float32); j48's any double.
    with np.errstate(over="ignore"):
        c45 = float(np.float32(threshold)) == threshold
    model = hand_built(threshold, "c45" if c45 else "j48")
    path = tmp_path / "m.tree"
    save_model(model, path)
    back = load_model(path)
    assert back.schema == model.schema
    assert back.options == model.options
    assert (back.treegen_version, back.data_fingerprint) == ("0.1.0", "sha256:0123456789abcdef")
    assert len(back.nodes) == len(model.nodes)
    # Plain dataclass equality, then the bits of every float (equality holds 0.0 == -0.0).
    assert back.nodes == model.nodes
    for a, b in zip(model.nodes, back.nodes, strict=True):
        assert type(a) is type(b)
        assert same_bits(a.items, b.items) and same_bits(a.errors, b.errors)
        assert same_bits(a.dist, b.dist)
        if isinstance(a, ContinuousTest):
            assert isinstance(b, ContinuousTest) and same_bits(a.threshold, b.threshold)
    back_test = back.nodes[1]
    assert isinstance(back_test, ContinuousTest) and same_bits(back_test.threshold, threshold)
    assert model_to_json(back) == path.read_text()


def test_text_is_deterministic_and_one_node_per_line() -> None:
    text = model_to_json(hand_built())
    assert text == model_to_json(hand_built())
    assert text.endswith("}\n")
    assert sum(1 for line in text.splitlines() if line.lstrip().startswith('{"id"')) == 8
    assert '"threshold_hex": "0x1.2e00000000000p+6"' in text
    assert '"format": "treegen-model"' in text and '"version": 1,' in text
    assert "temp, °C" in text  # UTF-8, not \u escapes
    json.loads(text)


def edit(text: str, node: int, pattern: str, repl: str) -> str:
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f'{{"id": {node},'))
    new = re.sub(pattern, repl, lines[k], count=1)
    assert new != lines[k], pattern
    lines[k] = new
    return "\n".join(lines)


GOOD = model_to_json(hand_built())

# (edit, expected message fragment) for hand-edited files.
DAMAGE = [
    (lambda t: t.replace('"version": 1', '"version": 2'), "version: format version 2 is newer"),
    (lambda t: t.replace('"treegen-model"', '"other"'), "format: not a treegen model"),
    (
        lambda t: edit(t, 1, r'"threshold": 75.5', '"threshold": 75.6'),
        "nodes[1].threshold: 75.6 does not equal threshold_hex",
    ),
    (
        lambda t: edit(t, 1, r'"threshold": 75.5', '"threshold": 1e999'),
        "nodes[1].threshold: must be a finite number",
    ),
    (lambda t: edit(t, 1, r'"threshold": 75.5', '"threshold": NaN'), "not valid JSON"),
    (
        lambda t: edit(t, 1, r'"threshold_hex": "[^"]*"', '"threshold_hex": "zz"'),
        "nodes[1].threshold_hex: 'zz' is not a hexadecimal float",
    ),
    (
        lambda t: edit(t, 0, r'"children": \[1, 4, 5\]', '"children": [1, 4, 9]'),
        "nodes[0].children[2]: 9 is out of range (0..7)",
    ),
    (
        lambda t: edit(t, 0, r'"children": \[1, 4, 5\]', '"children": [1, 4]'),
        "nodes[0].children: has 2 entries, the test has 3 branches",
    ),
    (
        lambda t: edit(t, 0, r'"children": \[1, 4, 5\]', '"children": [1, 5, 4]'),
        "nodes[0].children[1]: points to node 5, but pre-order needs node 4",
    ),
    (
        lambda t: edit(t, 1, r'"children": \[2, 3\]', '"children": [0, 3]'),
        "nodes[1].children[0]: points to node 0",
    ),
    (
        lambda t: edit(t, 0, r'"dist": \[9.0, 5.0\]', '"dist": [9.0]'),
        "nodes[0].dist: must list 2 class weights",
    ),
    (lambda t: edit(t, 2, r'"cls": 0', '"cls": 2'), "nodes[2].cls: 2 is out of range (0..1)"),
    (lambda t: edit(t, 2, r'"items": 2.0', '"items": -1'), "nodes[2].items: must be a finite"),
    (lambda t: edit(t, 2, r'"items": 2.0', '"items": true'), "nodes[2].items: must be a number"),
    (lambda t: edit(t, 3, r'"id": 3', '"id": 4'), "nodes[3].id: is 4, expected 3"),
    (
        lambda t: edit(t, 1, r'"attribute": 1', '"attribute": 0'),
        "nodes[1].attribute: a continuous test needs a continuous attribute",
    ),
    (
        lambda t: edit(t, 1, r'"attribute": 1', '"attribute": 4'),
        "nodes[1].attribute: 4 is out of range",
    ),
    (
        lambda t: edit(t, 5, r'"subsets": \[\[1\], \[0\]\]', '"subsets": [[1], [1]]'),
        "nodes[5].subsets[1][0]: value 1 is in two subsets",
    ),
    (lambda t: edit(t, 2, r'"kind": "leaf"', '"kind": "tree"'), "nodes[2].kind: must be one of"),
    (lambda t: edit(t, 2, r', "errors": 0.0', ""), "nodes[2].errors: missing"),
    (lambda t: edit(t, 2, r'"cls": 0', '"cls": 0, "note": 1'), "nodes[2].note: unknown field"),
    (
        lambda t: t.replace('"sunny", "overcast"', '"sunny", "sunny"'),
        "attributes[0].values[1]: duplicate value 'sunny'",
    ),
    (
        lambda t: t.replace('["Play", "Don\'t Play"]', '["Play", "Play"]'),
        "classes[1]: duplicate class 'Play'",  # was "duplicate classe"
    ),
    (
        lambda t: t.replace('{"name": "id", "kind": "ignore"}', '{"name": "id", "kind": "text"}'),
        "attributes[2].kind: must be one of",
    ),
    (lambda t: t.replace('["Play", "Don\'t Play"]', "[]"), "classes: must be a non-empty list"),
    (lambda t: t.replace('  "target": "play",\n', ""), "target: missing"),
    (lambda t: "[1, 2]", "must be a JSON object"),
    # The training options are typed: a known key holds its type.
    (lambda t: t.replace('"min_cases": 2', '"min_cases": "2"'), "options.min_cases: must be an in"),
    (lambda t: t.replace('"cf": 0.25', '"cf": true'), "options.cf: must be a number"),
    (lambda t: t.replace('"prune": true', '"prune": 1'), "options.prune: must be true or false"),
    (lambda t: t.replace('"flavor": "c45"', '"flavor": "c46"'), "options.flavor: must be one of"),
    (lambda t: t.replace('"options": {', '"options": {"labels": "text", '), "options.labels:"),
]


@pytest.mark.parametrize("damage,message", DAMAGE)
def test_hand_edited_file_rejected(tmp_path: Path, damage: object, message: str) -> None:
    path = tmp_path / "m.tree"
    path.write_text(damage(GOOD))  # type: ignore[operator]
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    text = str(info.value)
    assert text.startswith(f"{path}:")
    assert message in text
    assert "\n" not in text


def test_field_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "m.tree"
    path.write_text(DAMAGE[2][0](GOOD))  # type: ignore[no-untyped-call]
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    line = next(i for i, s in enumerate(GOOD.splitlines(), 1) if s.lstrip().startswith('{"id": 1,'))
    assert info.value.line == line


@pytest.mark.parametrize("cut", [1, 100, len(GOOD) // 2, len(GOOD) - 3])
def test_truncated_file_rejected_with_line_and_column(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "m.tree"
    path.write_text(GOOD[:cut])
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    err = info.value
    assert "truncated file" in err.message
    assert err.line is not None and err.col is not None
    assert str(err).startswith(f"{path}:{err.line}:{err.col}: ")


def test_empty_missing_and_binary_files(tmp_path: Path) -> None:
    empty = tmp_path / "e.tree"
    empty.write_text("")
    with pytest.raises(ModelFileError, match="empty file"):
        load_model(empty)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "absent.tree")
    binary = tmp_path / "b.tree"
    binary.write_bytes(b"\x89PNG\r\n\xff\xfe")
    with pytest.raises(ModelFileError, match="not UTF-8"):
        load_model(binary)
    # The first byte that is not UTF-8 is named at its line and column, as data's are.
    latin1 = tmp_path / "l.tree"
    latin1.write_bytes('{\n  "classes": ["café"]'.encode("latin-1"))
    with pytest.raises(ModelFileError) as info:
        load_model(latin1)
    assert (info.value.line, info.value.col) == (2, 19)
    assert "byte 0xe9 is not UTF-8" in str(info.value)


def test_a_byte_order_mark_is_not_part_of_the_file(tmp_path: Path) -> None:
    """An editor that saves UTF-8 with a BOM (Windows Notepad) leaves a loadable file,
    as the data readers accept one: the BOM was "not valid JSON: Unexpected UTF-8 BOM
    (decode using utf-8-sig)"."""
    model = hand_built()
    path = tmp_path / "bom.tree"
    path.write_bytes(b"\xef\xbb\xbf" + model_to_json(model).encode())
    assert model_to_json(load_model(path)) == model_to_json(model)


def test_failed_save_leaves_old_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "m.tree"
    save_model(hand_built(), path)
    before = path.read_bytes()
    bad = Model(SCHEMA, hand_built().nodes, ModelOptions(TrainOptions(cf=object())))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        save_model(bad, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.tree"]  # no temporary left behind


def test_loaded_nodes_hold_only_their_kinds_fields() -> None:
    """No "none" marker to compare: two loads of one file are equal node for node."""
    back = model_from_json(GOOD)
    root, leaf = back.nodes[0], back.nodes[2]
    assert isinstance(root, NominalTest) and root.attribute == 0
    assert not hasattr(root, "threshold")
    assert isinstance(leaf, Leaf) and leaf.children == () and not hasattr(leaf, "attribute")
    assert model_from_json(GOOD).nodes == back.nodes


def test_saved_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    import os

    path = tmp_path / "m.tree"
    mask = os.umask(0o022)
    try:
        save_model(hand_built(), path)
    finally:
        os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
    path.chmod(0o640)
    save_model(hand_built(), path)
    assert path.stat().st_mode & 0o777 == 0o640  # replacing keeps the old mode


@settings(max_examples=300, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.floats(min_value=0, max_value=1e300), min_size=2, max_size=2),
)
def test_any_finite_threshold_and_weights_round_trip(threshold: float, dist: list[float]) -> None:
    base = hand_built(threshold, "j48")  # j48 thresholds are any double
    nodes = list(base.nodes)
    nodes[2] = Leaf(0, sum(dist), dist[1], tuple(dist))
    model = Model(base.schema, tuple(nodes), base.options)
    back = model_from_json(model_to_json(model))
    assert same_bits(back.nodes[1].threshold, threshold)
    assert same_bits(back.nodes[2].dist, dist)
    assert same_bits(back.nodes[2].items, sum(dist))


def _at(text: str, line: int, col: int) -> str:
    return text.splitlines()[line - 1][col - 1]


@pytest.mark.parametrize(
    "make",
    [
        lambda: "[" * 5000,  # not even an object
        lambda: "[" * 5000 + "]" * 5000,  # well-formed, too deep to parse
        lambda: GOOD.replace('"options": {', '"options": {"x": ' + "[" * 3000 + "]" * 3000 + ", "),
        # parseable, but nested deeper than anything treegen writes: refused all the same
        lambda: GOOD.replace(
            '"options": {', '"options": {"x": ' + '[{"a": ' * 300 + "1" + "}]" * 300 + ", "
        ),
    ],
    ids=["open", "closed", "options-3000", "options-600"],
)
def test_deeply_nested_json_is_a_model_file_error(tmp_path: Path, make: object) -> None:
    text = make()  # type: ignore[operator]
    path = tmp_path / "deep.tree"
    path.write_text(text)
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    err = info.value
    assert "nested more than" in err.message and "\n" not in str(err)
    assert err.file == str(path) and err.line is not None and err.col is not None
    assert _at(text, err.line, err.col) in "[{"
    assert str(err).startswith(f"{path}:{err.line}:{err.col}: ")


@pytest.mark.slow
def test_deep_chain_tree_saves_loads_shows_and_exports(tmp_path: Path) -> None:
    """A legitimately deep tree (2,000 levels) goes through every stage without recursion."""
    from treegen.codegen.emit import emit
    from treegen.codegen.lower import lower
    from treegen.codegen.options import ExportOptions
    from treegen.model.classify import predict
    from treegen.model.show import format_tree

    model = cm.chain(2000)
    assert model.depth() == 2000
    path = tmp_path / "chain.tree"
    save_model(model, path)
    back = load_model(path)
    assert back == model
    c45 = format_tree(back, "c45")
    assert c45.count("x <= ") > 100 and "[S1]" in c45
    j48 = format_tree(back, "j48")
    assert j48.count("x <= ") == 2000
    for style in ("ifs", "table"):
        files = emit(lower(back, ExportOptions(prefix="chain")), style)
        assert "chain_predict" in files["predict.c"]
    x = np.array([[0.0, 0.0], [1.0, 0.0], [1999.0, 0.0], [5000.0, 0.0]])
    assert predict(back, x).tolist() == [0, 1, 1, 0]


def _with_options(options: str) -> str:
    """GOOD with its ``"options"`` line replaced."""
    return re.sub(r'(?m)^  "options": .*,$', f'  "options": {options},', GOOD, count=1)


def test_options_as_written_load_and_save_again_unchanged() -> None:
    """Every options object treegen writes reads back as the record it came from and is
    written again byte for byte; a record's fields are typed (no dict lookups)."""
    for options in (
        TrainOptions(),
        TrainOptions(prune=False, subsets=True, criterion="gain", flavor="j48"),
        TrainOptions(max_depth=3, min_gain_ratio=0.05),
        TrainOptions(pruning="reduced-error", folds=5, seed=7),
    ):
        # (bytes: a type its classes, text, can name; "int" over them is refused)
        for labels, validation in (("str", None), ("bytes", None), ("str", "sha256:ab")):
            record = ModelOptions.of(options, labels, validation)
            model = Model(SCHEMA, hand_built().nodes, record, "0.1.0", "sha256:0")
            text = model_to_json(model)
            back = model_from_json(text)
            assert back.options == record and model_to_json(back) == text
            assert back.options.training.min_cases == options.min_cases
            assert back.options.labels == labels and back.options.validation == validation
    recorded = ModelOptions.of(TrainOptions(pruning="reduced-error"), "bool", "sha256:ab")
    assert list(recorded.as_dict()) == [
        *("min_cases", "cf", "prune", "subsets", "criterion", "flavor", "pruning"),
        *("validation", "labels"),
    ]


def test_a_model_recording_subsets_with_j48_still_loads_and_predicts(tmp_path: Path) -> None:
    """Training refuses --subsets with --flavor j48 (model.options.refuse_subsets_with),
    but a model file that records the pair, written before that rule, is still a
    model: it loads, saves again unchanged and predicts, its subset test included."""
    nodes = hand_built(flavor="j48").nodes
    record = ModelOptions.of(TrainOptions(subsets=True, flavor="j48"))
    path = tmp_path / "pair.tree"
    save_model(Model(SCHEMA, nodes, record, "0.1.0", "sha256:0"), path)
    back = load_model(path)
    assert back.options.training.subsets and back.options.flavor == "j48"
    assert model_to_json(back) == path.read_text()
    nan = float("nan")
    x = np.asarray(
        [
            [0.0, 70.0, 0.0, 0.0],  # sunny, cool: leaf 2
            [0.0, 80.0, 0.0, 0.0],  # sunny, warm: leaf 3
            [2.0, 70.0, 0.0, 0.0],  # rain, windy: the subset test's second group, leaf 7
            [2.0, 70.0, 0.0, 1.0],  # rain, calm: its first group, leaf 6
            [2.0, 70.0, 0.0, nan],  # rain, windy unknown: both groups, by weight
        ]
    )
    proba = predict_proba(back, x)
    for row, leaf in enumerate((2, 3, 7, 6)):  # j48: a leaf answers its distribution
        dist = np.asarray(nodes[leaf].dist)
        assert proba[row].tolist() == (dist / dist.sum()).tolist()
    assert proba[4, 0] == pytest.approx((4 * 1.0 + 3 * (2 / 3)) / 7)  # leaves 6 and 7
    assert predict(back, x).tolist() == [0, 1, 0, 0, 0]


def test_options_recorded_in_part_or_not_at_all_take_the_defaults() -> None:
    """A hand-written file may record some options or none; the rest are the defaults,
    and keys this treegen does not know are ignored (a later treegen may add some)."""
    some = model_from_json(_with_options('{"flavor": "j48", "later": [1, {"x": 2}]}'))
    assert some.options.train == TrainOptions(flavor="j48") and some.compares_float32 is False
    none = model_from_json(_with_options("{}"))
    assert none.options == ModelOptions() and none.options.train is None
    assert none.options.training == TrainOptions() and none.compares_float32 is True
    assert '"options": {},' in model_to_json(none)


def test_every_training_option_is_read_back_typed() -> None:
    """The reader checks every field of TrainOptions (a new option needs its check)."""
    import dataclasses

    from treegen.model import options as mo

    checked = {*mo._INTS, *mo._FLOATS, *mo._BOOLS, *mo._CHOICES}
    assert checked == {f.name for f in dataclasses.fields(TrainOptions)}
