"""Every generated file compiles with zero warnings: gcc and clang under -std=c99 and
-std=c89 with strict flags at -O0 and -O3 (some warnings only appear when the
optimizer inlines and unrolls), the header as C++ (g++), arm-none-eabi-gcc for a
Cortex-M0+, avr-gcc for an ATmega328P and riscv64-unknown-elf-gcc (with picolibc's
headers) for RV32IMC and RV32IMAFC.  Variants are generated once per module and each
compiler runs over all of them; a missing tool skips with its name."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.rules.ccode import emit_ruleset, lower_ruleset
from treegen.rules.generate import rules_of_data
from treegen.trainer import TrainOptions, train
from treegen.verify.build import STRICT_FLAGS

from support import codegen_models as cm
from support.modes import CORE, LEAN, STYLES, modes
from support.strict import firmware_warnings

# Cross compilers and clang, with every strict flag: the toolchain set.
pytestmark = pytest.mark.toolchain

# The promised flags, without the standard (each compile below names its own).
STRICT = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
MODES = modes((*CORE, "uint32", "int8", *LEAN))


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> folder holding predict.c / predict.h."""
    out: dict[str, Path] = {}
    # syn45: c45 semantics put rounding-boundary literals in double and integer modes.
    models = {
        "golf": cm.golf(),
        "syn": cm.synthetic(5, 120),
        "tiny": cm.tiny(),
        "leaf": cm.single_leaf(),
        "syn45": cm.as_c45(cm.synthetic(5, 120)),
        "stump": cm.stump(),
    }
    for mname, model in models.items():
        for mode, kw in MODES.items():
            if mname != "golf" and mode.endswith("fixed"):
                continue  # its thresholds include 1e30: that scale overflows by design
            for style in STYLES:
                ir = lower(model, ExportOptions(prefix=f"{mname}_{mode}", style=style, **kw))  # type: ignore[arg-type]
                d = tmp_path_factory.mktemp(f"{mname}-{mode}-{style}")
                for name, text in emit(ir, style).items():
                    (d / name).write_text(text)
                out[f"{mname}-{mode}-{style}"] = d
    return out


def _mode(variant: str) -> str:
    """The export mode of a variant named MODEL-MODE-STYLE."""
    return variant.split("-")[1]


def _compile(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return "" if r.returncode == 0 and not r.stderr.strip() else (r.stderr or "failed")[:2000]


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
@pytest.mark.parametrize("std", ["c99", "c89"])
@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.slow
def test_host_compilers_strict(variants: dict[str, Path], cc: str, std: str, opt: str) -> None:
    exe = _need(cc)
    errors = {
        name: _compile(
            [
                exe,
                f"-std={std}",
                opt,
                *STRICT,
                "-c",
                str(d / "predict.c"),
                "-o",
                str(d / f"{cc}-{std}{opt}.o"),
            ]
        )
        for name, d in variants.items()
    }
    assert {k: v for k, v in errors.items() if v} == {}


def test_class_names_behind_macro(variants: dict[str, Path]) -> None:
    exe = _need("gcc")
    d = variants["tiny-float-ifs"]
    assert (
        _compile([exe, "-std=c89", *STRICT, "-c", str(d / "predict.c"), "-o", str(d / "plain.o")])
        == ""
    )
    plain = subprocess.run(
        ["nm", str(d / "plain.o")], capture_output=True, text=True, check=False
    ).stdout
    assert "tiny_float_predict" in plain
    assert "tiny_float_class_names" not in plain
    obj = d / "names.o"
    assert (
        _compile(
            [
                exe,
                "-std=c89",
                *STRICT,
                "-DTINY_FLOAT_WANT_CLASS_NAMES",
                "-c",
                str(d / "predict.c"),
                "-o",
                str(obj),
            ]
        )
        == ""
    )
    names = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=False).stdout
    assert "tiny_float_class_names" in names


def test_header_as_cxx(variants: dict[str, Path]) -> None:
    exe = _need("g++")
    errors = {}
    for name, d in variants.items():
        errors[name] = _compile(
            [
                exe,
                "-x",
                "c++",
                "-std=c++11",
                "-Wall",
                "-Wextra",
                "-pedantic",
                "-Werror",
                "-fsyntax-only",
                str(d / "predict.h"),
            ]
        )
    assert {k: v for k, v in errors.items() if v} == {}


