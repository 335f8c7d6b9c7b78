"""What one form of a model costs and how often it is wrong (bench/ensemble_bench.py).

The firmware and host wrappers and the linked-size difference are bench/harness.py's,
shared with bench/gbm_bench.py.

* **Flash and RAM on a chip** (:func:`link_cost`): a firmware whose ``main`` calls
  ``bench_predict`` once on a global input array, linked with the target's flags plus
  ``-Os -std=c99 -ffunction-sections -fdata-sections -Wl,--gc-sections`` (treegen's
  firmware flags; newlib-nano and libm on Cortex-M0+, avr-libc on the ATmega328P),
  minus the same firmware with a ``bench_predict`` that returns 0: the model with every
  library routine it pulls in.  Flash is ``.text + .rodata + .data``, RAM
  ``.data + .bss`` (on AVR, where plain ``const`` data is copied to SRAM, that is
  where a table without PROGMEM lands).  The stack is the bound treegen's firmware
  computes for predict.o (``-fstack-usage`` frames along the deepest call chain from
  ``bench_predict``; library helpers it calls are not in it).
* **Host** (:func:`host_classes`, :func:`host_ns`): predict.c and a harness (gcc -O2,
  or clang -O2 for a second set of classes).  A timing runs :data:`REPEATS` loops over
  the test rows, each long enough to take about :data:`LOOP_SECONDS`, in order or in a
  fixed pseudo-random order (a branch predictor partly learns a short cycle of rows);
  the bench takes the median of several such timings, interleaved across the forms.
  The clock is the harness's BENCH_CLOCK, CLOCK_MONOTONIC unless the environment's
  ``BENCH_CLOCK`` names another (CLOCK_PROCESS_CPUTIME_ID: CPU time, on a shared machine).
* **Simulated chips** (:func:`chip_run`): treegen's firmware (treegen.firmware.sim.
  run_vectors: simavr for the ATmega328P, qemu for Cortex-M) runs the rows and reports
  each class and the cycles (AVR) or executed instructions (qemu) of every call.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.errors import ToolError
from treegen.firmware import targets
from treegen.firmware.sim import run_vectors

from bench.ensemble_forms import Form
from bench.harness import (
    CHIP_SECONDS,
    COMPILE_SECONDS,
    HOST_HARNESS,
    REPEATS,
    BenchApi,
    LinkCost,
    first_error,
    run,
    too_slow,
    write,
)

LOOP_SECONDS = 0.05


@dataclass
class ChipRun:
    mismatches: int = -1
    rows: int = 0
    median: int = -1  # cycles (AVR) or instructions per prediction
    note: str = ""  # why there is no result


def _host_binary(form: Form, d: Path, cc: str, vector: bool = False) -> Path | str:
    """The harness linked with predict.c by ``cc -O2`` (``vector``: the form's
    vector_files, the harness with its ``v`` mode), or the first error."""
    d.mkdir(parents=True, exist_ok=True)
    for name, text in (form.vector_files if vector and form.vector_files else form.files).items():
        (d / name).write_text(text)
    (d / "harness.c").write_text(HOST_HARNESS)
    exe = d / f"harness-{cc}"
    obj = f"predict-{cc}.o"
    try:
        p = run([cc, "-O2", "-std=c99", "-c", "predict.c", "-o", obj], d, COMPILE_SECONDS)
    except subprocess.TimeoutExpired:
        return too_slow(cc)
    defs = [f"-DREPEATS={REPEATS}", *(["-DBENCH_VECTOR"] if vector else [])]
    if os.environ.get("BENCH_CLOCK"):  # e.g. CLOCK_PROCESS_CPUTIME_ID on a shared machine
        defs.append(f"-DBENCH_CLOCK={os.environ['BENCH_CLOCK']}")
    if p.returncode == 0:
        p = run([cc, "-O2", *defs, "harness.c", obj, "-lm", "-o", exe.name], d)
    return exe if p.returncode == 0 else f"{cc}: {first_error(p.stderr)}"


def _rows_file(rows: npt.NDArray[np.float64], path: Path) -> Path:
    np.ascontiguousarray(rows, dtype=np.float32).tofile(path)
    return path


def host_classes(
    form: Form, rows: npt.NDArray[np.float64], d: Path, cc: str
) -> npt.NDArray[np.int64] | str:
    """The class of every row by the form compiled with ``cc -O2``, or why not."""
    if shutil.which(cc) is None:
        return f"{cc} not installed"
    exe = _host_binary(form, d, cc)
    if isinstance(exe, str):
        return exe
    data = _rows_file(rows, d / "rows.bin")
    p = run([str(exe), str(data), str(rows.shape[0]), "check"], d)
    if p.returncode != 0:
        return f"harness exit {p.returncode}"
    return np.asarray(p.stdout.split(), dtype=np.int64)


def host_vectors(
    form: Form, rows: npt.NDArray[np.float64], d: Path, cc: str
) -> npt.NDArray[np.uint64] | str:
    """The bits of the doubles ``bench_vector`` writes for every row (one row of the
    array per input row), compiled with ``cc -O2``; or why not."""
    if not form.vector or form.vector_files is None:
        return "-"
    if shutil.which(cc) is None:
        return f"{cc} not installed"
    exe = _host_binary(form, d, cc, vector=True)
    if isinstance(exe, str):
        return exe
    data = _rows_file(rows, d / "rows.bin")
    p = run([str(exe), str(data), str(rows.shape[0]), "vector"], d)
    if p.returncode != 0:
        return f"harness exit {p.returncode}"
    lines = p.stdout.splitlines()
    return np.asarray([[int(w, 16) for w in line.split()] for line in lines], dtype=np.uint64)


def vector_mismatches(got: npt.NDArray[np.uint64], want: npt.NDArray[np.float64]) -> int:
    """Rows where any double differs from scikit-learn's in its bits (or in how many)."""
    w = np.ascontiguousarray(want, dtype=np.float64)
    w = w.reshape(w.shape[0], -1)
    if got.shape != w.shape:
        return int(w.shape[0])
    return int(np.count_nonzero((got != w.view(np.uint64)).any(axis=1)))


