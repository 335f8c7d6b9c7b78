"""Build the firmware images: predict.o, the harness objects, one image per chunk of rows.

:func:`compile_predict` compiles predict.c as a firmware build would and measures
it; :class:`Firmware` compiles the harness of ``firmware_examples/`` once
(``avr-atmega328p/``, ``cortex-m/`` or ``riscv/``), links it with each chunk of rows
as vectors.c and gives the simulator command line for an image (qemu's
instruction-count plugin, :func:`plugin_path`, is built here too).  A failed
build raises :class:`~treegen.errors.ToolError`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.codegen.parts import HEADER, SOURCE, source_and_header
from treegen.errors import ToolError
from treegen.firmware.objinfo import ObjectInfo, object_info
from treegen.firmware.sources import AVR_DIR, CORTEX_M_DIR, RISCV_DIR, examples_dir
from treegen.firmware.targets import COMMON_CFLAGS, Target
from treegen.firmware.vectors import vectors_c
from treegen.verify.build import CApi, error_line

_AVR_CRASH = (b"avr_sadly_crashed", b"avr_gdb_init")  # the crash, or the GDB server after it


def _first_error(text: str) -> str:
    # A tool that reports no error line says what went wrong last.
    return error_line(text, "(no message)", last=True)


def run_captured(
    cmd: list[str], cwd: Path, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``cmd`` in ``cwd``, its output captured; past ``timeout`` seconds its whole process
    group is killed and subprocess.TimeoutExpired raised (subprocess.run's own timeout
    kills a compiler driver and leaves its cc1 running).  Without a timeout, as
    subprocess.run runs it."""
    if timeout is None:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    with subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: the terminal's Ctrl-C does not reach it
    ) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except BaseException:  # the limit, or an interrupt: nothing of it left running
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def _compile(
    t: Target,
    args: list[str],
    cwd: Path,
    what: str = "building the firmware",
    timeout: float | None = None,
) -> str:
    p = run_captured([t.cc, *t.cflags, *args], cwd, timeout)
    if p.returncode != 0:
        msg = _first_error(p.stderr)
        if t.is_avr and re.search(r"avr/\w+\.h", msg) and "No such file" in msg:
            raise ToolError(
                f"avr: avr-libc's headers are missing (install the Debian packages {t.packages})",
                option="--on",
            )
        if (
            t.specs
            and re.search(r"\b(stdint|semihost)\.h\b|picolibc", msg)
            and ("No such file" in msg or "cannot read spec" in msg)
        ):
            raise ToolError(
                f"{t.name}: picolibc is missing (install the Debian packages {t.packages})",
                option="--on",
            )
        raise ToolError(f"{t.name}: {what} failed: {msg}", option="--on")
    return p.stderr


_plugins: dict[tuple[str, float], Path] = {}


def plugin_path() -> Path:
    """The instruction-count plugin (cortex-m/icount.c), built once per process."""
    src = examples_dir() / CORTEX_M_DIR / "icount.c"
    key = (str(src), src.stat().st_mtime)
    so = _plugins.get(key)
    if so is None or not so.exists():
        d = Path(tempfile.mkdtemp(prefix="treegen-icount-"))
        atexit.register(shutil.rmtree, d, True)
        so = d / "libicount.so"
        p = subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O2", "-o", str(so), str(src)],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise ToolError(
                f"building the qemu plugin {src.name} failed: {_first_error(p.stderr)}",
                option="--on",
            )
        _plugins[key] = so
    return so


def _symbols(t: Target, elf: Path, names: tuple[str, ...]) -> list[int]:
    """Addresses of ``names`` in ``elf`` (the Thumb bit cleared)."""
    out = subprocess.run(
        [t.tool("nm"), str(elf)], capture_output=True, text=True, check=False
    ).stdout
    found: dict[str, int] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            found[parts[2]] = int(parts[0], 16) & ~1
    missing = [n for n in names if n not in found]
    if missing:
        raise ToolError(f"{t.name}: symbol {missing[0]} not found in the firmware", option="--on")
    return [found[n] for n in names]


def write_export(files: dict[str, str], d: Path) -> str:
    """Write an export's files into ``d`` under their names (``--name``), the header
    also as predict.h, which the harness includes; the name of the C source."""
    source, header = source_and_header(files)
    d.mkdir(parents=True, exist_ok=True)
    for name, text in {**files, HEADER: files[header]}.items():
        (d / name).write_text(text, encoding="utf-8")
    return source


def compile_predict(
    t: Target, prefix: str, d: Path, source: str = SOURCE, timeout: float | None = None
) -> tuple[str, ObjectInfo]:
    """d/predict.c (or ``source``) -> d/predict.o as a firmware build would compile it
    (no harness flags), measured; (compiler diagnostics, sizes and stack bound).  A
    ``timeout`` (seconds) raises subprocess.TimeoutExpired past it: the benchmark's
    limit for other tools' C, which some compilers take many minutes over."""
    warnings = _compile(
        t,
        [*COMMON_CFLAGS, "-Wall", "-Wextra", "-fstack-usage", "-c", source, "-o", "predict.o"],
        d,
        "compiling predict.c",
        timeout,
    )
    return warnings, object_info(d / "predict.o", t, prefix)


