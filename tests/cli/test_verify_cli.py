"""``treegen verify``: the report, exit 0 on parity, exit 1 with the first mismatches
shown when the C differs, exit 2 for bad input."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from treegen.kinds import tree as verify_mod
from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import PACKAGE_ROOT as REPO
from support.cli import assert_one_line_error, run_cli
from support.cli import run_process as treegen
from support.modes import EXPORT_MODES, cli_args

pytestmark = pytest.mark.skipif(
    not __import__("shutil").which("gcc"), reason="gcc is not installed"
)


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path


@pytest.mark.parametrize(
    "opts",
    [
        cli_args(EXPORT_MODES["float"]),
        cli_args(EXPORT_MODES["keys"], style="table"),
        cli_args({**EXPORT_MODES["int16"], "scale": Fraction(10)}),
        cli_args(EXPORT_MODES["uint8"]),
    ],
)
def test_verify_passes_on_golf(
    golf_tree: Path, reference_dir: Path, opts: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = reference_dir / "golf" / "golf.data"
    code, out, _ = run_cli(capsys, "verify", str(golf_tree), str(data), *opts, "--random", "200")
    assert code == 0, out
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"(\d+) passed, 0 failed", last)
    assert m and int(m.group(1)) > 14 + 200
    assert "14 data rows" in out
    assert "C vs fixed-point Python model" in out and "C vs IR evaluator" in out


def test_verify_reports_mismatches(
    golf_tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
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


def test_verify_a_compiler_that_writes_nothing_is_exit_2(
    golf_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # exit 0 without a library (--cc true): named as --cc's, not as a temporary file
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--cc", "true")
    assert code == 2 and err.count("\n") == 1, err
    assert "--cc" in err and "wrote no library" in err and ".tmp" not in err


def test_a_compiler_from_cc_that_fails_is_named(
    golf_tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """$CC chose the compiler, so no --cc names it: 'compiling the exported C failed:
    exit status 1' did not say which compiler that was."""
    monkeypatch.setenv("CC", "false")
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--random", "10")
    assert (code, err) == (
        2,
        "treegen: error: compiling the exported C with false failed: exit status 1\n",
    )


