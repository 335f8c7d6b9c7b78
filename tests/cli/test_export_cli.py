"""``treegen export``: files written atomically and deterministically, provenance that
regenerates the same bytes, and one-line errors (exit 2, nothing written) for bad input."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import run_cli


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path


def test_export_writes_both_files(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "build"
    code, stdout, err = run_cli(capsys, "export", str(golf_tree), "--target", "c", "-o", str(out))
    assert code == 0 and err == ""
    assert sorted(p.name for p in out.iterdir()) == ["predict.c", "predict.h"]
    assert stdout.splitlines() == [f"{out}/predict.c", f"{out}/predict.h"]
    header = (out / "predict.h").read_text()
    assert "int golf_predict(const golf_input_t *x);" in header
    assert "#define GOLF_OUTLOOK_OVERCAST 1" in header


def test_export_is_deterministic_and_regenerable(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    opts = ["--style", "table", "--input-type", "int16", "--scale", "humidity=10", "--prefix", "g1"]
    assert run_cli(capsys, "export", str(golf_tree), *opts, "-o", str(a))[0] == 0
    assert run_cli(capsys, "export", str(golf_tree), *opts, "-o", str(b))[0] == 0
    # The explicit prefix names the files; only the -o folder in the comment differs.
    for name in ("g1_predict.c", "g1_predict.h"):
        assert (a / name).read_text() == (b / name).read_text().replace(str(b), str(a))
    text = (a / "g1_predict.c").read_text()
    assert "model: sha256:" in text and "treegen 0.1.0" in text
    line = next(x for x in text.splitlines() if "regenerate with:" in x)
    argv = shlex.split(line.split("regenerate with:", 1)[1])
    assert argv[:2] == ["treegen", "export"] and "--scale" in argv
    c = tmp_path / "c"
    argv[argv.index("-o") + 1] = str(c)
    assert run_cli(capsys, *argv[1:])[0] == 0
    assert (c / "g1_predict.c").read_text().replace(str(c), str(a)) == text


def test_default_prefix_comes_from_the_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "My model-1.tree"
    save_model(cm.tiny(), path)
    assert run_cli(capsys, "export", str(path), "-o", str(tmp_path / "o"))[0] == 0
    assert "int my_model_1_predict(" in (tmp_path / "o" / "predict.h").read_text()


BAD = [
    (["--input-type", "float16"], "--input-type"),
    (["--scale", "10"], "--scale"),
    (["--input-type", "int16", "--scale", "nosuch=10"], "--scale"),
    (["--input-type", "int16", "--scale", "0"], "--scale"),
    # beyond a double: verify's and the fixed-point model's float(K) raised OverflowError
    (["--input-type", "int16", "--scale", "1e309"], "--scale"),
    (["--input-type", "int16", "--scale", "humidity=1e400"], "--scale"),
    (["--input-type", "int16", "--scale", "outlook=2"], "--scale"),
    (["--input-type", "int16", "--scale", "2", "--scale", "3"], "--scale"),
    # the last K was used and the header recorded both
    (["--input-type", "int16", "--scale", "humidity=2", "--scale", "humidity=3"], "--scale"),
    (["--prefix", "2golf"], "--prefix"),
    (["--prefix", "int"], "--prefix"),
    (["--prefix", "_Golf"], "--prefix"),
    (["--prefix", "a-b"], "--prefix"),
    (["--input-type", "uint8", "--missing-value", "1"], "--missing-value"),  # a nominal code
    (["--input-type", "int8", "--missing-value", "300"], "--missing-value"),
    (["--missing-value", "5"], "--missing-value"),
    (["--float-compare", "int", "--input-type", "int16"], "--float-compare"),
    (["--style", "tree"], "--style"),
    (["--target", "rust"], "--target"),
]


@pytest.mark.parametrize("opts,option", BAD)
def test_bad_options_are_one_line_errors(
    golf_tree: Path,
    tmp_path: Path,
    opts: list[str],
    option: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "export", str(golf_tree), *opts, "-o", str(out))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treegen: error:") and option in lines[0]
    # the option named once, in front ("--scale: --scale must be ..." read as a stutter)
    assert lines[0].count(option) == 1, lines[0]
    assert not out.exists()


def test_output_folder_that_is_a_file(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "file"
    target.write_text("keep me")
    code, _, err = run_cli(capsys, "export", str(golf_tree), "-o", str(target))
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(target) in err
    assert target.read_text() == "keep me"


@pytest.mark.parametrize("name", ["predict.c", "predict.h"])
def test_a_folder_named_as_an_output_file_is_named_so(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """-o DIR where DIR/predict.c is a folder: one line naming it, not "give a file
    name" (the file names are export's), and nothing written."""
    out = tmp_path / "build"
    (out / name).mkdir(parents=True)
    code, stdout, err = run_cli(capsys, "export", str(golf_tree), "-o", str(out))
    assert (code, stdout) == (2, "")
    assert err == (
        f"treegen: error: {out / name}: is a folder where a file of the output goes; "
        "remove it, or choose another output folder\n"
    )
    assert [p.name for p in out.iterdir()] == [name] and not any((out / name).iterdir())


