"""``treegen synth`` and ``python -m treegen.data.synthetic``.

The property: for any options within their ranges, each format the command writes
reads back (with treegen's own readers) as exactly the dataset ``generate`` makes for
the same Spec, and the same options write the same bytes.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treegen.cli.main import main
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.data.synthetic import Spec, generate

from support.cli import PACKAGE_ROOT, assert_one_line_error, run_process

Cell = float | str | None


def _table(ds: Dataset) -> tuple[list[str], list[list[Cell]]]:
    """The dataset as names and decoded cells (a value's text for nominal attributes
    and classes, so that value order does not matter; None for missing)."""
    rows: list[list[Cell]] = []
    for x, y in zip(ds.X.tolist(), ds.y.tolist(), strict=True):
        row: list[Cell] = []
        for a, v in zip(ds.attributes, x, strict=True):
            if math.isnan(v):
                row.append(None)
            else:
                row.append(v if a.is_continuous else a.values[int(v)])
        rows.append([*row, ds.classes[y]])
    return [a.name for a in ds.attributes], rows


def _argv(spec: Spec) -> list[str]:
    return [
        f"--rows={spec.rows}",
        f"--n-continuous={spec.n_continuous}",
        f"--n-nominal={spec.n_nominal}",
        f"--n-classes={spec.n_classes}",
        f"--missing={spec.missing!r}",
        f"--noise={spec.noise!r}",
        f"--depth={spec.depth}",
        f"--seed={spec.seed}",
        f"--min-values={spec.min_values}",
        f"--max-values={spec.max_values}",
    ]


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    n_cont = draw(st.integers(0, 4))
    lo = draw(st.integers(2, 5))
    return Spec(
        rows=draw(st.integers(1, 150)),
        n_continuous=n_cont,
        n_nominal=draw(st.integers(0 if n_cont else 1, 4)),
        n_classes=draw(st.integers(2, 5)),
        missing=draw(st.sampled_from([0.0, 0.05, 0.3, 0.9])),
        noise=draw(st.sampled_from([0.0, 0.1, 1.0])),
        depth=draw(st.integers(0, 6)),
        seed=draw(st.integers(0, 2**40)),
        min_values=lo,
        max_values=draw(st.integers(lo, 8)),
    )


OUTPUTS = {"arff": "d.arff", "csv": "d.csv", "c45": "d.names"}


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(specs())
def test_every_format_reads_back_as_the_generated_dataset(spec: Spec) -> None:
    want = _table(generate(spec))
    with TemporaryDirectory() as tmp:
        for fmt, name in OUTPUTS.items():
            out = Path(tmp) / name
            assert main(["-q", "synth", "-o", str(out), *_argv(spec)]) == 0
            got = _table(read_dataset(str(out)))
            assert got == want, fmt
            first = {p.name: p.read_bytes() for p in Path(tmp).iterdir()}
            assert main(["-q", "synth", "-o", str(out), *_argv(spec)]) == 0
            assert {p.name: p.read_bytes() for p in Path(tmp).iterdir()} == first
        assert sorted(p.name for p in Path(tmp).iterdir()) == [
            "d.arff",
            "d.csv",
            "d.data",
            "d.names",
        ]


@pytest.mark.slow
def test_python_m_synthetic_has_a_help_and_writes_what_synth_writes(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(PACKAGE_ROOT)}
    help_ = subprocess.run(
        [sys.executable, "-m", "treegen.data.synthetic", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert help_.returncode == 0 and help_.stderr == ""
    assert help_.stdout.startswith("usage: treegen synth")
    for option in ("--rows", "--n-continuous", "--missing", "--seed", "--format"):
        assert option in help_.stdout
    old = subprocess.run(
        [sys.executable, "-m", "treegen.data.synthetic", "-o", "a.csv", "--rows", "50"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert old.returncode == 0, old.stderr
    assert run_process("synth", "-o", "b.csv", "--rows", "50", cwd=tmp_path).returncode == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    bad = subprocess.run(
        [sys.executable, "-m", "treegen.data.synthetic", "-o", "a.csv", "--rows", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert_one_line_error(bad, "--rows", "'x' is not an integer")


@pytest.mark.parametrize(
    "argv,fragments",
    [
        (["-o", "d.txt"], ["-o/--output: cannot tell the format from 'd.txt'"]),
        (["-o", "d.csv", "--rows", "0"], ["--rows: 0 must be between 1 and"]),
        (["-o", "d.csv", "--n-continuous", "0", "--n-nominal", "0"], ["at least one attribute"]),
        (["-o", "d.csv", "--min-values", "5", "--max-values", "3"], ["--max-values: 3 is below"]),
        (["-o", "d.csv", "--missing", "1"], ["--missing: 1 must be in [0, 1)"]),
        (["-o", "d.csv", "--noise", "-0.1"], ["--noise: -0.1 must be in [0, 1]"]),
        (["-o", "d.csv", "--seed", "-1"], ["--seed: -1 must be at least 0"]),
        (["-o", "d.csv", "--format", "xls"], ["--format: invalid choice: 'xls'"]),
        (["-o", "no/d.names"], ["no/d.names: output folder does not exist (no)"]),
        (["-o", "no/d.csv"], ["no/d.csv: output folder does not exist (no)"]),
        (["-o", ".", "--format", "c45"], ["'.' names no file stem"]),
        ([], ["the following arguments are required: -o/--output"]),
    ],
)
def test_bad_options_are_one_line_errors_and_write_nothing(
    argv: list[str], fragments: list[str], tmp_path: Path
) -> None:
    assert_one_line_error(run_process("synth", *argv, cwd=tmp_path), *fragments)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_c45_output_is_both_files_or_neither(tmp_path: Path) -> None:
    (tmp_path / "d.data").mkdir()  # in the way of the second file
    p = run_process("synth", "-o", "d.names", cwd=tmp_path)
    assert_one_line_error(p, "d.data: is a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.data"]


@pytest.mark.parametrize("given", ["d.names", "d.data", "d"])
def test_c45_output_names_both_files_it_writes(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o d.data`` wrote d.names too and said "wrote d.names and .data": the note now
    names both files, whichever of the two (or the stem) -o gave."""
    from support.cli import run_cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.data").write_text("an old data file, replaced\n")
    fmt = ["--format", "c45"] if given == "d" else []
    code, out, err = run_cli(capsys, "synth", "-o", given, *fmt, "--rows", "5")
    assert code == 0 and out == ""
    assert err.startswith("treegen: wrote d.names and d.data: 5 rows, ")
    assert read_dataset(str(tmp_path / "d.names")).n_rows == 5


