"""``treegen plot`` of a large tree stays readable.

Top-down, credit-g's unpruned tree rendered thousands of points wide and about a
twentieth as high.  The property, over trees of many shapes (credit-g trained four
ways, and generated data from wide and shallow to deep and narrow): the rendered
picture (SVG and PNG, its size read from the file) is either no wider than
``WIDE`` or at most twice as wide as high, and still draws every node.  ``--max-depth
N`` draws exactly the nodes down to depth N, each test at depth N saying what was cut.
"""

from __future__ import annotations

import re
import shutil
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.errors import UsageError
from treegen.model.core import Leaf, Model
from treegen.model.file import save_model
from treegen.model.picture import cut_note, depths, dot_option, format_dot, render, run_dot
from treegen.model.picture_layout import MAX_RATIO, WIDE, measure, readable_dot
from treegen.trainer import TrainOptions, train

from support.cli import run_cli

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")

CREDIT = Path(__file__).resolve().parents[1] / "data" / "weka" / "credit-g.arff"
SVG = "{http://www.w3.org/2000/svg}"
# Rendered pictures add a margin of a few points on each side.
MARGIN = 16.0


def _credit(**options: object) -> Model:
    ds = read_dataset(str(CREDIT), float32=options.get("flavor", "c45") == "c45")
    return train(ds, TrainOptions(**options))  # type: ignore[arg-type]


def _generated(seed: int, **spec: object) -> Model:
    base = dict(rows=600, n_continuous=3, n_nominal=3, n_classes=4, missing=0.0, noise=0.3, depth=8)
    ds = synthetic.generate(synthetic.Spec(**{**base, **spec, "seed": seed}))  # type: ignore[arg-type]
    return train(ds, TrainOptions(prune=False, min_cases=1))


def _chain() -> Model:
    """A deep, narrow tree: class k on the 2**k values from 2**k - 1 on, so that each
    test splits the largest class off the rest."""
    x = np.arange(4095, dtype=np.float64)
    y = np.floor(np.log2(x + 1)).astype(np.int32)
    schema = Schema((Attribute("x", "continuous"),), tuple(f"k{i}" for i in range(12)))
    return train(Dataset(schema, x[:, None], y), TrainOptions(prune=False))


SHAPES = {
    "credit-g": lambda: _credit(),
    "credit-g unpruned": lambda: _credit(prune=False),
    "credit-g subsets": lambda: _credit(subsets=True),
    "credit-g j48 unpruned": lambda: _credit(flavor="j48", prune=False),
    "wide nominal": lambda: _generated(1, n_continuous=0, n_nominal=6, max_values=8, depth=3),
    "deep continuous": lambda: _generated(
        5, n_continuous=6, n_nominal=0, n_classes=3, noise=0.0, depth=12, rows=1500
    ),
    "chain": _chain,
    "many classes": lambda: _generated(3, n_classes=9, rows=900),
    "small": lambda: _generated(4, rows=40, noise=0.0, depth=2),
}


def _svg_size(path: Path) -> tuple[float, float]:
    root = ET.parse(path).getroot()
    return (
        float(root.get("width", "").removesuffix("pt")),
        float(root.get("height", "").removesuffix("pt")),
    )


def _png_size(path: Path) -> tuple[float, float]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width * 0.75, height * 0.75  # Graphviz renders PNG at 96 dpi: px -> pt


def _svg_nodes(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return sorted(
        (g.find(f"{SVG}title").text or "")  # type: ignore[union-attr]
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "node"
    )


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Model, Path]]:
    out = tmp_path_factory.mktemp("shapes")
    models = {}
    for name, make in SHAPES.items():
        model = make()
        path = out / f"{name.replace(' ', '_')}.tree"
        save_model(model, path)
        models[name] = (model, path)
    return models


@pytest.mark.slow
def test_the_top_down_pictures_were_unreadable(shapes: dict[str, tuple[Model, Path]]) -> None:
    """The property below is not vacuous: most shapes drawn top-down are far wider than
    WIDE and than twice their height (credit-g unpruned: more than ten times)."""
    dot = shutil.which("dot")
    assert dot is not None
    ratios = {}
    for name, (model, _) in shapes.items():
        size = measure(dot, format_dot(model))
        assert size is not None
        ratios[name] = size[0] / size[1] if size[0] > WIDE else 0.0
    assert ratios["credit-g unpruned"] > 10
    assert sum(r > MAX_RATIO for r in ratios.values()) >= 5, ratios


# PNG renders take seconds for the large pictures: the shapes whose layouts differ
# (left to right, stretched, top-down) stand for the rest.
CASES = [(name, "svg") for name in SHAPES] + [
    (name, "png") for name in ("credit-g unpruned", "credit-g subsets", "small")
]