@pytest.mark.parametrize("name", ["golf.c", "golf.h", "GOLF.C"])
def test_an_output_named_as_a_c_file_is_refused(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    # -o names a folder: 'export m.tree -o golf.c' made a folder golf.c holding
    # predict.c and predict.h. --name is what names the files.
    target = tmp_path / name
    code, out, err = run_cli(capsys, "export", str(golf_tree), "-o", str(target))
    stem = Path(name).stem
    assert (code, out) == (2, "")
    assert err == (
        f"treegen: error: -o: {target} names a C file, but -o names the output folder "
        f"(-o {tmp_path} --name {stem} writes {stem}.c and {stem}.h)\n"
    )
    assert not target.exists()
    target.mkdir()  # a folder that is there already is the user's choice
    assert run_cli(capsys, "export", str(golf_tree), "-o", str(target))[0] == 0
    assert (target / "predict.c").is_file()


def test_tampered_model_is_rejected(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = golf_tree.read_text()
    golf_tree.write_text(text.replace('"children"', '"childs"', 1))
    code, _, err = run_cli(capsys, "export", str(golf_tree), "-o", str(tmp_path / "o"))
    assert code == 2 and err.startswith("treegen: error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_a_failing_export_leaves_old_files_alone(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    assert run_cli(capsys, "export", str(golf_tree), "-o", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert run_cli(capsys, "export", str(golf_tree), "--prefix", "for", "-o", str(out))[0] == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize(
    "itype,default",
    [
        ("uint8", 255),
        ("uint16", 65535),
        ("uint32", 4294967295),
        ("int8", -128),
        ("int16", -32768),
        ("int32", -2147483648),
    ],
)
def test_default_missing_value_is_never_a_nominal_code(
    golf_tree: Path, tmp_path: Path, itype: str, default: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # golf has nominal attributes (codes from 0): unsigned types default to their
    # maximum, signed ones keep their minimum.
    from treegen.codegen.literals import c_int

    out = tmp_path / "o"
    code, _, err = run_cli(capsys, "export", str(golf_tree), "--input-type", itype, "-o", str(out))
    assert code == 0, err
    assert f"#define GOLF_MISSING {c_int(default, itype)}\n" in (out / "predict.h").read_text()


def test_default_missing_value_that_is_a_code_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from treegen.data.dataset import Attribute, Schema
    from treegen.model import ContinuousTest, Leaf, Model
    from treegen.model.options import ModelOptions, TrainOptions

    # codes 0..255 fill uint8 (the attribute need not be tested to need its codes)
    schema = Schema(
        (
            Attribute("v", "nominal", tuple(f"v{i}" for i in range(256))),
            Attribute("x", "continuous"),
        ),
        ("a", "b"),
        "class",
    )
    nodes = (
        ContinuousTest(0, 2.0, 0.0, (1.0, 1.0), attribute=1, threshold=0.5, children=(1, 2)),
        Leaf(0, 1.0, 0.0, (1.0, 0.0)),
        Leaf(1, 1.0, 0.0, (0.0, 1.0)),
    )
    path = tmp_path / "wide.tree"
    save_model(Model(schema, nodes, ModelOptions(TrainOptions(flavor="j48"))), path)
    code, _, err = run_cli(
        capsys, "export", str(path), "--input-type", "uint8", "-o", str(tmp_path / "o")
    )
    assert code == 2 and not (tmp_path / "o").exists()
    assert err.strip().splitlines() == [
        "treegen: error: --input-type: the default missing value 255 of uint8 is a code of "
        "nominal attribute 'v' (256 values); choose another with --missing-value"
    ]
    # a value the user chose is named as theirs
    code, _, err = run_cli(
        capsys,
        "export",
        str(path),
        "--input-type",
        "uint8",
        "--missing-value",
        "255",
        "-o",
        str(tmp_path / "o"),
    )
    assert code == 2 and "default" not in err
    assert "--missing-value: missing value 255 is a code of nominal attribute 'v'" in err
    code, _, err = run_cli(
        capsys, "export", str(path), "--input-type", "uint16", "-o", str(tmp_path / "o")
    )
    assert code == 0, err


def test_scaled_threshold_next_to_the_default_missing_value(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # humidity <= 75 at scale 254/75 is x <= 254: only 255, the default missing value
    # of uint8, is above it, so every known value goes left: the test folds (one rule at
    # every scale), export warns on stderr naming it, and the C agrees with the model.
    out = tmp_path / "o"
    args = ["--input-type", "uint8", "--scale", "humidity=254/75"]
    code, _, err = run_cli(capsys, "export", str(golf_tree), *args, "-o", str(out))
    assert code == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treegen: warning: 1 threshold outside uint8")
    assert "model node 1 (humidity <= 75.0, x <= 254 at scale 254/75: left)" in lines[0]
    assert "x[2] <=" not in (out / "predict.c").read_text()
    # --quiet: no diagnostics on stderr, this warning among them (the C is the same).
    code, stdout, err = run_cli(capsys, "-q", "export", str(golf_tree), *args, "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    code, stdout, err = run_cli(capsys, "verify", str(golf_tree), *args, "--random", "300")
    assert code == 0, err
    assert "note: 1 threshold outside uint8" in stdout and " 0 failed" in stdout
    # With another missing value, 255 is a known value above the cut: a real test.
    code, _, err = run_cli(
        capsys, "export", str(golf_tree), *args, "--missing-value", "3", "-o", str(out)
    )
    assert code == 0, err
    assert "x[2] <= 254" in (out / "predict.c").read_text()


def test_a_c45_tree_no_proba_needs_missing_none(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rule is the tree's (its --missing c45 sums the leaf distributions), checked
    when the tree is lowered; an imported model takes --no-proba (tests/ensemble)."""
    out = tmp_path / "o"
    code, stdout, err = run_cli(capsys, "export", str(golf_tree), "--no-proba", "-o", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert "--no-proba needs --missing none" in err and "Traceback" not in err
    assert not out.exists()
    code, _, err = run_cli(
        capsys, "export", str(golf_tree), "--no-proba", "--missing", "none", "-o", str(out)
    )
    assert code == 0, err
