"""Build the firmware examples with a generated predict.c and run them in a simulator.

:func:`run_vectors` compiles ``firmware_examples/avr-atmega328p/main.c`` (simavr) or
``firmware_examples/cortex-m/`` (qemu-system-arm, with the instruction-count plugin
icount.c built by the host gcc) together with predict.c and the rows as vectors.c,
runs the image under ``timeout`` and parses its ``index,class,count,p0,p1,...``
lines.  Rows that do not fit the chip's flash in one image are split over several
images.  A crash, a hang or a failed self-check of the cycle or instruction counter
is reported in :attr:`Run.failure`, never raised: the caller decides what it means.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import TYPES
from treegen.codegen.emit_parts import HEADER, SOURCE
from treegen.codegen.ir import IR
from treegen.errors import ToolError
from treegen.firmware import targets
from treegen.firmware.objinfo import ObjectInfo, flash_ram, object_info, section_sizes
from treegen.firmware.sources import AVR_DIR, CORTEX_M_DIR, examples_dir
from treegen.firmware.targets import COMMON_CFLAGS, Target
from treegen.firmware.vectors import vectors_c

TIME_LIMIT = 60.0
"""Seconds one simulator run may take (a whole run normally takes well under one)."""

AVR_DELAY_SPAN = 4 * (65536 - 250)
"""main.c's cycle-counter self-check: _delay_loop_2(0) minus _delay_loop_2(250)."""

NOP10_COUNT = {"avr": 3 + 10 + 4, "cortex-m": 1 + 10 + 1}
"""The counters' self-check, a call to ten NOPs: ICALL, NOPs and RET in cycles (AVR);
BLX, NOPs and BX LR in instructions (Cortex-M)."""

# simavr wraps UART output in colour codes; qemu's messages do not matter here.
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")
_DATA = re.compile(r"(\d+),(\d+),(\d+)((?:,\d+)*)")
_AVR_CRASH = (b"avr_sadly_crashed", b"avr_gdb_init")  # the crash, or the GDB server after it


@dataclass
class Run:
    """What the simulated chip printed for rows X (row i at index i)."""

    target: Target
    cls: npt.NDArray[np.int32]  # -1 where no line came back
    proba: npt.NDArray[np.uint16]
    count: npt.NDArray[np.int64]  # cycles (AVR) or instructions (Cortex-M) per predict call
    predict: ObjectInfo  # predict.o as the firmware compiled it
    firmware_flash: int = 0  # the largest image
    firmware_ram: int = 0
    images: int = 0
    checks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    warnings: str = ""  # compiler diagnostics (there should be none)
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def done(self) -> npt.NDArray[np.bool_]:
        return self.cls >= 0


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line or "undefined reference" in line or "overflow" in line:
            return line.strip()
    return (text.strip().splitlines() or ["(no message)"])[-1]