@pytest.mark.slow
@pytest.mark.parametrize("name,fmt", CASES)
def test_a_large_picture_is_at_most_twice_as_wide_as_high(
    name: str,
    fmt: str,
    shapes: dict[str, tuple[Model, Path]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, path = shapes[name]
    out = tmp_path / f"tree.{fmt}"
    assert run_cli(capsys, "plot", str(path), "-o", str(out)) == (0, "", "")
    width, height = _svg_size(out) if fmt == "svg" else _png_size(out)
    assert width <= WIDE + MARGIN or width <= MAX_RATIO * height, (width, height)
    if fmt == "svg":
        assert _svg_nodes(out) == sorted(f"n{i}" for i in range(model.size))


def _subtree(model: Model, i: int) -> tuple[int, int, int]:
    """Tests and leaves strictly below node ``i`` and its height, by recursion (the
    picture module counts without it)."""
    tests = leaves = height = 0
    for c in model.nodes[i].children:
        t, f, h = _subtree(model, c)
        child = model.nodes[c]
        tests += t + (not isinstance(child, Leaf))
        leaves += f + isinstance(child, Leaf)
        height = max(height, h + 1)
    return tests, leaves, height


def test_max_depth_draws_the_top_and_notes_every_cut(
    shapes: dict[str, tuple[Model, Path]],
) -> None:
    """For every shape and every depth: the boxes are the nodes down to depth N, the
    edges those between them, and the dashed boxes exactly the tests at depth N, each
    with the tests, leaves and levels below it."""
    checked = 0
    for model, _ in shapes.values():
        depth = depths(model)
        for n in range(model.depth() + 1):
            text = format_dot(model, max_depth=n)
            boxes = {int(i) for i in re.findall(r"^  n(\d+) \[label=", text, re.M)}
            assert boxes == {i for i, d in enumerate(depth) if d <= n}
            edges = re.findall(r"^  n(\d+) -> n(\d+) ", text, re.M)
            assert len(edges) == len(boxes) - 1
            cut = {
                int(i)
                for i in re.findall(r'^  n(\d+) \[.*style="rounded,filled,dashed"', text, re.M)
            }
            assert cut == {
                i for i in boxes if depth[i] == n and not isinstance(model.nodes[i], Leaf)
            }
            for i in cut:
                note = cut_note(*_subtree(model, i))
                assert (
                    f'n{i} [label="' in text
                    and f'\\n{note}"' in text.split(f"  n{i} [label=")[1].split("\n")[0]
                )
            checked += len(cut)
    assert checked > 50
    assert cut_note(1, 1, 1) == "cut: 1 test, 1 leaf in 1 level below"
    assert cut_note(3, 5, 2) == "cut: 3 tests, 5 leaves in 2 levels below"


def test_plot_max_depth_renders_the_top(
    shapes: dict[str, tuple[Model, Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, path = shapes["credit-g unpruned"]
    out = tmp_path / "top.svg"
    assert run_cli(capsys, "plot", str(path), "-o", str(out), "--max-depth", "2")[0] == 0
    depth = depths(model)
    assert _svg_nodes(out) == sorted(f"n{i}" for i, d in enumerate(depth) if d <= 2)
    text = out.read_text()
    assert text.count("cut: ") == sum(
        1 for i, d in enumerate(depth) if d == 2 and not isinstance(model.nodes[i], Leaf)
    )
    code, _, err = run_cli(capsys, "plot", str(path), "-o", str(out), "--max-depth", "-1")
    assert code == 2 and "--max-depth: -1 must be at least 0" in err


def test_a_small_picture_keeps_the_top_down_layout(
    shapes: dict[str, tuple[Model, Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, path = shapes["small"]
    out = tmp_path / "small.svg"
    assert run_cli(capsys, "plot", str(path), "-o", str(out))[0] == 0
    dot = shutil.which("dot")
    assert dot is not None
    assert out.read_bytes() == run_dot(dot, "svg", format_dot(model))


@pytest.mark.parametrize(
    ("dot", "message"), [("false", "false failed (exit 1)"), ("true", "true wrote no picture")]
)
def test_a_given_program_s_failure_names_dot_where_it_is_raised(
    dot: str, message: str, tmp_path: Path
) -> None:
    """The user's Graphviz program (plot --dot; render's dot) failing is --dot's error
    from the layout and the rendering themselves (the CLI renamed "plot" afterwards)."""
    out = tmp_path / "t.svg"
    text = format_dot(_chain())
    with pytest.raises(UsageError) as info:
        render(readable_dot(lambda graph: text, dot, dot_option(dot)), out, "svg", dot=dot)
    assert info.value.option == "--dot" and info.value.message.startswith(message)
    with pytest.raises(UsageError) as info:
        render(text, out, "svg", dot=dot)
    assert info.value.option == "--dot" and info.value.message.startswith(message)
    assert dot_option(None) == "plot" and not out.exists()
