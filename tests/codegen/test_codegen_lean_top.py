"""The lean table's inline top (``--inline-top``): the most reached tests as nested ifs,
the rest of the walk in the table.

The top is the ``N`` tests with the highest training reach (product of the shares on
the path), a connected part from the root; the C gives the oracle's class with the
top compiled in (``PREFIX_INLINE_TOP`` 1, the default off AVR) and left out (0, the
default on AVR), for every input mode and for budgets from none to every test; both
settings compile warning-free everywhere; the option's misuse is a one-line error.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from treegen.codegen.emit import emit
from treegen.codegen.ir import IR, Compare, Member
from treegen.codegen.lean import default_inline_top, hot_tests
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.errors import TreegenError
from treegen.firmware import targets
from treegen.kinds.check import verify
from treegen.model.core import Model
from treegen.model.file import save_model
from treegen.model.fixedpoint import W_ONE
from treegen.verify.build import STRICT_FLAGS, have_compiler

from support import codegen_models as cm
from support.cli import run_cli
from support.modes import EXPORT_MODES

pytestmark = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")

MODELS = {
    "golf": cm.golf,
    "syn": lambda: cm.synthetic(5, 120),
    "c45": lambda: cm.as_c45(cm.synthetic(3, 200)),
    "deep": lambda: cm.synthetic(2, 50, spine=230),
}


def _lean(model: Model, mode: str = "lean_float", **kw: object) -> IR:
    opts = ExportOptions(prefix="m", style="table", **{**EXPORT_MODES[mode], **kw})  # type: ignore[arg-type]
    return lower(model, opts)


def _reach(ir: IR) -> dict[int, float]:
    """Each test's training reach, from the root down (the IR is in pre-order)."""
    reach = {0: 1.0}
    for i, node in enumerate(ir.nodes):
        if isinstance(node, Compare | Member):
            for child, share in zip(node.children, node.shares, strict=True):
                reach[child] = reach[i] * share / W_ONE
    return {i: r for i, r in reach.items() if isinstance(ir.nodes[i], Compare | Member)}