def test_a_failing_compiler_is_quoted_by_its_error_line(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gcc starts a missing header's message with 'In file included from ...,': the
    line to quote is the error, not that context ('--cc "gcc -m32"' without 32-bit
    headers said only where stdint.h was included from)."""
    cc = tmp_path / "fakecc"
    cc.write_text(
        "#!/bin/sh\n"
        "echo 'In file included from /usr/include/stdint.h:9,' >&2\n"
        "echo '                 from predict.h:11,' >&2\n"
        "echo 'stdint.h:26:10: fatal error: bits/libc-header-start.h: No such file' >&2\n"
        "echo 'compilation terminated.' >&2\n"
        "exit 1\n",
        encoding="utf-8",
    )
    cc.chmod(0o755)
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--cc", str(cc), "--random", "10")
    assert code == 2 and err.count("\n") == 1, err
    assert err.rstrip().endswith(
        "failed: stdint.h:26:10: fatal error: bits/libc-header-start.h: No such file"
    ), err


def test_verify_bad_option_is_exit_2(golf_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --scale is for integer input types (an out-of-range scaled threshold folds).
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--scale", "1000")
    assert code == 2 and "--scale" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("option", ["--seed", "--random", "--show"])
def test_verify_negative_counts_are_exit_2(
    golf_tree: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    code, out, err = run_cli(capsys, "verify", str(golf_tree), option, "-1")
    assert code == 2 and out == ""
    assert err == (
        f"treegen: error: verify: argument {option}: '-1' is negative "
        "(see 'treegen verify --help')\n"
    )


def test_verify_random_rows_are_bounded(
    golf_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beyond 10^7 random rows verify would run for hours: refused at once."""
    code, _, err = run_cli(capsys, "verify", str(golf_tree), "--random", "99999999999999999999")
    assert code == 2 and err.count("\n") == 1
    # the API's n_random words its limit alike (tests/api/test_api_arguments.py)
    assert "--random: 99999999999999999999 is more than 10000000 rows" in err, err


# ---- the compiler driver, through a real process (tracebacks would show here) --------------


def _wrapper_cc(tmp_path: Path) -> tuple[Path, Path]:
    """A C compiler that logs its arguments, then runs gcc."""
    log, cc = tmp_path / "cc.log", tmp_path / "logging-cc"
    cc.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec gcc "$@"\n')
    cc.chmod(0o755)
    return cc, log


@pytest.mark.slow
def test_verify_builds_a_plain_shared_library(golf_tree: Path, tmp_path: Path) -> None:
    """ABI mode: $CC builds predict.c into a shared library with the strict warning flags
    and without Python's headers (verify needs no python3-dev)."""
    import sysconfig

    cc, log = _wrapper_cc(tmp_path)
    p = treegen("verify", str(golf_tree), "--random", "50", env={"CC": str(cc)})
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert p.stdout.strip().splitlines()[-1].endswith(" passed, 0 failed")
    calls = log.read_text().splitlines()
    assert len(calls) == 1  # one compiler run: compile and link in one step
    args = calls[0].split()
    for flag in (
        "-shared",
        "-fPIC",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Wconversion",
        "-Wsign-conversion",
        "-Wshadow",
        "-pedantic",
        "-Werror",
    ):
        assert flag in args, flag
    assert any(a.endswith("predict.c") for a in args)
    include = sysconfig.get_paths()["include"]
    assert not any(include in a for a in args), args


@pytest.mark.slow
def test_verify_cc_option_wins_over_env(golf_tree: Path, tmp_path: Path) -> None:
    cc, log = _wrapper_cc(tmp_path)
    p = treegen(
        "verify", str(golf_tree), "--random", "20", "--cc", str(cc), env={"CC": "/nonexistent/cc"}
    )
    assert p.returncode == 0, p.stderr
    assert log.read_text().count("-shared") == 1


@pytest.mark.slow
def test_verify_with_a_missing_cc_is_one_line(golf_tree: Path) -> None:
    line = assert_one_line_error(
        treegen("verify", str(golf_tree), env={"CC": "/nonexistent/cc"}), "/nonexistent/cc"
    )
    assert "CC" in line and "not found" in line


@pytest.mark.slow
def test_verify_without_any_compiler_is_one_line(golf_tree: Path, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CC"}
    env["PATH"] = str(empty)
    env["PYTHONPATH"] = str(REPO)
    p = subprocess.run(
        [sys.executable, "-m", "treegen", "verify", str(golf_tree)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = assert_one_line_error(p)
    assert line == "treegen: error: verify: no C compiler found (set CC or install gcc)"


@pytest.mark.slow
def test_verify_without_cffi_is_one_line(golf_tree: Path) -> None:
    """cffi is a run-time dependency; should it be missing anyway, say so in one line."""
    code = (
        "import sys; sys.modules['cffi'] = None; from treegen.cli.main import main; "
        "raise SystemExit(main(sys.argv[1:]))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.run(
        [sys.executable, "-c", code, "verify", str(golf_tree)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert_one_line_error(p, "cffi")


def test_cffi_is_a_run_time_dependency() -> None:
    import tomllib

    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert any(re.match(r"cffi\b", d) for d in meta["dependencies"])


def _decimal_j48(tmp_path: Path) -> tuple[Path, Path]:
    """A j48 tree for a = 0.1, 0.2, 0.3 -> x and 0.4, 0.5, 0.6 -> y: one test whose
    cut is the double 0.3, below 3/10 (threshold 0.299999: J48 sends a value within
    1e-6 above it left, docs/C45.md section 11)."""
    from treegen.data.dataset import Attribute, Schema
    from treegen.model import ContinuousTest, Leaf, Model
    from treegen.model.options import ModelOptions, TrainOptions

    schema = Schema((Attribute("a", "continuous"),), ("x", "y"), "class")
    nodes = (
        ContinuousTest(0, 6.0, 0.0, (3.0, 3.0), attribute=0, threshold=0.299999, children=(1, 2)),
        Leaf(0, 3.0, 0.0, (3.0, 0.0)),
        Leaf(1, 3.0, 0.0, (0.0, 3.0)),
    )
    tree = tmp_path / "d.tree"
    save_model(Model(schema, nodes, ModelOptions(TrainOptions(flavor="j48"))), tree)
    data = tmp_path / "d.csv"
    data.write_text("a,class\n0.1,x\n0.2,x\n0.3,x\n0.4,y\n0.5,y\n0.6,y\n")
    return tree, data


@pytest.mark.parametrize("itype", ["int16", "uint32"])
def test_verify_compares_scaled_inputs_with_the_float_classifier(
    tmp_path: Path, itype: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tree, data = _decimal_j48(tmp_path)
    code, out, _ = run_cli(
        capsys,
        "verify",
        str(tree),
        str(data),
        "--input-type",
        itype,
        "--scale",
        "10",
        "--random",
        "100",
    )
    assert code == 0, out
    m = re.search(
        r"C vs float classifier \(rows without missing values\): (\d+) rows, "
        r"classes identical",
        out,
    )
    assert m and int(m.group(1)) >= 6  # the data rows at least


@pytest.mark.parametrize("scale", ["1e-305", "4.9e-324", "1e-400"])
def test_verify_takes_a_scale_so_small_that_x_over_k_overflows(
    golf_tree: Path, reference_dir: Path, scale: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """x/K past the doubles is +-inf for the model (verify.inputs), but working out its
    sign called float() of the huge x * denominator and raised OverflowError: a
    traceback, where export took the same --scale."""
    data = reference_dir / "golf" / "golf.data"
    argv = ["verify", str(golf_tree), str(data), "--input-type", "int16", "--scale", scale]
    code, out, err = run_cli(capsys, *argv, "--random", "100")
    assert code == 0 and "Traceback" not in err, err
    assert out.strip().splitlines()[-1].endswith(" passed, 0 failed")


def test_verify_catches_a_scaled_rule_its_fixed_point_model_shares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The old rule (the exact x/K, cut floor(t * K) = 2) in both the lowering and the
    # fixed-point model: only the float classifier can see that x = 3 ("0.3") is wrong.
    from treegen.model import bounds

    monkeypatch.setattr(bounds, "read_bound", bounds.model_bound)
    tree, data = _decimal_j48(tmp_path)
    code, out, _ = run_cli(
        capsys,
        "verify",
        str(tree),
        str(data),
        "--input-type",
        "int16",
        "--scale",
        "10",
        "--random",
        "50",
    )
    assert code == 1, out
    assert "C vs fixed-point Python model" in out and "classes and probabilities identical" in out
    assert re.search(r"row \d+ \[3\]: float classifier .*: class C 1 vs 0", out), out
