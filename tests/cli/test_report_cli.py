"""treegen show --format dot, treegen plot (Graphviz) and treegen info."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import treegen
from treegen.analysis.report import model_report
from treegen.codegen.flash import TARGETS, estimate_flash
from treegen.model.picture import edge_label, node_label

from support.cli import run_cli, run_process

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("models")
    paths = {}
    for name, stem in (("golf", "golf/golf"), ("crx", "crx/crx")):
        paths[name] = out / f"{name}.tree"
        treegen.train(REF / f"{stem}.names").save(paths[name])
    return paths


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


def test_show_dot_has_one_box_per_node_and_labelled_edges(
    models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["show", str(models["golf"]), "--format", "dot"], capsys)
    model = treegen.load(models["golf"])
    assert code == 0 and out.startswith("digraph tree {") and out.endswith("}\n")
    boxes = re.findall(r"^  n(\d+) \[label=", out, re.M)
    edges = re.findall(r"^  n(\d+) -> n(\d+) \[label=\"([^\"]*)\"\];", out, re.M)
    assert [int(b) for b in boxes] == list(range(model.size))
    assert len(edges) == model.size - 1
    assert ("0", "1", "= sunny") in edges and ("1", "2", "<= 75") in edges
    assert 'n0 [label="outlook\\n[Play: 9, Don\'t Play: 5]\\n(14.0/5.4)"];' in out
    # Leaves are filled by class, test nodes are not.
    leaf_fills = re.findall(r'label="(Play|Don\'t Play)\\n.*fillcolor="(#[0-9a-f]+)"', out)
    assert {cls: fill for cls, fill in leaf_fills} == {"Play": "#a6cee3", "Don't Play": "#b2df8a"}
    assert len(leaf_fills) == model.n_leaves


def _svg_nodes(path: Path) -> tuple[dict[str, str], list[str]]:
    root = ET.parse(path).getroot()
    nodes, edges = {}, []
    for g in root.iter(f"{SVG}g"):
        title = g.find(f"{SVG}title")
        text = " | ".join(t.text or "" for t in g.iter(f"{SVG}text"))
        if g.get("class") == "node":
            nodes[title.text] = text
        elif g.get("class") == "edge":
            edges.append(text)
    return nodes, edges


@needs_dot
@pytest.mark.parametrize("name", ["golf", "crx"])
def test_plot_svg_draws_every_node_with_its_labels(
    name: str, models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tree.svg"
    assert _run(["plot", str(models[name]), "-o", str(out)], capsys)[0] == 0
    model = treegen.load(models[name])
    assert name != "crx" or model.size >= 50  # the big picture is a real one
    nodes, edges = _svg_nodes(out)
    assert sorted(nodes) == sorted(f"n{i}" for i in range(model.size))
    for i, node in enumerate(model.nodes):
        assert nodes[f"n{i}"] == " | ".join(node_label(model, node).split("\n"))
    expected = sorted(edge_label(model, n, b) for n in model.nodes for b in range(len(n.children)))
    assert sorted(edges) == expected


@needs_dot
def test_plot_png_is_a_png(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tree.png"
    assert _run(["plot", str(models["golf"]), "-o", str(out)], capsys)[0] == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_plot_without_dot_names_the_debian_package(models: dict[str, Path], tmp_path: Path) -> None:
    p = run_process(
        "plot", str(models["golf"]), "-o", str(tmp_path / "t.svg"), env={"PATH": str(tmp_path)}
    )
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == (
        "treegen: error: plot: Graphviz's 'dot' is not installed "
        "(Debian: apt-get install graphviz)\n"
    )
    assert not list(tmp_path.glob("*.svg"))


@pytest.mark.parametrize(
    ("dot", "message"),
    [
        # A --dot that does not exist is the option's, not "dot is not installed".
        ("{tmp}/no-such-dot", "--dot: '{tmp}/no-such-dot' is not a program that can be run"),
        ("false", "--dot: false failed (exit 1): no message"),
        # A --dot program that succeeds without output left no picture, exit 0.
        ("true", "--dot: true wrote no picture"),
    ],
)
def test_plot_names_a_dot_program_that_fails(
    models: dict[str, Path], tmp_path: Path, dot: str, message: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    dot, message = dot.format(tmp=tmp_path), message.format(tmp=tmp_path)
    p = run_process("plot", str(models["golf"]), "-o", str(out / "t.svg"), "--dot", dot)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", f"treegen: error: {message}\n")
    assert list(out.iterdir()) == []


def test_plot_through_a_symbolic_link_replaces_the_file_it_names(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real.svg").write_text("old")
    (tmp_path / "link.svg").symlink_to("real.svg")
    assert _run(["plot", str(models["golf"]), "-o", str(tmp_path / "link.svg")], capsys)[0] == 0
    assert (tmp_path / "link.svg").is_symlink()
    assert (tmp_path / "real.svg").read_text().lstrip().startswith("<?xml")


def test_plot_refuses_an_unknown_extension(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["plot", str(models["golf"]), "-o", str(tmp_path / "t.gif")], capsys)
    assert code == 2 and "cannot tell the picture format" in err


def test_info_reports_tests_depths_options_and_flash(
    models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["info", str(models["golf"])], capsys)
    model = treegen.load(models["golf"])
    assert code == 0
    assert out.startswith("nodes 8, leaves 5, depth 2\n")
    assert re.search(r"^  outlook\s+1  \(nominal, 3 values\)$", out, re.M)
    assert re.search(r"^  temperature\s+0  \(continuous\)$", out, re.M)
    assert re.search(r"^\s+1\s+1  #+$", out, re.M) and re.search(r"^\s+2\s+4  #+$", out, re.M)
    assert f"data fingerprint: {model.data_fingerprint}" in out
    assert "cf=0.25" in out and "flavor=c45" in out
    for target, size in estimate_flash(model).items():
        assert f"  {target}: ~{size} bytes" in out


def test_report_counts_match_the_model(models: dict[str, Path]) -> None:
    model = treegen.load(models["crx"])
    report = model_report(model)
    assert sum(report.tests.values()) == model.size - model.n_leaves
    assert sum(report.leaves_at_depth.values()) == model.n_leaves
    assert max(report.leaves_at_depth) == model.depth()


def test_flash_grows_with_the_input_width(models: dict[str, Path]) -> None:
    model = treegen.load(models["crx"])
    continuous = sum(n.kind == "continuous" for n in model.nodes)
    f, d, i8 = (estimate_flash(model, t) for t in ("float", "double", "int8"))
    for t in TARGETS:
        assert d[t.target] - f[t.target] == 4 * continuous
        assert f[t.target] - i8[t.target] == 3 * continuous


@pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="avr-gcc not installed")
def test_flash_estimate_is_near_the_compiled_avr_size(
    models: dict[str, Path], tmp_path: Path
) -> None:
    # An estimate, so a band; documented as within 8% on the trees it was fitted to.
    model = treegen.load(models["crx"])
    model.export_c(tmp_path, style="table")
    obj = tmp_path / "p.o"
    subprocess.run(
        [
            "avr-gcc",
            "-mmcu=atmega328p",
            "-Os",
            "-std=c99",
            "-c",
            str(tmp_path / "predict.c"),
            "-o",
            str(obj),
        ],
        check=True,
    )
    size = subprocess.run(["avr-size", str(obj)], check=True, capture_output=True, text=True)
    text, data = (int(v) for v in size.stdout.splitlines()[1].split()[:2])
    estimate = estimate_flash(model)[TARGETS[0].target]
    assert abs(estimate - (text + data)) <= 0.08 * (text + data)


def test_info_names_an_ignored_attribute_and_a_single_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An --ignore'd column holds no values: info says 'ignored', not 'nominal, 0 values';
    a nominal column of one value is '1 value'."""
    data = tmp_path / "d.csv"
    data.write_text("a,b,c,class\n1,x,u,p\n2,y,u,q\n3,x,u,p\n4,y,u,q\n")
    model = tmp_path / "m.tree"
    code, _, _ = _run(["--quiet", "train", str(data), "--ignore", "a", "-o", str(model)], capsys)
    assert code == 0
    code, out, _ = _run(["info", str(model)], capsys)
    assert code == 0
    assert re.search(r"^  a\s+0  \(ignored\)$", out, re.M)
    assert re.search(r"^  b\s+\d+  \(nominal, 2 values\)$", out, re.M)
    assert re.search(r"^  c\s+0  \(nominal, 1 value\)$", out, re.M)


@needs_dot
def test_plot_names_a_file_where_its_folder_should_be(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """plot said "folder 'afile' does not exist" of a file; now the words of every other
    output (data/atomic.check_folder), before dot runs."""
    (tmp_path / "afile").write_text("a file\n")
    for folder, what in (("afile", "is not a folder"), ("nodir", "does not exist")):
        out = tmp_path / folder / "t.svg"
        code, _, err = _run(["plot", str(models["golf"]), "-o", str(out)], capsys)
        assert code == 2
        assert err == f"treegen: error: {out}: output folder {what} ({tmp_path / folder})\n"
