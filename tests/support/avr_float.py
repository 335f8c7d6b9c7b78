"""Run floating point operations on a simulated ATmega328P: avr_float.c (next to this
file) built with avr-gcc, the operand pairs in flash as cases.c, run in simavr, its
UART lines read back.  With ``f64`` the operations are treegen's binary64 routines
(treegen/codegen/f64.py), else avr-libc's own ``float``.  Pairs that do not fit in one
image's flash go into several images."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.codegen.f64 import OPS, POS_OPS, f64_source
from treegen.verify.build import STRICT_FLAGS

HARNESS = Path(__file__).with_name("avr_float.c")
TOOLS = ("avr-gcc", "avr-size", "simavr", "timeout")
CFLAGS = [
    "-mmcu=atmega328p",
    "-Os",
    "-std=c99",
    *(f for f in STRICT_FLAGS if not f.startswith("-std=")),
]
PER_IMAGE = {True: 1200, False: 2800}  # operand pairs per image: 16 or 8 bytes each
TIME_LIMIT = 300

_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")
_LINE = re.compile(r"(\d+)((?:,[0-9a-f]+)+)")


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def _cases_c(words: npt.NDArray[np.uint32], first: int) -> str:
    rows = ",\n".join("    {" + ", ".join(f"0x{int(w):08X}UL" for w in row) + "}" for row in words)
    return (
        "#include <avr/pgmspace.h>\n#include <stdint.h>\n\n"
        f"extern const uint32_t tg_cases[][{words.shape[1]}] PROGMEM;\n"
        "extern const uint16_t tg_n_cases;\nextern const uint16_t tg_first;\n"
        f"const uint32_t tg_cases[][{words.shape[1]}] PROGMEM = {{\n{rows}\n}};\n"
        f"const uint16_t tg_n_cases = {len(words)}u;\nconst uint16_t tg_first = {first}u;\n"
    )


def build(words: npt.NDArray[np.uint32], first: int, d: Path, *, f64: bool) -> Path:
    """One firmware image for the operand rows ``words`` (their first index ``first``)."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "cases.c").write_text(_cases_c(words, first))
    if f64:
        (d / "f64.c").write_text(f64_source("tg", [*OPS, *POS_OPS]))
    elf = d / "firmware.elf"
    cmd = [
        "avr-gcc",
        *CFLAGS,
        *(["-DTG_F64", f"-I{d}"] if f64 else []),
        "-Wl,--gc-sections",
        "-o",
        str(elf),
        str(HARNESS),
        str(d / "cases.c"),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr[:3000]
    return elf


def run(elf: Path) -> dict[int, list[str]]:
    """The fields of every line the image printed, by case index."""
    r = subprocess.run(
        ["timeout", "-k", "5", str(TIME_LIMIT), "simavr", "-m", "atmega328p", "-f", "16000000"]
        + [str(elf)],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
        stdin=subprocess.DEVNULL,
    )
    out: dict[int, list[str]] = {}
    done = False
    for raw in _ESCAPES.sub("", r.stdout + "\n" + r.stderr).splitlines():
        line = raw.strip().removesuffix(".")
        done |= line.startswith("#done,")
        m = _LINE.fullmatch(line)
        if m:
            out[int(m.group(1))] = m.group(2)[1:].split(",")
    assert done, f"the firmware did not finish (status {r.returncode}): {r.stderr[-500:]}"
    return out


def run_pairs(words: npt.NDArray[np.uint32], d: Path, *, f64: bool) -> list[list[str]]:
    """Apply the operations to every operand row; the printed fields of each row."""
    n = len(words)
    step = PER_IMAGE[f64]
    lines: dict[int, list[str]] = {}
    for k, start in enumerate(range(0, n, step)):
        elf = build(words[start : start + step], start, d / f"image{k}", f64=f64)
        lines.update(run(elf))
    assert sorted(lines) == list(range(n)), f"{n - len(lines)} of {n} lines missing"
    return [lines[i] for i in range(n)]


def flash_of(elf: Path) -> int:
    """.text + .data of an image (what it takes of the flash)."""
    out = subprocess.run(["avr-size", str(elf)], capture_output=True, text=True, check=True)
    text, data = out.stdout.splitlines()[1].split()[:2]
    return int(text) + int(data)
