"""The generated C on simulated chips (treegen.firmware, firmware_examples/).

ATmega328P under simavr, Cortex-M0+/M3/M4F under qemu-system-arm and RV32IMC/RV32IMAFC
under qemu-system-riscv32: the firmware
examples built with a generated predict.c print class and probabilities for verify's
rows, which must equal the Python model's bit for bit; the cycle and instruction
counters pass their self-checks; a crash, a hang and a tampered predict.c are caught;
``treegen verify --on`` and ``treegen export --report`` work from the command line, and
a missing tool is one line naming the Debian packages.  Each test that needs a tool
skips, naming it, when it is not installed (``.ci/run`` installs them all).

(``make firmware`` runs the full matrix: more models, every style, encoding and chip.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treegen.cli.main import main
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Dataset
from treegen.errors import ToolError
from treegen.firmware import check, targets
from treegen.firmware.objinfo import stack_bound
from treegen.firmware.parity import verify_on
from treegen.firmware.sim import AVR_DELAY_SPAN, NOP10_COUNT, parse_output, run_vectors
from treegen.firmware.sources import FAMILY_DIRS, examples_dir
from treegen.model import Model
from treegen.model.file import save_model
from treegen.model.fixedpoint import FixedPointClassifier
from treegen.verify.inputs import comparison_inputs

from support import codegen_models as cm

# Cross compilers and simulators (simavr, qemu-system-arm, qemu-system-riscv32): the
# toolchain set.
pytestmark = pytest.mark.toolchain

TARGETS = list(targets.TARGETS)
REPO = Path(__file__).resolve().parents[2]


def need(name: str) -> targets.Target:
    t = targets.target(name)
    missing = targets.missing_tools(t)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian packages {t.packages})")
    return t


@pytest.fixture(scope="module")
def models(reference_dir: Path) -> dict[str, tuple[Model, Dataset]]:
    """golf (nominal and continuous) and crx (both, with missing values), trained."""
    return {name: check.load(name, reference_dir) for name in ("golf", "crx")}


# golf in every style and encoding on every chip; crx in every encoding on every chip,
# the style alternating so that each chip sees both.
COMBOS = [("golf", s, m, t) for s in check.STYLES for m in check.MODES for t in TARGETS] + [
    ("crx", check.STYLES[(i + j) % 2], m, t)
    for i, t in enumerate(TARGETS)
    for j, m in enumerate(check.MODES)
]


@pytest.mark.parametrize("model,style,mode,target", COMBOS)
def test_the_chip_predicts_what_python_predicts(
    models: dict[str, tuple[Model, Dataset]], model: str, style: str, mode: str, target: str
) -> None:
    need(target)
    m, ds = models[model]
    opts = check.export_options(model, m, ds, style, mode)
    assert not isinstance(opts, str), opts
    res = verify_on(m, opts, [ds], [target], n_random=150)
    run = res.runs[target]
    assert run.ok, run.failure
    assert run.done.all() and run.images >= 1
    assert res.report.ok, res.report.text()
    assert res.report.rows == res.rows.shape[0] > ds.n_rows + 150
    assert (run.count > 0).all()
    assert run.warnings == ""  # the harness and predict.c compile without a warning


@pytest.mark.parametrize(
    "style,itype,fc",
    [
        ("table", "float", "float"),
        ("ifs", "float", "int"),
        ("table", "int16", "float"),
        ("ifs", "int16", "float"),
    ],
)
def test_synthetic_tree_on_avr(style: str, itype: str, fc: str) -> None:
    """Subsets, empty leaves, negative, zero and subnormal thresholds, on AVR's 16-bit
    int and PROGMEM tables: classes and probabilities equal the fixed-point model's."""
    t = need("avr")
    model = cm.synthetic(5, 120)
    opts = ExportOptions(prefix="syn", style=style, input_type=itype, float_compare=fc)
    ir = lower(model, opts)
    X = comparison_inputs(ir, n_random=100)
    run = run_vectors(ir, emit(ir, style), X, t)
    assert run.ok, run.failure
    cls, proba = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(run.cls, cls)
    assert np.array_equal(run.proba, proba)


@pytest.mark.parametrize("style", ["ifs", "table"])
@pytest.mark.parametrize("target,proba", [("avr", False), ("m0plus", True)])
def test_lean_export_on_the_chip(target: str, proba: bool, style: str) -> None:
    """--missing none on the chip: the none rule on every row (NaN included); the
    harness asks for probabilities only when predict_proba is exported."""
    need(target)
    opts = ExportOptions(prefix="syn", style=style, missing="none", proba=proba)
    result = verify_on(cm.synthetic(5, 120), opts, [], [target], n_random=100)
    assert result.report.ok, result.report.text()
    assert "none rule" in result.report.text()


