"""The simulated chips (and the host compiler the size report adds), and finding their tools.

Every tool is looked up on ``PATH`` when it is needed; a missing one is a
:class:`~treegen.errors.ToolError` naming the Debian packages that provide it, so
the CLI prints one line such as ``treegen: error: --on avr: avr-gcc not found
(install the Debian packages gcc-avr avr-libc simavr)``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from treegen.errors import ToolError


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
    linker_script: str = ""  # Cortex-M: in firmware_examples/cortex-m/
    flash: int = 0  # bytes the firmware may use
    ram: int = 0
    rodata_in_ram: bool = False  # AVR: plain const data is copied to SRAM at start-up
    unit: str = "instructions"  # what the firmware's count means

    @property
    def is_avr(self) -> bool:
        return self.name == "avr"

    def tool(self, name: str) -> str:
        return f"{self.binutils}{name}"


_ARM = "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc"

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
    ),
}
"""The ``--on`` targets: the chips the firmware examples run on."""

HOST = Target("host", "host (gcc)", "gcc", "", (), "gcc binutils")
"""The machine treegen runs on: only in the size report."""

REPORT_TARGETS = ("host", "m0plus", "m4f", "avr")
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


def missing_tools(t: Target, *, run: bool = True) -> list[str]:
    """The tools of ``t`` that are not on PATH (``run``: the simulator and what the
    firmware build needs as well as the compiler)."""
    need = [t.cc, t.tool("size"), t.tool("objdump"), t.tool("nm")]
    if run and t.simulator:
        need += [t.simulator, "timeout"]
        if not t.is_avr:
            need.append("gcc")  # builds the instruction-count plugin for qemu
    return [tool for tool in dict.fromkeys(need) if shutil.which(tool) is None]


def require(t: Target, *, run: bool = True) -> None:
    """Raise ToolError unless every tool ``t`` needs is installed."""
    missing = missing_tools(t, run=run)
    if missing:
        raise ToolError(
            f"{t.name}: {', '.join(missing)} not found (install the Debian packages {t.packages})",
            option="--on",
        )


def available(t: Target, *, run: bool = True) -> bool:
    return not missing_tools(t, run=run)