def proba_flags(ir: CApi) -> list[str]:
    """The harness's flags for the vector the model exports besides its class (none:
    predict only); doubles are printed as their bytes in hex."""
    api = ir.proba_api
    if api is None:
        return []
    if api.ctype == "uint16_t":
        return ["-DTG_PROBA"]
    if api.values:  # a regressor: predict_bits's words, in decimal
        return [
            "-DTG_PROBA",
            f"-DTG_PROBA_FN=_{api.name}",
            f"-DTG_PROBA_T={api.ctype}",
            f"-DTG_N_PROBA={api.n}",
            f"-DTG_REGRESS={api.n // 2}",
        ]
    return [
        "-DTG_PROBA",
        f"-DTG_PROBA_FN=_{api.name}",
        f"-DTG_PROBA_T={api.ctype}",
        f"-DTG_N_PROBA={api.n}",
        "-DTG_PROBA_HEX",
    ]


class Firmware:
    """predict.o and the harness objects of one build, linked with each vector chunk."""

    def __init__(self, t: Target, ir: CApi, files: dict[str, str], d: Path) -> None:
        self.t, self.ir, self.d = t, ir, d
        self.ex = examples_dir()
        source = write_export(files, d)
        self.warnings, self.predict = compile_predict(t, ir.prefix, d, source)
        flags = [
            *COMMON_CFLAGS,
            "-Wall",
            "-Wextra",
            f"-I{d}",
            f"-DTG_P={ir.prefix}",
            f"-DTG_U={ir.prefix.upper()}",
            *proba_flags(ir),
        ]
        cm = self.ex / CORTEX_M_DIR
        if t.family == "avr":
            harness = [self.ex / AVR_DIR / "main.c", self.ex / AVR_DIR / "measure.S"]
        elif t.family == "cortex-m":
            harness = [cm / "main.c", cm / "startup.c", cm / "measure.S"]
            flags += ["-ffreestanding", f"-I{cm}"]  # no libc: startup.c stands in for it
        else:
            # cortex-m/'s main.c on riscv/'s startup.c (picolibc and semihosting).
            rv = self.ex / RISCV_DIR
            harness = [cm / "main.c", rv / "startup.c", rv / "measure.S"]
            flags.append(f"-I{cm}")
        # One compiler run for the harness (the objects land in d as main.o, ...).
        self.warnings += _compile(t, [*flags, "-c", *(str(h) for h in harness)], d)
        self.objects = [d / "predict.o"] + [d / f"{h.stem}.o" for h in harness]
        self.flags = flags

    def link(self, rows: npt.NDArray[np.generic], first: int, name: str) -> Path:
        """Compile the rows as NAME.c and link NAME.elf."""
        src = self.d / f"{name}.c"
        src.write_text(vectors_c(self.ir, rows, first), encoding="utf-8")
        elf = self.d / f"{name}.elf"
        libs: list[str] = []
        if self.t.family == "avr":
            args = ["-Wl,--gc-sections"]
        elif self.t.family == "cortex-m":
            cm = self.ex / CORTEX_M_DIR
            args = [
                "-nostdlib",
                "-Wl,--gc-sections",
                f"-L{cm}",
                "-T",
                str(cm / self.t.linker_script),
            ]
            libs = ["-lgcc"]
        else:
            # picolibc's crt0 that passes main's status to exit(), and its semihosting
            # system calls; libgcc comes with the specs.
            args = [
                "--oslib=semihost",
                "--crt0=hosted",
                "-Wl,--gc-sections",
                "-T",
                str(self.ex / RISCV_DIR / self.t.linker_script),
            ]
        self.warnings += _compile(
            self.t,
            [*self.flags, *args, src.name, *(str(o) for o in self.objects), *libs, "-o", elf.name],
            self.d,
        )
        return elf

    def command(self, elf: Path) -> tuple[list[str], tuple[bytes, ...]]:
        t = self.t
        if t.is_avr:
            return ["simavr", "-v", "-m", t.machine, "-f", "16000000", str(elf)], _AVR_CRASH
        window = _symbols(t, elf, ("tg_open", "tg_close"))
        plugin = f"{plugin_path()},open=0x{window[0]:x},close=0x{window[1]:x}"
        # RISC-V: no firmware before ours (-bios none: it starts at the ELF's entry).
        machine = ["-M", t.machine] + (["-cpu", t.cpu, "-bios", "none"] if t.cpu else [])
        return [
            t.simulator,
            *machine,
            "-nographic",
            "-monitor",
            "none",
            "-semihosting-config",
            "enable=on,target=native",
            "-kernel",
            str(elf),
            "-plugin",
            plugin,
        ], ()