def _golf_run(target: str, files: dict[str, str] | None = None, n: int = 20, **kw: float):
    """Run golf (float, ifs) on ``target``; ``files`` replaces the emitted C."""
    t = need(target)
    model = cm.golf()
    opts = ExportOptions(prefix="golf")
    ir = lower(model, opts)
    X = comparison_inputs(ir, n_random=n)
    return run_vectors(ir, files or emit(ir, "ifs"), X, t, **kw), ir, X


@pytest.mark.parametrize("target", TARGETS)
def test_counter_self_checks(target: str) -> None:
    run, _, _ = _golf_run(target, n=5)
    assert run.ok, run.failure
    if target == "avr":
        # ICALL takes 3 cycles on the ATmega328P, NOP 1, RET 4; _delay_loop_2 is 4
        # cycles an iteration, and the longer delay wraps the 16-bit timer three times.
        assert run.checks["nop10"] == (NOP10_COUNT["avr"],) == (17,)
        a, b = run.checks["delay"]
        assert b - a == AVR_DELAY_SPAN == 4 * (65536 - 250)
    else:
        # The plugin's window: BLX, ten NOPs and BX LR; JALR, ten NOPs and RET.
        assert run.checks["nop10"] == (NOP10_COUNT[targets.target(target).family],) == (12,)


def _tampered(ir_files: dict[str, str], prefix: str, code: str) -> dict[str, str]:
    """predict.c with ``code`` run first thing in PREFIX_predict."""
    files = dict(ir_files)
    head = f"int {prefix}_predict(const {prefix}_input_t *x)\n{{\n"
    assert head in files["predict.c"]
    files["predict.c"] = files["predict.c"].replace(head, head + code)
    return files


CRASH = {
    # A jump into erased flash, an invalid opcode.
    "avr": "    ((void (*)(void))0x3000)();\n",
    # The permanently undefined instruction (UDF), a HardFault.
    "m3": '    __asm__ volatile(".short 0xde00");\n',
    # The all-zero halfword, an illegal instruction: startup.c's trap handler.
    "rv32imafc": '    __asm__ volatile(".2byte 0");\n',
    # fadd.s ft0, ft0, ft0 on the core without F: the qemu CPU has no F either.
    "rv32imc": '    __asm__ volatile(".4byte 0x00000053");\n',
}


@pytest.mark.parametrize("target", sorted(CRASH))
def test_a_crash_is_reported(target: str) -> None:
    need(target)
    ir = lower(cm.golf(), ExportOptions(prefix="golf"))
    crash = CRASH[target]
    files = _tampered(emit(ir, "ifs"), "golf", crash)
    run, _, _ = _golf_run(target, files)
    assert run.failure is not None and run.failure.startswith("crashed"), run.failure
    assert not run.done.any()


def test_a_hang_is_reported() -> None:
    need("m0plus")
    ir = lower(cm.golf(), ExportOptions(prefix="golf"))
    files = _tampered(
        emit(ir, "ifs"), "golf", "    volatile int spin = 1;\n    while (spin) {\n    }\n"
    )
    run, _, _ = _golf_run("m0plus", files, time_limit=2)
    assert run.failure is not None and run.failure.startswith("timed out after 2 s"), run.failure


def test_verify_on_finds_a_tampered_predict_c() -> None:
    need("m4f")
    model = cm.golf()
    opts = ExportOptions(prefix="golf")
    files = dict(emit(lower(model, opts), "ifs"))
    assert "75.0f" in files["predict.c"]
    files["predict.c"] = files["predict.c"].replace("75.0f", "76.0f")
    res = verify_on(model, opts, [], ["m4f"], n_random=50, files=files)
    assert res.runs["m4f"].ok  # it ran; it just computes something else
    assert not res.report.ok and res.report.failed_rows > 0
    assert res.report.mismatches and res.report.mismatches[0].startswith("m4f: row ")


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path


def _cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "treegen", *argv],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=300,
    )


def test_verify_on_cli_passes(golf_tree: Path, reference_dir: Path) -> None:
    need("m3")
    need("avr")
    p = _cli(
        "verify",
        str(golf_tree),
        str(reference_dir / "golf" / "golf.data"),
        "--on",
        "m3",
        "--on",
        "avr",
        "--random",
        "40",
    )
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.strip().splitlines()
    n = int(lines[0].split(": ")[1].split()[0])  # "14 data rows"
    assert n == 14
    rows = int(re.search(r"m3: C vs fixed-point Python model: (\d+) rows", p.stdout).group(1))
    assert (
        f"avr: C vs fixed-point Python model: {rows} rows, classes and probabilities "
        "identical" in p.stdout
    )
    assert re.search(r"avr: .*cycles per prediction: min \d+, median \d+, max \d+", p.stdout)
    assert re.search(r"m3: .*instructions per prediction: min \d+", p.stdout)
    assert lines[-1] == f"{2 * rows} passed, 0 failed"


