"""Build the firmware examples with a generated predict.c and run them in a simulator.

:func:`run_vectors` compiles ``firmware_examples/avr-atmega328p/main.c`` (simavr),
``firmware_examples/cortex-m/`` (qemu-system-arm) or ``firmware_examples/riscv/``
(qemu-system-riscv32), the qemu ones with the instruction-count plugin icount.c built
by the host gcc, together with predict.c and the rows as vectors.c,
runs the image under ``timeout`` and parses its ``index,class,count,p0,p1,...``
lines.  Rows that do not fit the chip's flash in one image are split over several
images.  A crash, a hang or a failed self-check of the cycle or instruction counter
is reported in :attr:`Run.failure`, never raised: the caller decides what it means.
The builds are :mod:`~treegen.firmware.build`'s; this module runs the images and
reads what they print.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import TYPES
from treegen.errors import ToolError
from treegen.firmware import targets
from treegen.firmware.build import Firmware
from treegen.firmware.objinfo import ObjectInfo, flash_ram, section_sizes
from treegen.firmware.targets import Target
from treegen.verify.build import CApi

TIME_LIMIT = 60.0
"""Seconds one simulator run may take (a whole run normally takes well under one)."""

AVR_DELAY_SPAN = 4 * (65536 - 250)
"""main.c's cycle-counter self-check: _delay_loop_2(0) minus _delay_loop_2(250)."""

NOP10_COUNT = {"avr": 3 + 10 + 4, "cortex-m": 1 + 10 + 1, "riscv": 1 + 10 + 1}
"""The counters' self-check, a call to ten NOPs: ICALL, NOPs and RET in cycles (AVR);
BLX, NOPs and BX LR (Cortex-M) or JALR, NOPs and RET (RISC-V) in instructions."""

# simavr wraps UART output in colour codes; qemu's messages do not matter here.
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")
# simavr prints the UART's text 256 characters at a time (avr_uart.c's buffer), each
# piece in its colour codes on a line of its own, a line's end shown as '.': a piece
# that does not end so goes on in the next one (a row of 32 scores is about 300).
_SIMAVR_BREAK = re.compile(r"(?<!\.)\n\x1b\[0m\x1b\[32m")
_DATA = re.compile(r"(\d+),(\d+),(\d+)((?:,[0-9a-f]+)*)")


@dataclass
class Run:
    """What the simulated chip printed for rows X (row i at index i)."""

    target: Target
    cls: npt.NDArray[np.int32]  # -1 where no line came back
    proba: npt.NDArray[Any]  # the exported vector (treegen.verify.build.Built.run's)
    count: npt.NDArray[np.int64]  # cycles (AVR) or instructions (qemu) per predict call
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
    rows: dict[int, tuple[int, int, tuple[str, ...]]]
    meta: dict[str, str]


def parse_output(text: str) -> Output:
    """``index,class,count[,p...]`` lines and ``#name,value`` lines; anything else
    (simulator messages) is skipped.  simavr shows the newline as a final '.', and
    breaks a line longer than its buffer: the pieces are joined again.  The
    ``p`` fields stay text: decimal integers, or a double's bytes in hex (:func:`element`)."""
    rows: dict[int, tuple[int, int, tuple[str, ...]]] = {}
    meta: dict[str, str] = {}
    for raw in _ESCAPES.sub("", _SIMAVR_BREAK.sub("", text)).splitlines():
        line = raw.strip().removesuffix(".")
        if line.startswith("#"):
            name, _, value = line[1:].partition(",")
            meta.setdefault(name, value)
            continue
        m = _DATA.fullmatch(line)
        if m:
            proba = tuple(m.group(4).split(",")[1:])
            rows[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), proba)
    return Output(rows, meta)


def element(field: str, ctype: str) -> float | int:
    """One printed element of the exported vector: a decimal integer, or a double as its
    little-endian bytes in hex (8 of them, or 4 where double is binary32: widened)."""
    if ctype in ("uint16_t", "uint32_t"):
        return int(field)
    raw = bytes.fromhex(field)
    return float(np.frombuffer(raw, dtype="<f8" if len(raw) == 8 else "<f4")[0])


def regress_same(words: npt.NDArray[Any], doubles: Sequence[str]) -> int:
    """0 when a regressor's ``predict`` doubles (little-endian bytes in hex) are its
    ``predict_bits`` words (high, low per output): the same bits, or where double has
    32 bits the nearest binary32 of that float64; else 1."""
    for o, text in enumerate(doubles):
        exact = np.uint64((int(words[2 * o]) << 32) | int(words[2 * o + 1])).view(np.float64)
        raw = bytes.fromhex(text)
        if len(raw) == 8:
            same = np.frombuffer(raw, dtype="<u8")[0] == exact.view(np.uint64)
        else:
            with np.errstate(over="ignore"):
                near = np.float32(exact)
            same = np.frombuffer(raw, dtype="<u4")[0] == near.view(np.uint32)
        if not same:
            return 1
    return 0


def _self_check(t: Target, meta: dict[str, str]) -> str | None:
    """The counter's own check, from the '#' lines (None when it holds)."""
    try:
        want = NOP10_COUNT[t.family]
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
    ir: CApi,
    files: dict[str, str],
    X: npt.ArrayLike,
    target: str | Target,
    *,
    workdir: Path | None = None,
    time_limit: float = TIME_LIMIT,
) -> Run:
    """Run predict.c (``files``, emitted from ``ir``) on every row of X on ``target``."""
    t = target if isinstance(target, Target) else targets.target(target)
    targets.require_runnable(t, ir.encoding.input_type)
    rows = np.ascontiguousarray(X, dtype=TYPES[ir.encoding.input_type].dtype)
    n = rows.shape[0]
    assert rows.ndim == 2 and rows.shape[1] == ir.n_features
    with tempfile.TemporaryDirectory(prefix="treegen-fw-") as tmp:
        return _run(t, ir, files, rows, workdir or Path(tmp), time_limit, n)


def _vector(t: Target, ir: CApi, n: int) -> npt.NDArray[Any]:
    """The exported vector's array: doubles as the target's double (binary32 on AVR)."""
    api = ir.proba_api
    if api is None or api.ctype == "uint16_t":
        return np.zeros((n, ir.n_classes), dtype=np.uint16)
    if api.values:  # a regressor's predict_bits: binary64 bits as uint32 words
        return np.zeros((n, api.n), dtype=np.uint32)
    return np.zeros((n, api.n), dtype=np.float32 if t.is_avr else np.float64)


def _run(
    t: Target,
    ir: CApi,
    files: dict[str, str],
    rows: npt.NDArray[np.generic],
    d: Path,
    time_limit: float,
    n: int,
) -> Run:
    fw = Firmware(t, ir, files, d)
    run = Run(
        t,
        np.full(n, -1, dtype=np.int32),
        _vector(t, ir, n),
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
    except ToolError:  # the linker's own check of the flash region (qemu targets)
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
        api = ir.proba_api
        want = (api.n + api.n // 2 if api.values else api.n) if api else 0
        for i, (cls, count, proba) in out.rows.items():
            # A row counts only when whole: the exported vector too.
            if start <= i < start + len(chunk) and len(proba) == want:
                run.cls[i], run.count[i] = cls, count
                if api:
                    run.proba[i] = [element(v, api.ctype) for v in proba[: api.n]]
                if api and api.values:
                    run.cls[i] = regress_same(run.proba[i], proba[api.n :])
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