@pytest.mark.parametrize(
    ("argv", "kind", "victim"),
    [
        (["-o", "d.names"], "a treegen model file", "d.data"),  # the second file
        (["-o", "d.data"], "a treegen model file", "d.names"),
        (["-o", "m.csv"], "a treegen model file", "m.csv"),
        (["-o", "predict.c", "--format", "arff"], "a C source file", "predict.c"),
    ],
)
def test_no_dataset_replaces_a_model_or_c_source(
    argv: list[str],
    kind: str,
    victim: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As no model replaces data (``train -o test.csv``), no dataset replaces a model or
    C source, the second file of a C4.5 pair included; nothing is written."""
    from support.cli import run_cli

    monkeypatch.chdir(tmp_path)
    golf = PACKAGE_ROOT / "tests" / "data" / "reference" / "golf" / "golf.names"
    code, _, _ = run_cli(capsys, "-q", "train", str(golf), "-o", "model.tree")
    assert code == 0
    content = (
        (tmp_path / "model.tree").read_text()
        if kind.endswith("model file")
        else "#include <stdint.h>\nint f(void);\n"
    )
    (tmp_path / "model.tree").unlink()
    (tmp_path / victim).write_text(content)
    code, _, err = run_cli(capsys, "synth", *argv, "--rows", "5")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"treegen: error: -o/--output: {victim} is {kind}; a dataset would")
    assert sorted(p.name for p in tmp_path.iterdir()) == [victim]
    assert (tmp_path / victim).read_text() == content