def test_verify_on_cli_exits_1_on_a_mismatch(
    golf_tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need("m0plus")
    from treegen.kinds import tree as tree_kind

    real_emit = tree_kind.emit

    def broken(ir, style):  # type: ignore[no-untyped-def]
        files = dict(real_emit(ir, style))
        files["predict.c"] = files["predict.c"].replace("<= 75.0f", "<= 76.0f")
        return files

    monkeypatch.setattr(tree_kind, "emit", broken)
    code = main(["verify", str(golf_tree), "--on", "m0plus", "--random", "30"])
    out = capsys.readouterr().out
    assert code == 1
    assert "first mismatches" in out and "\n  m0plus: row " in out
    assert re.search(r"\n(\d+) passed, [1-9]\d* failed\n$", out)


def _bare_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds only `timeout` (coreutils, not a tool we name)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    timeout = shutil.which("timeout")
    if timeout:
        (bindir / "timeout").symlink_to(timeout)
    return dict(os.environ, PATH=str(bindir))


@pytest.mark.parametrize(
    "target,tool,packages",
    [
        ("avr", "avr-gcc", "gcc-avr avr-libc simavr"),
        (
            "m4f",
            "arm-none-eabi-gcc",
            "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc",
        ),
        (
            "rv32imc",
            "riscv64-unknown-elf-gcc",
            "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gcc",
        ),
    ],
)
def test_a_missing_tool_is_one_line(
    golf_tree: Path, tmp_path: Path, target: str, tool: str, packages: str
) -> None:
    env = _bare_path(tmp_path)
    for argv in (
        ["verify", str(golf_tree), "--on", target],
        ["export", str(golf_tree), "-o", str(tmp_path / "c"), "--report", "--on", target],
    ):
        p = _cli(*argv, env=env)
        assert p.returncode == 2, p.stdout + p.stderr
        lines = p.stderr.splitlines()
        assert len(lines) == 1, p.stderr
        assert lines[0].startswith(f"treegen: error: --on: {target}: {tool}, "), lines[0]
        assert lines[0].endswith(f"not found (install the Debian packages {packages})")


def test_report_without_any_compiler(golf_tree: Path, tmp_path: Path) -> None:
    p = _cli(
        "export", str(golf_tree), "-o", str(tmp_path / "c"), "--report", env=_bare_path(tmp_path)
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "c" / "predict.c").is_file()
    assert p.stdout.rstrip().endswith(
        "not installed: gcc, arm-none-eabi-gcc, avr-gcc, riscv64-unknown-elf-gcc"
    )


def test_export_report(golf_tree: Path, tmp_path: Path) -> None:
    need("avr")
    need("m0plus")
    titles = [targets.target(n).title for n in targets.REPORT_TARGETS]
    reports = {}
    for mode, extra in (("float", ["--on", "avr"]), ("keys", ["--float-compare", "int"])):
        p = _cli("export", str(golf_tree), "-o", str(tmp_path / mode), "--report", *extra)
        assert p.returncode == 0, p.stderr
        rows = {}
        for line in p.stdout.splitlines():
            for title in titles:
                if line.startswith(title):
                    rows[title] = line[len(title) :].split()
        assert set(rows) == {
            t
            for t, n in zip(titles, targets.REPORT_TARGETS, strict=True)
            if targets.available(targets.target(n), run=False)
        }
        for title, cells in rows.items():
            flash, ram, stack = (int(c) for c in cells[:3])
            # The walk state alone is 8 bytes and two per level of depth (golf: 2).
            assert flash > 0 and ram == 0 and stack >= 8 + 2 * 2, (title, cells)
        reports[mode] = (p.stdout, rows)
    m0 = targets.target("m0plus").title
    # Soft-float compares on the M0+ for float input; none with --float-compare int.
    assert any(c.startswith("__aeabi_fcmp") for c in reports["float"][1][m0])
    assert not any("__aeabi" in c for c in reports["keys"][1][m0])
    avr_line = next(
        line
        for line in reports["float"][0].splitlines()
        if line.startswith(targets.target("avr").title)
    )
    m = re.search(r"cycles: min (\d+), median (\d+), max (\d+)$", avr_line)
    assert m and int(m.group(1)) <= int(m.group(2)) <= int(m.group(3)), avr_line


GOLF_VECTORS = np.array(
    [[0, 85, 85, 1], [1, 83, 78, 1], [2, 65, 70, 0], [0, 72, np.nan, 0]], dtype=np.float32
)
"""The rows of firmware_examples/golf_vectors.c."""


@pytest.mark.parametrize("target", TARGETS)
def test_the_makefiles_build_what_the_driver_builds(target: str, tmp_path: Path) -> None:
    t = need(target)
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    model = cm.golf()
    opts = ExportOptions(prefix="model")
    ir = lower(model, opts)
    files = emit(ir, "ifs")
    build = tmp_path / "build"
    build.mkdir()
    for name, text in files.items():
        (build / name).write_text(text)
    folder = examples_dir() / FAMILY_DIRS[t.family]
    args = ["make", "-s", "-f", str(folder / "Makefile"), f"PREDICT={build}", "PROBA=1", "run"]
    if not t.is_avr:
        args.append(f"TARGET={target}")
    p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    out = parse_output(p.stdout)
    assert out.meta["done"] == "4"
    # The same rows through the driver: the same classes, probabilities and counts, so the
    # Makefile and treegen.firmware build alike.
    run = run_vectors(ir, files, GOLF_VECTORS, t)
    assert run.ok, run.failure
    assert sorted(out.rows) == [0, 1, 2, 3]
    for i, (cls, count, proba) in out.rows.items():
        got = tuple(int(v) for v in proba)
        assert (cls, count, got) == (run.cls[i], run.count[i], tuple(run.proba[i]))
    cls, _ = FixedPointClassifier(model, ir.encoding).predict(GOLF_VECTORS)
    assert list(cls) == [1, 0, 1, 1] == [out.rows[i][0] for i in range(4)]


@pytest.mark.parametrize("name", ["host", "avr", "m0plus", "rv32imc"])
def test_stack_bound_follows_the_calls(name: str, tmp_path: Path) -> None:
    """The bound is the deepest chain of -fstack-usage frames, through the calls the
    relocations show; a call leaving the object is listed, not counted."""
    t = targets.target(name)
    missing = targets.missing_tools(t, run=False)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    (tmp_path / "s.c").write_text(
        "int helper(int);\n"
        "__attribute__((noinline)) static int leaf(int a) { volatile int b[8]; b[0] = a;"
        " return b[0]; }\n"
        "__attribute__((noinline)) static int mid(int a) { volatile int c[3]; c[0] = leaf(a);"
        " return c[0] + helper(a); }\n"
        "int m_predict(int a) { return mid(a) + 1; }\n"
        "int m_predict_proba(int a) { return leaf(a); }\n"
    )
    subprocess.run(
        [t.cc, *t.cflags, *targets.COMMON_CFLAGS, "-fstack-usage", "-c", "s.c"],
        cwd=tmp_path,
        check=True,
    )
    frames = {
        line.split("\t")[0].rsplit(":", 1)[1]: int(line.split("\t")[1])
        for line in (tmp_path / "s.su").read_text().splitlines()
    }
    bound, helpers = stack_bound(
        tmp_path / "s.o", tmp_path / "s.su", t, ("m_predict", "m_predict_proba")
    )
    assert bound == frames["m_predict"] + frames["mid"] + frames["leaf"]
    assert helpers == ("helper",)


def test_double_input_is_refused() -> None:
    t = need("m3")
    ir = lower(cm.golf(), ExportOptions(prefix="golf", input_type="double"))
    with pytest.raises(ToolError, match="not double"):
        run_vectors(ir, emit(ir, "ifs"), np.zeros((1, 4)), t)


def test_a_tree_too_big_for_the_flash_is_one_error() -> None:
    """5,723 nodes as a table: about 64 KB, twice the ATmega328P's flash."""
    t = need("avr")
    model = cm.synthetic(1, 60, spine=200)
    ir = lower(model, ExportOptions(prefix="big", style="table"))
    with pytest.raises(
        ToolError,
        match=r"avr: predict.c and the firmware do not fit in the "
        r"32768 bytes of flash \(region .text. overflowed",
    ):
        run_vectors(ir, emit(ir, "table"), comparison_inputs(ir, n_random=10), t)


def test_report_row_of_a_compiler_that_refuses_the_c(golf_tree: Path, tmp_path: Path) -> None:
    """double input: avr-gcc stops at predict.c's #error; that row says so, the others
    are measured, and the export succeeds."""
    if not targets.available(targets.target("avr"), run=False):
        pytest.skip("avr-gcc not installed")
    p = _cli(
        "export", str(golf_tree), "-o", str(tmp_path / "c"), "--input-type", "double", "--report"
    )
    assert p.returncode == 0, p.stderr
    avr = next(
        line for line in p.stdout.splitlines() if line.startswith(targets.target("avr").title)
    )
    assert re.search(
        r"\s- +- +- +does not compile: predict.c:\d+:\d+: error: #error \"double "
        r"is 32 bits",
        avr,
    ), avr
    host = next(line for line in p.stdout.splitlines() if line.startswith("host (gcc)"))
    assert int(host.split()[2]) > 0
