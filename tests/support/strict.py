"""Compiling exported C under the project's strict flags (treegen.verify.build.STRICT_FLAGS)
with one standard, for the warning-free tests: any diagnostic fails them.  The gcc
family (gcc, arm-none-eabi-gcc, avr-gcc) also gets the warnings firmware builds often
add (:data:`FIRMWARE_WARNINGS`, listed in docs/exporting.md)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from treegen.verify.build import STRICT_FLAGS

# Warnings firmware builds often add (MISRA-minded sets, vendor templates), beyond the
# promised flags; gcc's names (some are gcc's alone).  Not -Wfloat-equal: the C tests
# NaN by `v != v` and a ruleset's nominal codes by `==` on purpose (exact by design).
FIRMWARE_WARNINGS = (
    "-Wswitch-default",
    "-Wdouble-promotion",
    "-Wundef",
    "-Wmissing-prototypes",
    "-Wmissing-declarations",
    "-Wcast-qual",
    "-Wcast-align",
    "-Wredundant-decls",
    "-Wold-style-definition",
    "-Wnested-externs",
    "-Wbad-function-cast",
    "-Wlogical-op",
    "-Wduplicated-cond",
    "-Wnull-dereference",
    "-Wjump-misses-init",
    "-Wvla",
    "-Wwrite-strings",
    "-Wpointer-arith",
    "-Wc++-compat",
)

# Debian's avr-gcc (5.4) predates these two.
_NOT_ON_AVR = ("-Wduplicated-cond", "-Wnull-dereference")


def firmware_warnings(cc: str) -> list[str]:
    """The firmware warnings compiler ``cc`` takes: gcc's family, none for clang (whose
    names differ) or other compilers."""
    name = Path(cc).name
    if not name.endswith("gcc"):
        return []
    return [f for f in FIRMWARE_WARNINGS if not (name == "avr-gcc" and f in _NOT_ON_AVR)]


def compile_strict(
    cc: str, std: str, files: dict[str, str], tmp: Path, extra: Sequence[str] = ()
) -> Path:
    """Write ``files`` into ``tmp`` and compile their one C source with ``cc`` under
    ``std`` (``-std=c89``...), the strict flags (and, for the gcc family, the firmware
    warnings) and ``extra``; the object's path.  The
    compiler must succeed and print nothing."""
    for name, text in files.items():
        (tmp / name).write_text(text)
    flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    flags += firmware_warnings(cc)
    (source,) = (n for n in files if n.endswith(".c"))
    obj = tmp / "p.o"
    r = subprocess.run(
        [cc, std, *flags, *extra, "-c", source, "-o", str(obj)],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return obj
