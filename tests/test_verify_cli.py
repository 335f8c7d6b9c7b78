"""``treegen verify``: the report, exit 0 on parity, exit 1 with the first mismatches
shown when the C differs, exit 2 for bad input."""

from __future__ import annotations

import re
from pathlib import Path

import codegen_models as cm
import pytest

from treegen.cli import main
from treegen.codegen import verify as verify_mod
from treegen.modelfile import save_model

pytestmark = pytest.mark.skipif(not __import__("shutil").which("gcc"), reason="gcc is not installed")


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("opts", [[], ["--style", "table", "--float-compare", "int"],
                                  ["--input-type", "int16", "--scale", "10"],
                                  ["--input-type", "uint8", "--missing-value", "255"]])
def test_verify_passes_on_golf(golf_tree: Path, reference_dir: Path, opts: list[str],
                               capsys: pytest.CaptureFixture[str]) -> None:
    data = reference_dir / "golf" / "golf.data"
    code, out, _ = run(["verify", str(golf_tree), str(data), *opts, "--random", "200"], capsys)
    assert code == 0, out
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"(\d+) passed, 0 failed", last)
    assert m and int(m.group(1)) > 14 + 200
    assert "14 data rows" in out
    assert "C vs fixed-point Python model" in out and "C vs IR evaluator" in out


def test_verify_reports_mismatches(golf_tree: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    real_emit = verify_mod.emit

    def broken(ir, style):  # type: ignore[no-untyped-def]
        files = dict(real_emit(ir, style))
        files["predict.c"] = files["predict.c"].replace("<= 75.0f", "<= 76.0f")
        return files

    monkeypatch.setattr(verify_mod, "emit", broken)
    code, out, _ = run(["verify", str(golf_tree), "--random", "50"], capsys)
    assert code == 1
    assert "first mismatches" in out and "humidity" not in out.splitlines()[-1]
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", out.strip().splitlines()[-1])
    assert m and int(m.group(2)) > 0
    assert "75.00000762939453" in out or "76.0" in out  # the neighbour above 75 is shown


def test_verify_bad_compiler_is_exit_2(golf_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["verify", str(golf_tree), "--cc", "/nonexistent/cc"], capsys)
    assert code == 2 and "--cc" in err and len(err.strip().splitlines()) == 1


def test_verify_bad_option_is_exit_2(golf_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["verify", str(golf_tree), "--input-type", "int8", "--scale", "1000"],
                       capsys)
    assert code == 2 and "--scale" in err and len(err.strip().splitlines()) == 1


def _decimal_j48(tmp_path: Path) -> tuple[Path, Path]:
    """J48's tree for a = 0.1, 0.2, 0.3 -> x and 0.4, 0.5, 0.6 -> y (-m 1): one test
    a <= 0.3, whose double lies below 3/10."""
    from treegen.dataset import Attribute, Schema
    from treegen.model import Model, Node

    schema = Schema((Attribute("a", "continuous"),), ("x", "y"), "class")
    nodes = (Node("continuous", 0, 6.0, 0.0, (3.0, 3.0), attribute=0, threshold=0.3,
                  children=(1, 2)),
             Node("leaf", 0, 3.0, 0.0, (3.0, 0.0)), Node("leaf", 1, 3.0, 0.0, (0.0, 3.0)))
    tree = tmp_path / "d.tree"
    save_model(Model(schema, nodes, {"flavor": "j48"}), tree)
    data = tmp_path / "d.csv"
    data.write_text("a,class\n0.1,x\n0.2,x\n0.3,x\n0.4,y\n0.5,y\n0.6,y\n")
    return tree, data


@pytest.mark.parametrize("itype", ["int16", "uint32"])
def test_verify_compares_scaled_inputs_with_the_float_classifier(
        tmp_path: Path, itype: str, capsys: pytest.CaptureFixture[str]) -> None:
    tree, data = _decimal_j48(tmp_path)
    code, out, _ = run(["verify", str(tree), str(data), "--input-type", itype,
                        "--scale", "10", "--random", "100"], capsys)
    assert code == 0, out
    m = re.search(r"C vs float classifier \(rows without missing values\): (\d+) rows, "
                  r"classes identical", out)
    assert m and int(m.group(1)) >= 6  # the data rows at least


def test_verify_catches_a_scaled_rule_its_fixed_point_model_shares(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The old rule (the exact x/K, cut floor(t * K) = 2) in both the lowering and the
    # fixed-point model: only the float classifier can see that x = 3 ("0.3") is wrong.
    from treegen.codegen import fixedpoint

    monkeypatch.setattr(fixedpoint, "read_bound", fixedpoint.model_bound)
    tree, data = _decimal_j48(tmp_path)
    code, out, _ = run(["verify", str(tree), str(data), "--input-type", "int16",
                        "--scale", "10", "--random", "50"], capsys)
    assert code == 1, out
    assert "C vs fixed-point Python model" in out and "classes and probabilities identical" in out
    assert re.search(r"row \d+ \[3\]: float classifier .*: class C 1 vs 0", out), out