@pytest.mark.parametrize("which", sorted(MODELS))
def test_hot_tests_are_the_most_reached_connected_tests(which: str) -> None:
    ir = _lean(MODELS[which]())
    reach = _reach(ir)
    parent = {
        c: i for i, n in enumerate(ir.nodes) if isinstance(n, Compare | Member) for c in n.children
    }
    n = len(reach)
    assert n > 0 and len({r for r in reach.values()}) > 1  # shares really differ
    for budget in sorted({0, 1, 3, default_inline_top(n), n // 2, n, n + 5}):
        hot = hot_tests(ir, budget)
        assert len(hot) == min(budget, n)
        assert all(i == 0 or parent[i] in hot for i in hot)  # connected from the root
        if hot and len(hot) < n:
            assert min(reach[i] for i in hot) >= max(r for i, r in reach.items() if i not in hot)
        assert hot_tests(ir, budget) == hot  # the model alone decides


def test_default_inline_top_is_a_quarter_beyond_32_tests() -> None:
    assert [default_inline_top(n) for n in (0, 7, 32, 35, 36, 146, 254, 3078)] == [
        0,
        0,
        0,
        0,
        1,
        28,
        55,
        761,
    ]


def _functions(text: str) -> tuple[int, int]:
    """(ifs in the inline top, handovers to the table) of a lean table's predict.c."""
    top = text[text.index("#if M_INLINE_TOP\n") :] if "#if M_INLINE_TOP\n" in text else ""
    return len(re.findall(r"^\s+if \(", top, re.M)), len(re.findall(r"m_walk\(x, \d+u\); /\*", top))


@pytest.mark.parametrize("which", sorted(MODELS))
def test_inline_top_holds_the_hot_tests_and_zero_is_the_plain_table(which: str) -> None:
    model = MODELS[which]()
    plain = emit(_lean(model, inline_top=0), "table")["predict.c"]
    assert "INLINE_TOP" not in plain and "m_top0" not in plain
    n = len(_reach(_lean(model)))
    for budget, want in ((None, default_inline_top(n)), (1, 1), (7, min(7, n))):
        text = emit(_lean(model, inline_top=budget), "table")["predict.c"]
        if want == 0:  # a small tree's default: the table alone
            assert text == plain
            continue
        ifs, handovers = _functions(text)
        assert ifs == want, budget
        assert (handovers >= 1) == (want < n)  # the rest of the walk is in the table
        assert f"the {want} tests" in text
        # The table itself is unchanged: the same rows as without a top.
        assert (
            text[text.index("m_code[") :].split("};")[0]
            == plain[plain.index("m_code[") :].split("};")[0]
        )
    whole = emit(_lean(model, inline_top=n), "table")["predict.c"]
    assert _functions(whole) == (n, 0)
    assert "#if !M_INLINE_TOP" in whole  # the table is only for the top left out


CASES = [
    (which, mode, budget)
    for which in sorted(MODELS)
    for mode in ("lean_float", "lean_keys", "lean_int16", "lean_float_proba")
    for budget in (None, 1, 10_000)
    # The deep tree (230 chained tests) is slow to verify: its cases are the default.
    if which != "deep" or (budget is None and mode in ("lean_float", "lean_keys"))
]


@pytest.mark.parametrize("macro", [0, 1])
@pytest.mark.parametrize(("which", "mode", "budget"), CASES)
def test_inline_top_on_and_off_give_the_oracle_class(
    which: str, mode: str, budget: int | None, macro: int, tmp_path: Path
) -> None:
    opts = ExportOptions(prefix="m", style="table", inline_top=budget, **EXPORT_MODES[mode])  # type: ignore[arg-type]
    report = verify(
        MODELS[which](), opts, n_random=300, workdir=tmp_path, cc=f"gcc -DM_INLINE_TOP={macro}"
    )
    assert report.rows > 50
    assert report.failed_rows == 0, report.text()


def _compile(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return "" if r.returncode == 0 and not r.stderr.strip() else (r.stderr or "failed")[:2000]


STRICT = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
COMPILERS = {
    "gcc-c89": ["gcc", "-std=c89", "-O2"],
    "gcc-c99": ["gcc", "-std=c99", "-O3"],
    "clang-c89": ["clang", "-std=c89", "-O2"],
    "clang-c99": ["clang", "-std=c99", "-O3"],
    "m0plus": ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb", "-Os", "-std=c99"],
    "avr": ["avr-gcc", "-mmcu=atmega328p", "-Os", "-std=c99"],
    "rv32imc": [
        "riscv64-unknown-elf-gcc",
        "-march=rv32imc",
        "-mabi=ilp32",
        "--specs=picolibc.specs",
        "-Os",
        "-std=c99",
    ],
}


STRICT_CASES = [
    *(
        ("syn", mode, budget)
        for mode in ("lean_float", "lean_keys", "lean_int16", "lean_float_proba")
        for budget in (None, 10_000)
    ),
    ("deep", "lean_float", None),
]


@pytest.mark.parametrize("compiler", sorted(COMPILERS))
@pytest.mark.toolchain
def test_both_settings_compile_strict(compiler: str, tmp_path: Path) -> None:
    cmd = COMPILERS[compiler]
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} is not installed")
    if compiler.startswith("rv32") and targets.missing_tools(targets.target(compiler), run=False):
        pytest.skip("picolibc is not installed (picolibc-riscv64-unknown-elf)")
    errors = {}
    for which, mode, budget in STRICT_CASES:
        d = tmp_path / f"{which}-{mode}-{budget}"
        d.mkdir()
        for name, text in emit(_lean(MODELS[which](), mode, inline_top=budget), "table").items():
            (d / name).write_text(text)
        for macro in (0, 1):
            errors[f"{d.name}-{macro}"] = _compile(
                [
                    *cmd,
                    *STRICT,
                    f"-DM_INLINE_TOP={macro}",
                    "-c",
                    str(d / "predict.c"),
                    "-o",
                    str(d / f"{macro}.o"),
                ]
            )
    assert {k: v for k, v in errors.items() if v} == {}


def test_option_misuse_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    out = str(tmp_path / "out")
    for extra in (["--style", "ifs", "--missing", "none"], ["--style", "table"]):
        code, _, err = run_cli(capsys, "export", str(path), "-o", out, "--inline-top", "2", *extra)
        assert code == 2 and err.count("\n") == 1, err
        assert "--inline-top" in err and "--style table with --missing none" in err
    code, _, err = run_cli(
        capsys,
        "export",
        str(path),
        "-o",
        out,
        "--style",
        "table",
        "--missing",
        "none",
        "--inline-top",
        "-1",
    )
    assert code == 2 and "negative" in err and "Traceback" not in err
    assert not Path(out).exists()
    with pytest.raises(TreegenError, match="negative"):
        ExportOptions(style="table", missing="none", inline_top=-1)
