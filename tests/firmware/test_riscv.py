"""RISC-V (rv32imc, rv32imafc) beyond the matrix test_firmware.py runs on every chip.

* rv32imc has no F extension: no float instruction may be anywhere in its image (the
  code sections disassembled with every extension the disassembler knows, so an F
  instruction shows as one), while the rv32imafc image of the same float model compares
  with the FPU (``flt.s``/``fle.s``) and calls no soft-float helper;
* every input type and both model kinds (a tree, a ruleset) run there bit for bit;
* ``treegen verify --on rv32imc --on rv32imafc`` and ``export --report --on`` from the
  command line; a compiler without picolibc is one line naming the Debian packages.

Each test skips, naming the tools, where the RISC-V toolchain is not installed
(``.ci/run`` installs gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf and
qemu-system-misc).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.readers import read_dataset
from treegen.firmware import targets
from treegen.firmware.build import Firmware
from treegen.firmware.parity import verify_on
from treegen.firmware.sim import run_vectors
from treegen.model import Model
from treegen.model.file import save_model
from treegen.model.fixedpoint import FixedPointClassifier
from treegen.rules.file import save_ruleset
from treegen.rules.generate import generate
from treegen.trainer import TrainOptions, train
from treegen.verify.inputs import comparison_inputs

from support import codegen_models as cm
from support.sklearn_models import fit_setup

pytestmark = pytest.mark.toolchain

RV = ("rv32imc", "rv32imafc")


def need(name: str) -> targets.Target:
    t = targets.target(name)
    missing = targets.missing_tools(t)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian packages {t.packages})")
    return t


def code_mnemonics(elf: Path, tmp: Path) -> list[str]:
    """Every instruction of the image's code (.text: the linker script keeps read-only
    data out of it), as the disassembler's mnemonics.  The code is taken as a raw
    binary: an ELF's architecture attribute would make objdump decode only the
    extensions the ELF claims, and show an F instruction in an rv32imc image as a bare
    word; without it objdump decodes RV32GC, every F instruction included."""
    raw = tmp / (elf.stem + ".text.bin")
    subprocess.run(
        ["riscv64-unknown-elf-objcopy", "-O", "binary", "-j", ".text", str(elf), str(raw)],
        check=True,
    )
    out = subprocess.run(
        ["riscv64-unknown-elf-objdump", "-D", "-b", "binary", "-m", "riscv:rv32", str(raw)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [line.split("\t") for line in out.splitlines() if re.match(r"\s+[0-9a-f]+:\t", line)]
    return [parts[2].strip() for parts in lines if len(parts) >= 3]


def is_float_instruction(mnemonic: str) -> bool:
    """An F or D extension instruction (every one starts with 'f' but the fences), or a
    read or write of the float CSRs (frcsr, fscsr, ... are 'f' aliases already)."""
    return mnemonic.startswith("f") and not mnemonic.startswith("fence")


def _image(target: str, opts: ExportOptions, model: Model, tmp: Path) -> Path:
    """Run the tree ``model`` exported with ``opts`` on ``target`` (it must agree with
    the fixed-point model on every row) and return the ELF that ran."""
    ir = lower(model, opts)
    X = comparison_inputs(ir, n_random=40)
    work = tmp / target
    run = run_vectors(ir, emit(ir, opts.style or "ifs"), X, targets.target(target), workdir=work)
    assert run.ok, run.failure
    cls, proba = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(run.cls, cls) and np.array_equal(run.proba, proba)
    return work / "vectors0.elf"


MODES = {
    "float": {},
    "keys": {"float_compare": "int"},
    "int16": {"input_type": "int16"},
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("style", ["ifs", "table"])
def test_no_float_instruction_anywhere_in_the_rv32imc_image(
    style: str, mode: str, tmp_path: Path
) -> None:
    need("rv32imc")
    model = cm.synthetic(5, 120)
    opts = ExportOptions(prefix="syn", style=style, **MODES[mode])  # type: ignore[arg-type]
    ops = code_mnemonics(_image("rv32imc", opts, model, tmp_path), tmp_path)
    assert len(ops) > 500  # the whole firmware: crt0, libc, libgcc, the harness, predict
    assert [op for op in ops if is_float_instruction(op)] == []
    assert not [op for op in ops if op.startswith((".", "0x"))]  # every word decoded


def test_the_check_sees_float_instructions_where_there_are(tmp_path: Path) -> None:
    """The same disassembly of the rv32imafc image: the FPU's compares and loads are
    there (so an rv32imc image without them has none, not undecoded ones)."""
    need("rv32imafc")
    ops = code_mnemonics(
        _image("rv32imafc", ExportOptions(prefix="syn"), cm.synthetic(5, 120), tmp_path),
        tmp_path,
    )
    found = {op for op in ops if is_float_instruction(op)}
    assert {"flt.s", "fle.s"} & found and "flw" in found, found


@pytest.mark.parametrize("style", ["ifs", "table"])
def test_rv32imafc_compares_floats_with_the_fpu_by_default(style: str, tmp_path: Path) -> None:
    """A float model exported with the default options: predict.o compares with
    flt.s/fle.s/feq.s and calls no soft-float helper, where rv32imc's calls libgcc's."""
    need("rv32imafc")
    need("rv32imc")
    model = cm.synthetic(5, 120)
    opts = ExportOptions(prefix="syn", style=style)
    ir = lower(model, opts)
    X = comparison_inputs(ir, n_random=40)
    runs = {
        name: run_vectors(ir, emit(ir, style), X, targets.target(name), workdir=tmp_path / name)
        for name in RV
    }
    for run in runs.values():
        assert run.ok, run.failure
    assert runs["rv32imafc"].predict.helpers == ()
    assert any(h.endswith("sf2") for h in runs["rv32imc"].predict.helpers)
    asm = subprocess.run(
        ["riscv64-unknown-elf-objdump", "-d", str(tmp_path / "rv32imafc" / "predict.o")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"\t(flt|fle|feq)\.s\t", asm), asm[:2000]


INPUT_TYPES = ["float", "int8", "uint8", "int16", "uint16", "int32", "uint32"]


@pytest.mark.parametrize("target", RV)
@pytest.mark.parametrize("itype", INPUT_TYPES)
def test_every_input_type(itype: str, target: str) -> None:
    """Subsets, empty leaves, negative, zero and subnormal thresholds in every input
    type: classes and probabilities equal the fixed-point model's."""
    t = need(target)
    model = cm.synthetic(5, 120)
    kw = {} if itype == "float" else {"input_type": itype}
    for style in ("ifs", "table"):
        ir = lower(model, ExportOptions(prefix="syn", style=style, **kw))  # type: ignore[arg-type]
        X = comparison_inputs(ir, n_random=100)
        run = run_vectors(ir, emit(ir, style), X, t)
        assert run.ok, run.failure
        cls, proba = FixedPointClassifier(model, ir.encoding).predict(X)
        assert np.array_equal(run.cls, cls)
        assert np.array_equal(run.proba, proba)