def host_ns(
    form: Form, test_rows: npt.NDArray[np.float64], d: Path, order: str = "time"
) -> list[float] | str:
    """ns per prediction (gcc -O2) of each of :data:`REPEATS` loops over the test rows,
    in order (``time``) or in a fixed pseudo-random order (``shuffled``); or why not."""
    exe = d / "harness-gcc"
    if not exe.exists():
        built = _host_binary(form, d, "gcc")
        if isinstance(built, str):
            return built
    data = d / "test.bin"
    if not data.exists():
        _rows_file(test_rows, data)
    n = str(test_rows.shape[0])

    def once(calls: int) -> list[float]:
        p = run([str(exe), str(data), n, order, str(calls)], d)
        return [float(v) for v in p.stdout.split()]

    probe = min(once(max(1000, test_rows.shape[0])))
    return once(max(test_rows.shape[0], int(LOOP_SECONDS * 1e9 / max(probe, 1.0))))


def chip_run(
    form: Form,
    api: BenchApi,
    rows: npt.NDArray[np.float64],
    want: npt.NDArray[np.int64],
    chip: str,
    cost: LinkCost | None,
) -> ChipRun:
    """Classes and counts of every row on the simulated ``chip`` (treegen's firmware)."""
    t = targets.target(chip)
    if not targets.available(t):
        return ChipRun(note="-")
    if cost is not None and not cost.error and cost.total_flash > t.flash:
        return ChipRun(note="does not fit")
    if cost is not None and not cost.error and cost.total_ram + (cost.stack or 0) > t.ram:
        return ChipRun(note="RAM too small")
    if cost is not None and cost.error == too_slow(t.cc):  # the firmware's build would be too
        return ChipRun(note=cost.error)
    try:
        run = run_vectors(api, form.files, rows.astype(np.float32), t, time_limit=CHIP_SECONDS)
    except ToolError as err:
        msg = err.message
        missing = re.search(r"undefined reference to [`'‘](\w+)", msg)
        if "do not fit" in msg or "more than" in msg:
            note = "does not fit"
        elif missing:  # treegen's Cortex-M firmware is bare metal: libgcc, no libm
            note = f"needs {missing.group(1)} (no libm in the firmware)"
        else:
            note = msg[:80]
        return ChipRun(note=note)
    got = run.cls
    lost = int((got < 0).sum())
    wrong = int(np.count_nonzero(got[got >= 0] != want[got >= 0])) + lost
    note = f"FAILED: {run.failure}" if run.failure else ""
    counts = run.count[run.count >= 0]
    return ChipRun(wrong, rows.shape[0], int(np.median(counts)) if counts.size else -1, note)


STRICT_COMPILERS: dict[str, list[str]] = {
    "gcc": ["gcc"],
    "clang": ["clang"],
    "arm-none-eabi-gcc": ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb"],
    "avr-gcc": ["avr-gcc", "-mmcu=atmega328p"],
}


TOO_LARGE = re.compile(r'"treegen: (the table .* an AVR object may have)')
"""treegen's own stop on avr-gcc for a model with a table larger than an AVR object:
no warning, the C refusing a target it cannot be built for (treegen.codegen.avr)."""
DIAGNOSTIC = re.compile(r":\d+:\d+: (?:fatal error|error|warning): (.*)")
"""A compiler's diagnostic line (gcc's and clang's form), not its echo of the source."""


def strict_failures(form: Form, d: Path) -> tuple[list[str], list[str]]:
    """The compilers and standards (c89, c99) under which predict.c is not clean with
    treegen's strict flags (-Wall -Wextra -Wconversion ... -pedantic -Werror); and
    apart, those where the first diagnostic is treegen's #error for a table too large
    for them (:data:`TOO_LARGE`)."""
    from treegen.verify.build import STRICT_FLAGS

    write(form, d)
    failed, refused = [], []
    for name, cc in STRICT_COMPILERS.items():
        if shutil.which(cc[0]) is None:
            continue
        for std in ("c89", "c99"):
            flags = [f if not f.startswith("-std=") else f"-std={std}" for f in STRICT_FLAGS]
            p = run([*cc, *flags, "-Os", "-fsyntax-only", "predict.c"], d)
            if p.returncode == 0:
                continue
            # Refused when treegen's stop is the first diagnostic (gcc prints it as
            # `#error "treegen: ...`, clang as `"treegen: ...`): what the compiler says
            # after it (the arrays it names too large, and what follows from them) is
            # about a model the C has already refused there.
            first = DIAGNOSTIC.search(p.stderr)
            stop = TOO_LARGE.match(first[1].removeprefix("#error ")) if first else None
            if stop is not None:
                refused.append(f"{name} {std}: {stop.group(1)}")
            else:
                failed.append(f"{name} {std}: {first_error(p.stderr)}")
    return failed, refused