@pytest.mark.parametrize("cc", ["gcc", "arm-none-eabi-gcc"])
def test_firmware_warning_set(variants: dict[str, Path], cc: str) -> None:
    exe = _need(cc)
    target = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
    errors = {
        name: _compile(
            [
                exe,
                *(target if cc.startswith("arm") else []),
                "-Os",
                "-std=c99",
                *STRICT,
                *firmware_warnings(cc),
                "-c",
                str(d / "predict.c"),
                "-o",
                str(d / "fw.o"),
            ]
        )
        for name, d in variants.items()
    }
    assert {k: v for k, v in errors.items() if v} == {}


def test_cross_cortex_m0plus(variants: dict[str, Path]) -> None:
    exe = _need("arm-none-eabi-gcc")
    errors = {
        name: _compile(
            [
                exe,
                "-mcpu=cortex-m0plus",
                "-mthumb",
                "-Os",
                "-std=c99",
                *STRICT,
                "-c",
                str(d / "predict.c"),
                "-o",
                str(d / "arm.o"),
            ]
        )
        for name, d in variants.items()
    }
    assert {k: v for k, v in errors.items() if v} == {}


RISCV = {
    "rv32imc": ["-march=rv32imc", "-mabi=ilp32"],
    "rv32imafc": ["-march=rv32imafc", "-mabi=ilp32f"],
}