@pytest.fixture(scope="module")
def hypo_rules(reference_dir: Path):  # type: ignore[no-untyped-def]
    ds = read_dataset(str(reference_dir / "hypo" / "hypo.data"))
    return generate(ds, train(ds, TrainOptions(prune=False)))[1], ds


@pytest.mark.parametrize("target", RV)
@pytest.mark.parametrize(
    "kw",
    [{}, {"float_compare": "int"}, {"input_type": "int16", "scale": Fraction(10)}],
    ids=["float", "keys", "int16"],
)
def test_a_ruleset_on_the_chip(hypo_rules, target: str, kw: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    need(target)
    rules, ds = hypo_rules
    res = verify_on(rules, ExportOptions(prefix="hypo", **kw), [ds], [target], n_random=100)  # type: ignore[arg-type]
    assert res.runs[target].ok, res.runs[target].failure
    assert res.report.ok, res.report.text()
    assert res.report.rows == res.rows.shape[0] > ds.n_rows


def _cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "treegen", *argv],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=300,
    )


def test_verify_and_report_on_the_command_line(tmp_path: Path, reference_dir: Path) -> None:
    for name in RV:
        need(name)
    tree = tmp_path / "golf.tree"
    save_model(cm.golf(), tree)
    rules = tmp_path / "hypo.rules"
    ds = read_dataset(str(reference_dir / "hypo" / "hypo.data"))
    save_ruleset(generate(ds, train(ds, TrainOptions(prune=False)))[1], rules)
    for model in (tree, rules):
        p = _cli("verify", str(model), "--on", "rv32imc", "--on", "rv32imafc", "--random", "40")
        assert p.returncode == 0, p.stdout + p.stderr
        for name in RV:
            assert re.search(
                rf"^{name}: RV32IMA?F?C \(riscv64-unknown-elf-gcc\), 1 image\(s\), firmware "
                rf"\d+ bytes of flash; instructions per prediction: min \d+, median \d+, "
                r"max \d+$",
                p.stdout,
                re.M,
            ), p.stdout
        assert re.search(r"^\d+ passed, 0 failed$", p.stdout, re.M)
    p = _cli("export", str(tree), "-o", str(tmp_path / "c"), "--report", "--on", "rv32imc")
    assert p.returncode == 0, p.stderr
    rows = {line.split("  ")[0]: line for line in p.stdout.splitlines() if line.startswith("RV32")}
    assert set(rows) == {"RV32IMC (riscv64-unknown-elf-gcc)", "RV32IMAFC (riscv64-unknown-elf-gcc)"}
    imc = rows["RV32IMC (riscv64-unknown-elf-gcc)"]
    assert "__lesf2" in imc and re.search(r"instructions: min \d+, median \d+, max \d+$", imc)
    imafc = rows["RV32IMAFC (riscv64-unknown-elf-gcc)"]
    assert "sf2" not in imafc and "instructions" not in imafc  # measured, not run


