"""The simulated chips (and the host compiler the size report adds), and finding their tools.

Three families, each with its firmware in ``firmware_examples/``: the ATmega328P
(``avr``, simavr), Cortex-M (``m0plus``, ``m3``, ``m4f``, qemu-system-arm) and RV32
(``rv32imc``, ``rv32imafc``, qemu-system-riscv32 with picolibc).  Every tool is looked
up on ``PATH`` when it is needed (picolibc through the compiler, which finds its
specs file); a missing one is a :class:`~treegen.errors.ToolError` naming the Debian
packages that provide it, so the CLI prints one line such as ``treegen: error: --on
avr: avr-gcc not found (install the Debian packages gcc-avr avr-libc simavr)``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

from treegen.errors import ToolError

Family = Literal["", "avr", "cortex-m", "riscv"]


@dataclass(frozen=True, slots=True)
class Target:
    """One way to compile predict.c, and (``machine``) where to run the result."""

    name: str  # --on NAME
    title: str  # for tables
    cc: str  # compiler
    binutils: str  # prefix of size / objdump / nm ("" for the host's)
    cflags: tuple[str, ...]  # code generation flags, for the compile and the link
    packages: str  # Debian packages with the compiler and the simulator
    simulator: str = ""  # "" for the host (size report only)
    machine: str = ""  # qemu -M, or simavr -m
    linker_script: str = ""  # qemu targets: in their firmware_examples/ folder
    flash: int = 0  # bytes the firmware may use
    ram: int = 0
    rodata_in_ram: bool = False  # AVR: plain const data is copied to SRAM at start-up
    unit: str = "instructions"  # what the firmware's count means
    family: Family = ""  # the firmware (firmware_examples/ folder); "" for the host
    cpu: str = ""  # qemu -cpu: exactly the extensions the code is built for (RISC-V)
    specs: str = ""  # a gcc specs file the C library brings (--specs=, in cflags)

    @property
    def is_avr(self) -> bool:
        return self.family == "avr"

    def tool(self, name: str) -> str:
        return f"{self.binutils}{name}"


_ARM = "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc"
_RISCV = "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gcc"

TARGETS: dict[str, Target] = {
    "avr": Target(
        "avr",
        "ATmega328P (avr-gcc)",
        "avr-gcc",
        "avr-",
        ("-mmcu=atmega328p",),
        "gcc-avr avr-libc simavr",
        "simavr",
        "atmega328p",
        flash=32 * 1024,
        ram=2 * 1024,
        rodata_in_ram=True,
        unit="cycles",
        family="avr",
    ),
    "m0plus": Target(
        "m0plus",
        "Cortex-M0+ (arm-none-eabi-gcc)",
        "arm-none-eabi-gcc",
        "arm-none-eabi-",
        ("-mcpu=cortex-m0plus", "-mthumb"),
        _ARM,
        "qemu-system-arm",
        "microbit",
        "microbit.ld",
        256 * 1024,
        16 * 1024,
        family="cortex-m",
    ),
    "m3": Target(
        "m3",
        "Cortex-M3 (arm-none-eabi-gcc)",
        "arm-none-eabi-gcc",
        "arm-none-eabi-",
        ("-mcpu=cortex-m3", "-mthumb"),
        _ARM,
        "qemu-system-arm",
        "mps2-an385",
        "mps2.ld",
        4 * 1024 * 1024,
        4 * 1024 * 1024,
        family="cortex-m",
    ),
    "m4f": Target(
        "m4f",
        "Cortex-M4F (arm-none-eabi-gcc)",
        "arm-none-eabi-gcc",
        "arm-none-eabi-",
        ("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
        _ARM,
        "qemu-system-arm",
        "mps2-an386",
        "mps2.ld",
        4 * 1024 * 1024,
        4 * 1024 * 1024,
        family="cortex-m",
    ),
    # RV32 on qemu's virt machine; the qemu CPU has only the extensions the code is
    # built for, so a float instruction on rv32imc traps instead of running.
    "rv32imc": Target(
        "rv32imc",
        "RV32IMC (riscv64-unknown-elf-gcc)",
        "riscv64-unknown-elf-gcc",
        "riscv64-unknown-elf-",
        ("-march=rv32imc", "-mabi=ilp32", "--specs=picolibc.specs"),
        _RISCV,
        "qemu-system-riscv32",
        "virt",
        "virt.ld",
        4 * 1024 * 1024,
        4 * 1024 * 1024,
        family="riscv",
        cpu="rv32,f=false,d=false,a=false",
        specs="picolibc.specs",
    ),
    "rv32imafc": Target(
        "rv32imafc",
        "RV32IMAFC (riscv64-unknown-elf-gcc)",
        "riscv64-unknown-elf-gcc",
        "riscv64-unknown-elf-",
        ("-march=rv32imafc", "-mabi=ilp32f", "--specs=picolibc.specs"),
        _RISCV,
        "qemu-system-riscv32",
        "virt",
        "virt.ld",
        4 * 1024 * 1024,
        4 * 1024 * 1024,
        family="riscv",
        cpu="rv32,d=false",
        specs="picolibc.specs",
    ),
}
"""The ``--on`` targets: the chips the firmware examples run on."""

HOST = Target("host", "host (gcc)", "gcc", "", (), "gcc binutils")
"""The machine treegen runs on: only in the size report."""

REPORT_TARGETS = ("host", "m0plus", "m4f", "avr", "rv32imc", "rv32imafc")
"""The compilers ``export --report`` tries, in this order (each when installed)."""

# Flags every build of predict.c uses: the size report and the firmware measure the
# same object.  Function and data sections let the firmware link drop what it does
# not call, and give the stack analysis one section per function.
COMMON_CFLAGS = ("-Os", "-std=c99", "-ffunction-sections", "-fdata-sections")


def target(name: str) -> Target:
    if name == "host":
        return HOST
    try:
        return TARGETS[name]
    except KeyError:
        raise ToolError(
            f"unknown target {name!r} (choose from {', '.join(TARGETS)})", option="--on"
        ) from None


_specs_found: dict[tuple[str, str], bool] = {}


def _has_specs(cc: str, specs: str) -> bool:
    """Whether ``cc`` finds the specs file (gcc prints the bare name when it does not)."""
    key = (cc, specs)
    if key not in _specs_found:
        p = subprocess.run(
            [cc, f"-print-file-name={specs}"], capture_output=True, text=True, check=False
        )
        _specs_found[key] = p.returncode == 0 and p.stdout.strip() not in ("", specs)
    return _specs_found[key]


def missing_tools(t: Target, *, run: bool = True) -> list[str]:
    """The tools of ``t`` that are not on PATH (``run``: the simulator and what the
    firmware build needs as well as the compiler), and its C library's specs file
    when the compiler is there but does not find it."""
    need = [t.cc, t.tool("size"), t.tool("objdump"), t.tool("nm")]
    if run and t.simulator:
        need += [t.simulator, "timeout"]
        if not t.is_avr:
            need.append("gcc")  # builds the instruction-count plugin for qemu
    missing = [tool for tool in dict.fromkeys(need) if shutil.which(tool) is None]
    if t.specs and t.cc not in missing and not _has_specs(t.cc, t.specs):
        missing.append(t.specs)
    return missing


def require(t: Target, *, run: bool = True) -> None:
    """Raise ToolError unless every tool ``t`` needs is installed."""
    missing = missing_tools(t, run=run)
    if missing:
        raise ToolError(
            f"{t.name}: {', '.join(missing)} not found (install the Debian packages {t.packages})",
            option="--on",
        )


def require_runnable(t: Target, input_type: str) -> None:
    """:func:`require`, and a ToolError where the firmware cannot read ``input_type``:
    it takes float or integer rows, never double.  (export --on checks it before it
    writes the files, as a run on the chip would refuse it after.)"""
    require(t)
    if input_type == "double":
        raise ToolError(
            f"{t.name}: the firmware examples take float or integer input, not double",
            option="--input-type",
        )


def available(t: Target, *, run: bool = True) -> bool:
    return not missing_tools(t, run=run)
