"""The command-line frame as a user meets it: a real ``python -m treegen`` process.

Checks exit codes (0 ok, 2 bad input or usage), that every failure is exactly
one stderr line ``treegen: error: ...`` with no traceback, that --quiet works
before and after the subcommand, and that a failure never leaves a partial or
clobbered output file behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen import __version__
from treegen.model.file import load_model, model_to_json

from support.cli import assert_one_line_error, run_process, subcommands

SUBCOMMANDS = subcommands()
treegen = run_process


@pytest.mark.slow
def test_help_lists_every_subcommand() -> None:
    p = treegen("--help")
    assert p.returncode == 0
    for name in SUBCOMMANDS:
        # a name longer than argparse's help column ends its line
        assert f"\n    {name} " in p.stdout or f"\n    {name}\n" in p.stdout, name
    for name in SUBCOMMANDS:
        sub = treegen(name, "--help")
        assert sub.returncode == 0 and sub.stdout.startswith(f"usage: treegen {name}"), name
        assert "--quiet" in sub.stdout


@pytest.mark.slow
def test_version() -> None:
    p = treegen("--version")
    assert p.returncode == 0 and p.stdout.startswith(f"treegen {__version__}; C accelerator ")
    off = treegen("--version", env={"TREEGEN_NO_NATIVE": "1"})
    assert off.stdout.strip() == (
        f"treegen {__version__}; C accelerator off: turned off by TREEGEN_NO_NATIVE,"
        " treegen runs its numpy code"
    )


@pytest.mark.parametrize(
    "argv,fragments",
    [
        ([], ["no subcommand given"]),
        (["frobnicate"], ["invalid choice: 'frobnicate'"]),
        (["--frob"], ["unrecognized arguments: --frob"]),
        (["show", "--frob", "m.tree"], ["show: unrecognized arguments: --frob"]),
        (["train"], ["train: the following arguments are required: DATA"]),
        (["train", "x.csv", "--min-cases", "zero"], ["--min-cases", "'zero' is not an integer"]),
        (["train", "x.csv", "--nominal", "a,,b"], ["--nominal", "empty column name"]),
    ],
)
@pytest.mark.slow
def test_usage_errors_are_one_line(argv: list[str], fragments: list[str]) -> None:
    assert_one_line_error(treegen(*argv), *fragments)


def write(tmp: Path, name: str, text: str | bytes) -> str:
    p = tmp / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(p)


NAMES = "yes, no.\ncolour: red, blue.\nsize: continuous.\n"
DATA = "red, 1.5, yes\nblue, 2.5, no\nred, 3, yes\n"

# (file name, contents, expected :LINE:COL: after the file name, message fragment)
BAD_DATA = [
    ("unknown-value.data", DATA + "green, 2, no\n", ":4:1:", "value 'green' is not declared"),
    ("columns.data", DATA + "red, 2, no, extra\n", ":4:13:", "expected 3 values"),
    ("nonnumeric.data", DATA + "red, two, no\n", ":4:6:", "'two' is not a finite number"),
    ("empty.data", "", ":1:", "no data rows"),
    ("class-missing.data", DATA + "red, 2, ?\n", ":4:9:", "class value is missing"),
    ("undeclared.data", DATA + "red, 2, maybe\n", ":4:9:", "undeclared class 'maybe'"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,text,where,message", BAD_DATA)
def test_bad_c45_data(tmp_path: Path, name: str, text: str, where: str, message: str) -> None:
    stem = name.rsplit(".", 1)[0]
    write(tmp_path, f"{stem}.names", NAMES)
    data = write(tmp_path, name, text)
    out = tmp_path / "m.tree"
    line = assert_one_line_error(treegen("train", data, "-o", str(out)), message)
    assert line.startswith(f"treegen: error: {data}{where}")
    assert not out.exists()


@pytest.mark.slow
def test_duplicate_attribute_names(tmp_path: Path) -> None:
    write(tmp_path, "d.names", NAMES + "colour: continuous.\n")
    data = write(tmp_path, "d.data", DATA)
    line = assert_one_line_error(treegen("train", data), "duplicate attribute name 'colour'")
    assert line.startswith(f"treegen: error: {tmp_path / 'd.names'}:4:1: ")


@pytest.mark.slow
def test_empty_names_and_csv(tmp_path: Path) -> None:
    write(tmp_path, "e.names", "")
    write(tmp_path, "e.data", DATA)
    assert_one_line_error(treegen("train", str(tmp_path / "e")), "e.names:1: empty file")
    csv = write(tmp_path, "e.csv", "")
    assert_one_line_error(treegen("train", csv), f"{csv}:1: empty file")


@pytest.mark.slow
def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    write(tmp_path, "b.names", "\ufeff" + NAMES.replace("\n", "\r\n"))
    data = write(tmp_path, "b.data", "\ufeff" + DATA.replace("\n", "\r\n"))
    csv = write(tmp_path, "b.csv", "\ufeffcolour,size,class\r\nred,1.5,yes\r\nblue,2.5,no\r\n")
    # The .names declares yes, no; a CSV's labels are sorted.
    for path, classes in ((data, ("yes", "no")), (csv, ("no", "yes"))):
        out = tmp_path / "b.tree"
        p = treegen("train", path, "-o", str(out))
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
        model = load_model(out)
        assert [a.name for a in model.schema.attributes] == ["colour", "size"]
        assert model.schema.classes == classes
        out.unlink()


@pytest.mark.slow
def test_missing_input_file(tmp_path: Path) -> None:
    assert_one_line_error(treegen("train", str(tmp_path / "none.csv")), "none.csv: no such file")
    assert_one_line_error(
        treegen("show", str(tmp_path / "none.tree")), "none.tree: no such model file"
    )


MODEL_JSON = """{"format": "treegen-model", "version": 1, "treegen_version": "0.1.0",
"data_fingerprint": "", "options": {}, "target": "class", "classes": ["yes", "no"],
"attributes": [{"name": "size", "kind": "continuous"}],
"nodes": [
{"id": 0, "kind": "continuous", "attribute": 0, "threshold": 2.0, "threshold_hex": "0x1.0000000000000p+1", "children": [1, 2], "cls": 0, "items": 3.0, "errors": 1.0, "dist": [2.0, 1.0]},
{"id": 1, "kind": "leaf", "cls": 0, "items": 1.0, "errors": 0.0, "dist": [1.0, 0.0]},
{"id": 2, "kind": "leaf", "cls": 1, "items": 2.0, "errors": 1.0, "dist": [1.0, 1.0]}
]}
"""  # noqa: E501 (one node per line, as a model file may be written)


def test_truncated_model_file(tmp_path: Path) -> None:
    path = write(tmp_path, "t.tree", MODEL_JSON[: len(MODEL_JSON) // 2])
    line = assert_one_line_error(treegen("show", path), "truncated file")
    assert line.startswith(f"treegen: error: {path}:5:")


@pytest.mark.slow
def test_hand_edited_model_file(tmp_path: Path) -> None:
    path = write(tmp_path, "h.tree", MODEL_JSON.replace('"threshold": 2.0', '"threshold": 2.5'))
    line = assert_one_line_error(
        treegen("show", path), "nodes[0].threshold", "does not equal threshold_hex"
    )
    assert line.startswith(f"treegen: error: {path}:5: ")
    newer = write(tmp_path, "n.tree", MODEL_JSON.replace('"version": 1', '"version": 7'))
    assert_one_line_error(treegen("show", newer), "upgrade treegen")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["show", "export"])
def test_deeply_nested_model_file(tmp_path: Path, command: str) -> None:
    """JSON nested thousands of levels deep: one line naming file, line and column."""
    path = write(tmp_path, "deep.tree", "[" * 5000)
    line = assert_one_line_error(
        treegen(command, path, "-o", str(tmp_path / "c"))
        if command == "export"
        else treegen(command, path),
        "nested more than",
    )
    assert line.startswith(f"treegen: error: {path}:1:")
    # Parseable, but "options" nested 500 deep would recurse when written back (export).
    opts = write(
        tmp_path,
        "opts.tree",
        MODEL_JSON.replace('"options": {}', '"options": {"x": ' + "[" * 500 + "]" * 500 + "}"),
    )
    line = assert_one_line_error(
        treegen(command, opts, "-o", str(tmp_path / "c"))
        if command == "export"
        else treegen(command, opts),
        "nested more than",
    )
    assert line.startswith(f"treegen: error: {opts}:2:")
    assert not (tmp_path / "c").exists()


@pytest.mark.slow
def test_deep_chain_model_file(tmp_path: Path) -> None:
    """A legitimate tree 2,000 levels deep: show and export work in a real process."""
    from treegen.model.file import save_model

    from support import codegen_models as cm

    path = tmp_path / "chain.tree"
    save_model(cm.chain(2000), path)
    for args in (
        ["show", str(path)],
        ["show", str(path), "--format", "j48"],
        ["export", str(path), "-o", str(tmp_path / "ifs")],
        ["export", str(path), "--style", "table", "-o", str(tmp_path / "table")],
    ):
        p = treegen(*args)
        assert p.returncode == 0 and p.stderr == "", (args, p.stderr[-500:])
    assert (tmp_path / "ifs" / "predict.c").stat().st_size > 100_000
    assert (tmp_path / "table" / "predict.c").is_file()


@pytest.mark.slow
def test_number_beyond_double_range_in_training_data(tmp_path: Path) -> None:
    """A 200,000-digit number is not silently inf (nor a nominal label): the cell's
    position, a shortened copy of it, exit 2."""
    csv = write(tmp_path, "big.csv", f"x,y\n1,a\n2,b\n{'1' * 200_000},a\n3,b\n")
    for flavor in ("c45", "j48"):
        line = assert_one_line_error(
            treegen("train", csv, "--flavor", flavor, "-o", str(tmp_path / "m.tree")),
            "(200000 characters)' is out of range",
        )
        assert line.startswith(f"treegen: error: {csv}:4:1: ") and len(line) < 400
    assert not (tmp_path / "m.tree").exists()


@pytest.mark.slow
def test_number_beyond_float32_range_in_training_data(tmp_path: Path) -> None:
    """The c45 flavor stores values as float32: 1e39 is out of its range (an error at the
    cell, no numpy overflow warning); j48 computes in doubles and trains on it."""
    write(tmp_path, "f.names", NAMES)
    data = write(tmp_path, "f.data", DATA + "blue, 1e39, no\n")
    csv = write(tmp_path, "f.csv", "colour,size,class\n" + DATA + "blue,-2e39,no\n")
    for path, where in ((data, ":4:7: '1e39'"), (csv, ":5:6: '-2e39'")):
        line = assert_one_line_error(
            treegen("train", path, "-o", str(tmp_path / "m.tree")), "is out of range for float32"
        )
        assert line.startswith(f"treegen: error: {path}{where}")
        p = treegen("train", path, "--flavor", "j48", "-o", str(tmp_path / "j.tree"))
        assert p.returncode == 0 and "Warning" not in p.stderr, p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", ["predict", "eval", "verify"])
def test_number_beyond_float32_range_for_a_c45_model(tmp_path: Path, command: str) -> None:
    """Data for a c45 model is read as its training data is: 1e39 is an error at the cell
    (not numpy's 'overflow encountered in cast' warning); a j48 model takes it."""
    write(tmp_path, "g.names", NAMES)
    write(tmp_path, "g.data", DATA)
    c45_tree, j48_tree = str(tmp_path / "c.tree"), str(tmp_path / "j.tree")
    assert treegen("-q", "train", str(tmp_path / "g.data"), "-o", c45_tree).returncode == 0
    assert (
        treegen(
            "-q", "train", str(tmp_path / "g.data"), "--flavor", "j48", "-o", j48_tree
        ).returncode
        == 0
    )
    test = write(tmp_path, "g.test", "red, 1e39, yes\nblue, 2, no\n")
    extra = ["--random", "10"] if command == "verify" else []
    line = assert_one_line_error(
        treegen(command, c45_tree, test, *extra), "'1e39' is out of range for float32"
    )
    assert line.startswith(f"treegen: error: {test}:1:6: ")
    p = treegen(command, j48_tree, test, *extra)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    if command == "predict":
        from treegen.data.readers import read_dataset
        from treegen.model.classify import predict

        model = load_model(j48_tree)
        ds = read_dataset(test, schema=model.schema)
        assert ds.X[0, 1] == 1e39
        assert p.stdout.splitlines() == [model.schema.classes[int(c)] for c in predict(model, ds.X)]


@pytest.mark.slow
def test_failed_train_keeps_existing_output(tmp_path: Path) -> None:
    write(tmp_path, "k.names", NAMES)
    data = write(tmp_path, "k.data", DATA + "red, 2, maybe\n")
    out = tmp_path / "m.tree"
    out.write_text("previous model\n")
    assert_one_line_error(treegen("train", data, "-o", str(out)), "undeclared class")
    assert out.read_text() == "previous model\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.data", "k.names", "m.tree"]


def test_quiet_before_and_after_subcommand(tmp_path: Path) -> None:
    from treegen.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["-q", "show", "m"]).quiet is True
    assert parser.parse_args(["show", "m", "--quiet"]).quiet is True
    assert parser.parse_args(["show", "m"]).quiet is False


def test_model_json_fixture_is_valid() -> None:
    from treegen.model.file import model_from_json

    model = model_from_json(MODEL_JSON)
    assert model_from_json(model_to_json(model)) == model


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.slow
def test_out_of_memory_is_one_line() -> None:
    """An input too large for the machine (here endless /dev/zero under a 1.5 GB address
    space limit) ends with one line, exit 2, not a MemoryError traceback."""
    import subprocess
    import sys

    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))"
    code = f"{limit}\nimport sys; from treegen.cli.main import main; sys.exit(main(sys.argv[1:]))"
    p = subprocess.run(
        [sys.executable, "-c", code, "show", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert_one_line_error(p, "out of memory")
