"""An AVR build too large for the chip is refused in one treegen line.

avr-gcc accepts no object above 32,767 bytes and says only "size of array is too
large".  The generated predict.c carries an ``#error`` under ``__AVR__`` naming the
table, its size, the limit and the options that shrink it; ``export --on avr``,
``verify --on avr`` and ``export --report`` say the same before any compiler runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from treegen.codegen.avr import AVR_MAX_OBJECT, Table, ensemble_avr_message, tables, too_large
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Schema
from treegen.model.core import Leaf, Model, NominalTest
from treegen.model.file import save_model
from treegen.model.options import ModelOptions, TrainOptions

from support import codegen_models as cm
from support.cli import run_cli

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
N_VALUES, N_CLASSES = 250, 70  # distributions: 250 x 70 x 2 = 35,000 bytes


def big_proba() -> Model:
    """A nominal root with 250 leaves over 70 classes, every distribution its own."""
    schema = Schema(
        (Attribute("v", "nominal", tuple(f"v{i}" for i in range(N_VALUES))),),
        tuple(f"k{c}" for c in range(N_CLASSES)),
        "class",
    )
    leaves = [
        Leaf(
            i % N_CLASSES,
            float(N_CLASSES + i),
            0.0,
            tuple(1.0 + (i if c == i % N_CLASSES else 0) for c in range(N_CLASSES)),
        )
        for i in range(N_VALUES)
    ]
    total = tuple(sum(n.dist[c] for n in leaves) for c in range(N_CLASSES))
    root = NominalTest(
        0, sum(total), 0.0, total, attribute=0, children=tuple(range(1, N_VALUES + 1))
    )
    return Model(schema, (root, *leaves), ModelOptions(TrainOptions(flavor="c45")))


def test_tables_of_a_golden_file() -> None:
    sizes = {
        t.name: t.size for t in tables((GOLDEN / "golf-table-uint8" / "predict.c").read_text())
    }
    assert sizes["golf_share"] == 7 * 4  # seven uint32_t shares
    assert sizes["golf_proba"] == 2 * 2 * 2  # [2][2] uint16_t
    assert sizes["golf_class"] == 2


@pytest.mark.parametrize("style", ["ifs", "table"])
def test_predict_c_says_it_does_not_fit(style: str, tmp_path: Path) -> None:
    ir = lower(big_proba(), ExportOptions(prefix="m", style=style))
    files = emit(ir, style)
    big = too_large(files["predict.c"])
    assert big is not None and big.name == "m_proba" and big.size == 35_000 > AVR_MAX_OBJECT
    line = next(x for x in files["predict.c"].splitlines() if x.startswith('#error "treegen'))
    assert line.startswith(
        '#error "treegen: the table m_proba takes 35,000 bytes, above the 32,767'
    )
    assert "--missing none --no-proba" in line and "an integer --input-type" in line
    assert files["predict.c"].index("#if defined(__AVR__)\n#error") < files["predict.c"].index(
        "m_proba["
    )
    # Elsewhere the file compiles as before; without the distributions it fits an AVR.
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    subprocess.run(
        ["gcc", "-c", str(tmp_path / "predict.c"), "-o", str(tmp_path / "p.o")], check=True
    )
    lean = emit(lower(big_proba(), ExportOptions(prefix="m", style=style, missing="none")), style)
    assert too_large(lean["predict.c"]) is None and '#error "treegen' not in lean["predict.c"]
    small = emit(lower(cm.golf(), ExportOptions(prefix="g", style=style)), style)["predict.c"]
    assert '#error "treegen' not in small


@pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="avr-gcc not installed")
def test_avr_gcc_stops_with_the_treegen_line(tmp_path: Path) -> None:
    files = emit(lower(big_proba(), ExportOptions(prefix="m", style="table")), "table")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = subprocess.run(
        [
            "avr-gcc",
            "-mmcu=atmega328p",
            "-Os",
            "-c",
            str(tmp_path / "predict.c"),
            "-o",
            "/dev/null",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode != 0
    # gcc goes on after an #error: ours is the first error, avr-gcc's own follows.
    first = next(line for line in r.stderr.splitlines() if "error" in line)
    assert "treegen: the table m_proba takes 35,000 bytes" in first, r.stderr


def test_cli_refuses_on_avr_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.tree"
    save_model(big_proba(), path)
    out = tmp_path / "c"
    for argv in (
        ["export", str(path), "-o", str(out), "--on", "avr"],
        ["verify", str(path), "--on", "avr"],
    ):
        code, stdout, err = run_cli(capsys, *argv)
        assert code == 2 and stdout == "", err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith(
            "treegen: error: --on avr: the table big_proba takes 35,000 bytes, above the 32,767"
        ), lines[0]
        assert "--missing none (no share tables)" in lines[0]
    assert not out.exists()
    # With the options it names, the export fits.
    code, _, err = run_cli(
        capsys, "export", str(path), "-o", str(out), "--missing", "none", "--no-proba"
    )
    assert code == 0, err
    assert too_large((out / "predict.c").read_text()) is None


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="avr-gcc not installed")
def test_report_row_says_too_large(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.tree"
    save_model(big_proba(), path)
    code, stdout, err = run_cli(capsys, "export", str(path), "-o", str(tmp_path / "c"), "--report")
    assert code == 0, err
    row = next(line for line in stdout.splitlines() if "(avr-gcc)" in line)
    assert "too large: the table big_proba takes 35,000 bytes" in row, row


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="avr-gcc not installed")
def test_report_says_when_predict_o_outgrows_the_chip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No table too large, but the ifs C of a 1,070-node tree is more than the
    # ATmega328P's 32 KiB of flash: the report printed its size like any other.
    path = tmp_path / "wide.tree"
    save_model(cm.synthetic(3, size=3000), path)
    code, stdout, err = run_cli(capsys, "export", str(path), "-o", str(tmp_path / "c"), "--report")
    assert code == 0, err
    row = next(line for line in stdout.splitlines() if "(avr-gcc)" in line)
    flash = int(row.split(")", 1)[1].split()[0])
    assert flash > 32768, row
    notes = [line for line in stdout.splitlines() if line.startswith("note: ATmega328P")]
    assert notes == [
        f"note: ATmega328P: predict.o's {flash} bytes of flash are more than the chip's "
        "32768; smaller C: --style table, --missing none, an integer --input-type"
    ], stdout
    # and a model that fits gets no such note
    save_model(cm.golf(), path)
    code, stdout, err = run_cli(capsys, "export", str(path), "-o", str(tmp_path / "g"), "--report")
    assert code == 0 and "more than the chip's" not in stdout, (stdout, err)


def test_an_ensemble_too_large_says_what_shrinks_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An imported forest whose leaf values' table passes the limit: its C stopped an AVR
    build with avr-gcc's own "size of array is too large" (no #error), and the refusal
    of ``--on avr`` advised a tree's options (--missing none, -m, -c), none of which
    shrinks a table of leaf values.  Now the C carries the line, and it names what
    does: a smaller model."""
    np = pytest.importorskip("numpy")
    ensemble = pytest.importorskip("sklearn.ensemble")
    import treegen

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 6))
    y = rng.integers(0, 3, 400)
    est = ensemble.ExtraTreesClassifier(40, class_weight="balanced_subsample", random_state=0)
    path = treegen.from_sklearn(est.fit(X, y)).save(tmp_path / "big.trees").path
    code, stdout, err = run_cli(capsys, "verify", str(path), "--on", "avr", "--missing", "none")
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    said = err.removeprefix("treegen: error: --on avr: ").strip()
    assert said.startswith("the table big_") and "above the 32,767" in said, said
    assert said.endswith(", or a smaller model (fit it with fewer trees, or fewer leaves a tree)")
    assert "share tables" not in said and "-m" not in said, said  # a tree's options
    out = tmp_path / "c"
    assert run_cli(capsys, "export", str(path), "-o", str(out), "--missing", "none")[0] == 0
    source = (out / "predict.c").read_text()
    assert f'#error "treegen: {said}"' in source
    if shutil.which("avr-gcc") is not None:
        r = subprocess.run(
            ["avr-gcc", "-mmcu=atmega328p", "-Os", "-c", str(out / "predict.c"), "-o", "/dev/null"],
            capture_output=True,
            text=True,
        )
        first = next(line for line in r.stderr.splitlines() if "error" in line)
        assert r.returncode != 0 and f"treegen: {said}" in first, r.stderr


def test_no_option_shrinks_an_ensembles_leaf_values() -> None:
    """An ensemble's table of leaf values (doubles) shrinks with fewer leaves alone: the
    message names no option for it, its tests' tables an integer input type too."""
    values = ensemble_avr_message(Table("e_value", 40_000), "float")
    assert values.endswith(
        "may have; export a smaller model (fit it with fewer trees, or fewer leaves a tree)"
    ), values
    tests = ensemble_avr_message(Table("e_thr", 40_000), "float")
    assert "export with an integer --input-type (1- or 2-byte thresholds), or a smaller" in tests
    assert "--input-type" not in ensemble_avr_message(Table("e_thr", 40_000), "int16")