def _need_riscv() -> str:
    exe = _need("riscv64-unknown-elf-gcc")
    # Without a C library the compiler has no <stdint.h>: picolibc's specs bring it.
    found = subprocess.run(
        [exe, "-print-file-name=picolibc.specs"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if found == "picolibc.specs":
        pytest.skip("picolibc is not installed (picolibc-riscv64-unknown-elf)")
    return exe


@pytest.mark.parametrize("arch", sorted(RISCV))
def test_cross_riscv(variants: dict[str, Path], arch: str) -> None:
    exe = _need_riscv()
    errors = {
        name: _compile(
            [
                exe,
                *RISCV[arch],
                "--specs=picolibc.specs",
                "-Os",
                "-std=c99",
                *STRICT,
                "-c",
                str(d / "predict.c"),
                "-o",
                str(d / f"{arch}.o"),
            ]
        )
        for name, d in variants.items()
    }
    assert {k: v for k, v in errors.items() if v} == {}


def test_cross_avr(variants: dict[str, Path]) -> None:
    exe = _need("avr-gcc")
    errors = {}
    for name, d in variants.items():
        cmd = [
            exe,
            "-mmcu=atmega328p",
            "-Os",
            "-std=c99",
            *STRICT,
            "-c",
            str(d / "predict.c"),
            "-o",
            str(d / "avr.o"),
        ]
        if _mode(name).endswith("double"):
            # double is 32 bits there: the file refuses to compile, saying why.
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            assert r.returncode != 0 and "--input-type float" in r.stderr
            continue
        errors[name] = _compile(cmd)
    assert {k: v for k, v in errors.items() if v} == {}


@pytest.mark.parametrize(
    "tool,flags,pattern",
    [
        ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb"], "__aeabi_f"),
        ("avr-gcc", ["-mmcu=atmega328p"], "sf2"),
        ("riscv64-unknown-elf-gcc", [*RISCV["rv32imc"], "--specs=picolibc.specs"], "sf2"),
        # With the FPU: its compares (a key is read with flw and fmv.x.w: no compare).
        (
            "riscv64-unknown-elf-gcc",
            [*RISCV["rv32imafc"], "--specs=picolibc.specs"],
            r"\tf(lt|le|eq)\.s\t",
        ),
    ],
)
def test_float_compare_int_uses_no_float_operation(
    variants: dict[str, Path], tool: str, flags: list[str], pattern: str
) -> None:
    exe = _need_riscv() if tool.startswith("riscv") else _need(tool)
    for name, d in variants.items():
        if _mode(name).endswith("double"):
            continue
        asm = subprocess.run(
            [exe, *flags, "-Os", "-S", "-o", "-", str(d / "predict.c")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        uses_float = re.search(pattern, asm) is not None
        if _mode(name) in ("keys", "lean_keys"):
            assert not uses_float, name
        elif _mode(name).startswith(("float", "lean_float")) and not name.startswith("leaf-"):
            assert uses_float, name  # the check can see soft-float calls when they exist


def test_no_libc_call_with_loop_patterns_off(tmp_path: Path) -> None:
    """What ``export --help`` says of a build with no C library: with
    -fno-tree-loop-distribute-patterns the object needs only libgcc's helpers (names
    beginning "__"), even where gcc would call memset/memcpy for the loops over 12
    classes; the same for a ruleset."""
    exe = _need("arm-none-eabi-gcc")
    X = np.repeat(np.arange(12.0), 3)[:, None]
    ds = Dataset(
        Schema((Attribute("x", "continuous"),), tuple(f"c{i}" for i in range(12)), "y"),
        X,
        (X[:, 0]).astype(np.int32),
    )
    tree = train(ds, TrainOptions(min_cases=1, prune=False, criterion="gain"))
    files = {
        f"tree-{style}": emit(lower(tree, ExportOptions(prefix="k", style=style)), style)
        for style in STYLES
    }
    rules = rules_of_data(ds, min_cases=1)[1]
    files["rules"] = emit_ruleset(lower_ruleset(rules, ExportOptions(prefix="k")))
    for name, texts in files.items():
        d = tmp_path / name
        d.mkdir()
        for fname, text in texts.items():
            (d / fname).write_text(text)
        for cpu in ("cortex-m0", "cortex-m4"):
            flags = [f"-mcpu={cpu}", "-mthumb", "-Os", "-fno-tree-loop-distribute-patterns"]
            obj = d / f"{cpu}.o"
            subprocess.run([exe, *flags, "-c", str(d / "predict.c"), "-o", str(obj)], check=True)
            nm = subprocess.run(
                ["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True, check=True
            ).stdout
            undefined = [line.split()[-1] for line in nm.splitlines() if line.strip()]
            assert all(u.startswith("__") for u in undefined), (name, cpu, undefined)


def test_avr_tables_are_in_flash(variants: dict[str, Path]) -> None:
    exe = _need("avr-gcc")
    d = variants["syn-float-table"]
    obj = d / "avr-flash.o"
    subprocess.run(
        [exe, "-mmcu=atmega328p", "-Os", "-c", str(d / "predict.c"), "-o", str(obj)], check=True
    )
    size = subprocess.run(
        ["avr-size", "-A", str(obj)], capture_output=True, text=True, check=True
    ).stdout
    sections = {
        line.split()[0]: int(line.split()[1]) for line in size.splitlines() if line.startswith(".")
    }
    assert sections.get(".data", 0) == 0 and sections.get(".rodata", 0) == 0
    assert sections[".progmem.data"] > 0


def test_two_models_link_into_one_program(variants: dict[str, Path], tmp_path: Path) -> None:
    exe = _need("gcc")
    a, b = variants["golf-float-ifs"], variants["syn-int16-table"]
    main = tmp_path / "main.c"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    main.write_text(
        '#include "a/predict.h"\n#include "b/predict.h"\n'
        "int main(void) {\n    float x[GOLF_FLOAT_N_FEATURES] = {0};\n"
        "    int16_t y[SYN_INT16_N_FEATURES] = {0};\n"
        "    return golf_float_predict(x) + syn_int16_predict(y) >= 0 ? 0 : 1;\n}\n"
    )
    for src, dst in ((a, "a"), (b, "b")):
        shutil.copy(src / "predict.h", tmp_path / dst / "predict.h")
    out = tmp_path / "prog"
    r = subprocess.run(
        [
            exe,
            "-std=c99",
            *STRICT,
            "-I",
            str(tmp_path),
            str(main),
            str(a / "predict.c"),
            "-I",
            str(a),
            str(b / "predict.c"),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # each predict.c includes "predict.h" from its own folder
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(out)], check=False).returncode == 0


def test_big_tree_compiles(tmp_path: Path) -> None:
    exe = _need("gcc")
    model = cm.synthetic(2, 50, spine=230)
    for style in ("ifs", "table"):
        ir = lower(model, ExportOptions(prefix="big", style=style))
        d = tmp_path / style
        d.mkdir()
        for name, text in emit(ir, style).items():
            (d / name).write_text(text)
        start = time.perf_counter()
        assert (
            _compile(
                [exe, "-std=c99", "-O2", *STRICT, "-c", str(d / "predict.c"), "-o", str(d / "p.o")]
            )
            == ""
        )
        print(f"gcc -O2 {style} {model.size} nodes: {time.perf_counter() - start:.2f}s")
        if style == "table" and shutil.which("avr-gcc"):
            assert (
                _compile(
                    [
                        "avr-gcc",
                        "-mmcu=atmega328p",
                        "-Os",
                        "-std=c99",
                        *STRICT,
                        "-c",
                        str(d / "predict.c"),
                        "-o",
                        str(d / "avr.o"),
                    ]
                )
                == ""
            )