def test_a_compiler_without_picolibc_is_one_line(tmp_path: Path) -> None:
    """gcc-riscv64-unknown-elf alone has no C library: the compiler is found but not
    picolibc's specs file, and the error names the packages."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "riscv64-unknown-elf-gcc"
    # Like gcc asked for a file it does not have: it prints the bare name back.
    fake.write_text('#!/bin/sh\necho "${1#-print-file-name=}"\n')
    fake.chmod(0o755)
    tree = tmp_path / "golf.tree"
    save_model(cm.golf(), tree)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    p = _cli("verify", str(tree), "--on", "rv32imc", env=env)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.splitlines() == [
        "treegen: error: --on: rv32imc: picolibc.specs not found (install the Debian "
        "packages gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gcc)"
    ]


def test_the_check_finds_one_float_instruction_in_an_rv32imc_image(tmp_path: Path) -> None:
    """predict.c with one fadd.s (as a raw word: the rv32imc assembler has no F) links
    for rv32imc; the disassembly finds exactly that instruction."""
    t = need("rv32imc")
    ir = lower(cm.golf(), ExportOptions(prefix="golf"))
    files = dict(emit(ir, "ifs"))
    head = "int golf_predict(const golf_input_t *x)\n{\n"
    assert head in files["predict.c"]
    files["predict.c"] = files["predict.c"].replace(
        head, head + '    __asm__ volatile(".4byte 0x00000053");\n'
    )
    fw = Firmware(t, ir, files, tmp_path / "fw")
    elf = fw.link(comparison_inputs(ir, n_random=5), 0, "tampered")
    ops = code_mnemonics(elf, tmp_path)
    assert [op for op in ops if is_float_instruction(op)] == ["fadd.s"]


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("forest", {}),
        ("binary_boosting", {}),
        ("hist", {}),
        ("binary_adaboost", {"float_compare": "int"}),
        ("boosting", {"input_type": "int16", "scale": 10}),
    ],
)
def test_an_ensemble_on_both_cores(name: str, mode: dict[str, object]) -> None:
    """The third kind: its float64 arithmetic in libgcc's soft double on both cores
    (rv32imafc has F, not D), every row equal to the numpy arithmetic."""
    for chip in RV:
        need(chip)
    pytest.importorskip("sklearn")
    opts = ExportOptions(prefix="e", **mode)  # type: ignore[arg-type]
    result = verify_on(fit_setup(name), opts, [], list(RV), n_random=200)
    assert result.report.ok, result.report.text()
    assert set(result.runs) == set(RV)
    assert all(run.ok and run.done.all() for run in result.runs.values())