def _compile(t: Target, args: list[str], cwd: Path, what: str = "building the firmware") -> str:
    p = subprocess.run(
        [t.cc, *t.cflags, *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if p.returncode != 0:
        msg = _first_error(p.stderr)
        if t.is_avr and re.search(r"avr/\w+\.h", msg) and "No such file" in msg:
            raise ToolError(
                f"avr: avr-libc's headers are missing (install the Debian packages {t.packages})",
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


def _simulate(cmd: list[str], limit: float, markers: tuple[bytes, ...]) -> tuple[int, str, bool]:
    """Run ``cmd`` under timeout; (status, stdout + stderr, whether a marker of a crash
    appeared -- then the run is stopped at once: a crashed simavr waits for a debugger)."""
    proc = subprocess.Popen(
        ["timeout", "-k", "5", f"{limit:g}", *cmd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    chunks: dict[int, list[bytes]] = {proc.stdout.fileno(): [], proc.stderr.fileno(): []}
    crashed = False
    with selectors.DefaultSelector() as sel:
        for f in (proc.stdout, proc.stderr):
            sel.register(f, selectors.EVENT_READ)
        while sel.get_map():
            for key, _ in sel.select():
                fd = key.fileobj.fileno()  # type: ignore[union-attr]
                data = os.read(fd, 1 << 16)
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                tail = (chunks[fd][-1][-32:] if chunks[fd] else b"") + data
                chunks[fd].append(data)
                if not crashed and any(m in tail for m in markers):
                    crashed = True
                    with contextlib.suppress(ProcessLookupError):  # it may have just ended
                        os.killpg(proc.pid, signal.SIGTERM)  # the session started above
    status = proc.wait()
    # Two streams, one text: a newline between them so no line runs into another.
    text = b"\n".join(b"".join(chunks[f.fileno()]) for f in (proc.stdout, proc.stderr))
    proc.stdout.close()
    proc.stderr.close()
    return status, text.decode("utf-8", "replace"), crashed


@dataclass
class Output:
    rows: dict[int, tuple[int, int, tuple[int, ...]]]
    meta: dict[str, str]


def parse_output(text: str) -> Output:
    """``index,class,count[,p...]`` lines and ``#name,value`` lines; anything else
    (simulator messages) is skipped.  simavr shows the newline as a final '.'."""
    rows: dict[int, tuple[int, int, tuple[int, ...]]] = {}
    meta: dict[str, str] = {}
    for raw in _ESCAPES.sub("", text).splitlines():
        line = raw.strip().removesuffix(".")
        if line.startswith("#"):
            name, _, value = line[1:].partition(",")
            meta.setdefault(name, value)
            continue
        m = _DATA.fullmatch(line)
        if m:
            proba = tuple(int(v) for v in m.group(4).split(",")[1:])
            rows[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), proba)
    return Output(rows, meta)


def compile_predict(t: Target, prefix: str, d: Path) -> tuple[str, ObjectInfo]:
    """d/predict.c -> d/predict.o as a firmware build would compile it (no harness
    flags), measured; (compiler diagnostics, sizes and stack bound)."""
    warnings = _compile(
        t,
        [*COMMON_CFLAGS, "-Wall", "-Wextra", "-fstack-usage", "-c", SOURCE, "-o", "predict.o"],
        d,
        "compiling predict.c",
    )
    return warnings, object_info(d / "predict.o", t, prefix)


class _Firmware:
    """predict.o and the harness objects of one build, linked with each vector chunk."""

    def __init__(self, t: Target, ir: IR, files: dict[str, str], d: Path) -> None:
        self.t, self.ir, self.d = t, ir, d
        self.ex = examples_dir()
        d.mkdir(parents=True, exist_ok=True)
        for name in (HEADER, SOURCE):
            (d / name).write_text(files[name], encoding="utf-8")
        self.warnings, self.predict = compile_predict(t, ir.prefix, d)
        flags = [
            *COMMON_CFLAGS,
            "-Wall",
            "-Wextra",
            f"-I{d}",
            f"-DTG_P={ir.prefix}",
            f"-DTG_U={ir.prefix.upper()}",
            *(["-DTG_PROBA"] if ir.proba else []),  # --no-proba: predict only
        ]
        if t.is_avr:
            harness = [self.ex / AVR_DIR / "main.c", self.ex / AVR_DIR / "measure.S"]
        else:
            cm = self.ex / CORTEX_M_DIR
            harness = [cm / "main.c", cm / "startup.c", cm / "measure.S"]
            flags += ["-ffreestanding", f"-I{cm}"]  # no libc: startup.c stands in for it
        # One compiler run for the harness (the objects land in d as main.o, ...).
        self.warnings += _compile(t, [*flags, "-c", *(str(h) for h in harness)], d)
        self.objects = [d / "predict.o"] + [d / f"{h.stem}.o" for h in harness]
        self.flags = flags

    def link(self, rows: npt.NDArray[np.generic], first: int, name: str) -> Path:
        """Compile the rows as NAME.c and link NAME.elf."""
        src = self.d / f"{name}.c"
        src.write_text(vectors_c(self.ir, rows, first), encoding="utf-8")
        elf = self.d / f"{name}.elf"
        if self.t.is_avr:
            args = ["-Wl,--gc-sections"]
            libs: list[str] = []
        else:
            cm = self.ex / CORTEX_M_DIR
            args = [
                "-nostdlib",
                "-Wl,--gc-sections",
                f"-L{cm}",
                "-T",
                str(cm / self.t.linker_script),
            ]
            libs = ["-lgcc"]
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
        return [
            "qemu-system-arm",
            "-M",
            t.machine,
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


def _self_check(t: Target, meta: dict[str, str]) -> str | None:
    """The counter's own check, from the '#' lines (None when it holds)."""
    try:
        want = NOP10_COUNT["avr" if t.is_avr else "cortex-m"]
        if int(meta["nop10"]) != want:
            return (
                f"{t.unit} counter self-check failed: the 10-NOP function counted "
                f"{meta['nop10']} instead of {want}"
            )
        if t.is_avr:
            a, b = (int(v) for v in meta["delay"].split(","))
            if b - a != AVR_DELAY_SPAN:
                return (
                    f"cycle counter self-check failed: delay loops measured {a} and {b} "
                    f"cycles, {b - a} apart instead of {AVR_DELAY_SPAN}"
                )
    except (KeyError, ValueError):
        return "the counter's self-check line is missing"
    return None


def run_vectors(
    ir: IR,
    files: dict[str, str],
    X: npt.ArrayLike,
    target: str | Target,
    *,
    workdir: Path | None = None,
    time_limit: float = TIME_LIMIT,
) -> Run:
    """Run predict.c (``files``, emitted from ``ir``) on every row of X on ``target``."""
    t = target if isinstance(target, Target) else targets.target(target)
    targets.require(t)
    if ir.encoding.input_type == "double":
        raise ToolError(
            f"{t.name}: the firmware examples take float or integer input, not double",
            option="--input-type",
        )
    rows = np.ascontiguousarray(X, dtype=TYPES[ir.encoding.input_type].dtype)
    n = rows.shape[0]
    assert rows.ndim == 2 and rows.shape[1] == ir.n_features
    with tempfile.TemporaryDirectory(prefix="treegen-fw-") as tmp:
        return _run(t, ir, files, rows, workdir or Path(tmp), time_limit, n)


def _run(
    t: Target,
    ir: IR,
    files: dict[str, str],
    rows: npt.NDArray[np.generic],
    d: Path,
    time_limit: float,
    n: int,
) -> Run:
    fw = _Firmware(t, ir, files, d)
    run = Run(
        t,
        np.full(n, -1, dtype=np.int32),
        np.zeros((n, ir.n_classes), dtype=np.uint16),
        np.full(n, -1, dtype=np.int64),
        fw.predict,
    )
    if n == 0:
        run.warnings = fw.warnings
        return run
    # All rows in one image when they fit (the usual case); otherwise as many per image
    # as the flash the firmware leaves takes.
    row_bytes = rows.itemsize * rows.shape[1]
    try:
        first: Path | None = fw.link(rows, 0, "vectors0")
        assert first is not None
        flash, ram = flash_ram(section_sizes(first, t), t)
        base = flash - n * row_bytes
    except ToolError:  # the linker's own check of the flash region (Cortex-M)
        first = None
        try:
            probe = fw.link(rows[:1], 0, "probe")
        except ToolError as err:
            if "overflow" not in err.message:
                raise
            raise ToolError(
                f"{t.name}: predict.c and the firmware do not fit in the {t.flash} "
                f"bytes of flash ({err.message.rsplit('ld: ', 1)[-1]})",
                option="--on",
            ) from None
        flash, ram = flash_ram(section_sizes(probe, t), t)
        base = flash - row_bytes
    per_image = n if first is not None and flash <= t.flash else (t.flash - base) // row_bytes
    if per_image < 1:
        raise ToolError(
            f"{t.name}: predict.c and the firmware take {base} bytes of flash, "
            f"more than the {t.flash} there are",
            option="--on",
        )
    need = ram + (fw.predict.stack or 0) + 64  # the harness's own frames: a few dozen bytes
    if need > t.ram:
        raise ToolError(
            f"{t.name}: the firmware needs about {need} bytes of RAM, more than "
            f"the {t.ram} there are",
            option="--on",
        )
    per_image = min(per_image, 0xFFFF)
    for k, start in enumerate(range(0, n, per_image)):
        chunk = rows[start : start + per_image]
        if per_image == n and first is not None:
            elf, sizes = first, (flash, ram)
        else:
            elf = fw.link(chunk, start, f"vectors{k}")
            sizes = flash_ram(section_sizes(elf, t), t)
        run.firmware_flash = max(run.firmware_flash, sizes[0])
        run.firmware_ram = max(run.firmware_ram, sizes[1])
        run.images += 1
        cmd, markers = fw.command(elf)
        status, text, crashed = _simulate(cmd, time_limit, markers)
        out = parse_output(text)
        for i, (cls, count, proba) in out.rows.items():
            # A row counts only when whole: the probabilities too, when exported.
            if start <= i < start + len(chunk) and len(proba) == (ir.n_classes if ir.proba else 0):
                run.cls[i], run.count[i] = cls, count
                if ir.proba:
                    run.proba[i] = proba
        for name, value in out.meta.items():
            run.checks.setdefault(name, tuple(int(v) for v in value.split(",") if v.isdigit()))
        got = int(run.done[start : start + len(chunk)].sum())
        where = f"image {k + 1}, rows {start}..{start + len(chunk) - 1}"
        if crashed or (not t.is_avr and status == 3):
            run.failure = f"crashed ({where}) after {got} of {len(chunk)} rows"
        elif status in (124, 137):
            run.failure = f"timed out after {time_limit:g} s ({where}, {got} of {len(chunk)} rows)"
        elif status != 0:
            run.failure = (
                f"the simulator exited with status {status} ({where}): "
                f"{text.strip().splitlines()[-1] if text.strip() else ''}"
            )
        elif "error" in out.meta:
            run.failure = f"the firmware reported: {out.meta['error']} ({where})"
        elif got != len(chunk) or out.meta.get("done") != str(len(chunk)):
            run.failure = f"{got} of {len(chunk)} rows came back ({where})"
        else:
            run.failure = _self_check(t, out.meta)
        if run.failure:
            break
    run.warnings = fw.warnings
    return run
