"""``treegen verify``: the report, exit 0 on parity, exit 1 with the first mismatches
shown when the C differs, exit 2 for bad input."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from treegen.codegen import verify as verify_mod
from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import run_cli
from support.modes import EXPORT_MODES, cli_args

pytestmark = pytest.mark.skipif(
    not __import__("shutil").which("gcc"), reason="gcc is not installed"
)


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path



@pytest.mark.parametrize("opts", [
    cli_args(EXPORT_MODES["float"]),
    cli_args(EXPORT_MODES["keys"], style="table"),
    cli_args({**EXPORT_MODES["int16"], "scale": Fraction(10)}),
    cli_args(EXPORT_MODES["uint8"]),
])
def test_verify_passes_on_golf(golf_tree: Path, reference_dir: Path, opts: list[str],
                               capsys: pytest.CaptureFixture[str]) -> None:
    data = reference_dir / "golf" / "golf.data"
    code, out, _ = run_cli(capsys, "verify", str(golf_tree), str(data), *opts, "--random", "200")
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
    code, out, _ = run_cli(capsys, "verify", str(golf_tree), "--random", "50")
    assert code == 1
    assert "first mismatches" in out and "humidity" not in out.splitlines()[-1]
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", out.strip().splitlines()[-1])
    assert m and int(m.group(2)) > 0
    assert "75.00000762939453" in out or "76.0" in out  # the neighbour above 75 is shown


def test_verify_bad_compiler_is_exit_2(golf_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--cc", "/nonexistent/cc")
    assert code == 2 and "--cc" in err and len(err.strip().splitlines()) == 1


def test_verify_bad_option_is_exit_2(golf_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        capsys, "verify", str(golf_tree), "--input-type", "int8", "--scale", "1000"
    )
    assert code == 2 and "--scale" in err and len(err.strip().splitlines()) == 1
