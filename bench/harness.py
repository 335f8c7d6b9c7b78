"""The pieces every bench that compiles a model's C shares (bench/ensemble_bench.py,
bench/gbm_bench.py): the firmware and host wrappers around ``int bench_predict(const
bench_input_t *x)`` and the linked-size difference.

* **Flash and RAM on a chip** (:func:`link_cost`): a firmware whose ``main`` calls
  ``bench_predict`` once on a global input array (:data:`MAIN_C`), linked with the
  target's flags plus ``-Os -std=c99 -ffunction-sections -fdata-sections
  -Wl,--gc-sections`` (treegen's firmware flags; newlib-nano and libm on Cortex-M,
  avr-libc on the ATmega328P), minus the same firmware with a ``bench_predict`` that
  returns 0 (:data:`EMPTY_C`): the model with every library routine it pulls in.
  Flash is ``.text + .rodata + .data``, RAM ``.data + .bss``.  The stack is the bound
  treegen's firmware computes for predict.o.
* **Host** (:data:`HOST_HARNESS`): reads float32 rows from a file and prints each
  row's class (``check``), or times ``REPEATS`` loops of ``calls`` predictions (in
  order, or ``shuffled`` in a fixed pseudo-random order), ns per call each; the clock
  is ``BENCH_CLOCK`` (default CLOCK_MONOTONIC; CLOCK_PROCESS_CPUTIME_ID where the
  machine is shared and CPU time says more).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from treegen.codegen.ir import Encoding, Feature, ProbaApi
from treegen.errors import ToolError
from treegen.firmware import targets
from treegen.firmware.build import compile_predict, run_captured
from treegen.firmware.objinfo import flash_ram, section_sizes


class HasFiles(Protocol):
    """A form: its C files by name (predict.c, predict.h)."""

    @property
    def files(self) -> dict[str, str]: ...


REPEATS = 5
CHIP_SECONDS = 900.0
"""How long a simulated chip may take over one image of a model's rows (treegen's own
limit, treegen.firmware.sim.TIME_LIMIT, is 60 s: a 500-tree model's 11,396 rows take
longer on a loaded machine, and a run cut short has no class for its last rows)."""
COMPILE_SECONDS = float(os.environ.get("BENCH_COMPILE_SECONDS", "300"))
"""How long one compiler may take over one form's C (``BENCH_COMPILE_SECONDS`` in the
environment): clang takes more than 15 minutes of CPU over tl2cgen's C for 100
unlimited trees, and m2cgen's C more than 10; a form past it is reported as not
compiled (:func:`too_slow`) and its later builds by the same compiler are not tried."""
FLAGS = targets.COMMON_CFLAGS  # treegen firmware's: -Os -std=c99, function and data sections
# AVR: the regions made large enough for any model, so the link measures one that
# does not fit too (the sizes are then held against the ATmega328P's).
LINK = {
    "avr": [
        "-Wl,--gc-sections",
        "-Wl,--defsym=__TEXT_REGION_LENGTH__=8M",
        "-Wl,--defsym=__DATA_REGION_LENGTH__=0xffa0",
    ],
    "m0plus": ["-Wl,--gc-sections", "--specs=nano.specs", "--specs=nosys.specs"],
    "m4f": ["-Wl,--gc-sections", "--specs=nano.specs", "--specs=nosys.specs"],
}
LIBS = {"avr": ["-lm"], "m0plus": ["-lm"], "m4f": ["-lm"]}

MAIN_C = """#include "predict.h"
bench_input_t bench_x[BENCH_N_FEATURES];
volatile int bench_class;
int main(void)
{
    bench_class = bench_predict(bench_x);
    for (;;) {
    }
}
"""
EMPTY_C = """#include "predict.h"
int bench_predict(const bench_input_t *x)
{
    (void)x;
    return 0;
}
"""

HOST_HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include "predict.h"

#ifndef BENCH_CLOCK
#define BENCH_CLOCK CLOCK_MONOTONIC
#endif
#ifndef REPEATS
#define REPEATS 5
#endif

#ifdef BENCH_VECTOR
int bench_vector(const bench_input_t *x, double *out);
#endif

int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    long n = atol(argv[2]), calls = argc > 4 ? atol(argv[4]) : 0, i, r;
    float *rows = malloc(sizeof(float) * (size_t)(n * BENCH_N_FEATURES));
    uint32_t *order = NULL;
    volatile long sink = 0;
    if (!f || !rows
        || fread(rows, sizeof(float), (size_t)(n * BENCH_N_FEATURES), f)
               != (size_t)(n * BENCH_N_FEATURES))
        return 3;
    if (argv[3][0] == 'c') {            /* check: the class of every row */
        for (i = 0; i < n; i++)
            printf("%d\n", bench_predict(rows + i * BENCH_N_FEATURES));
        return 0;
    }
#ifdef BENCH_VECTOR
    if (argv[3][0] == 'v') {            /* vector: its doubles' bits, one row a line */
        for (i = 0; i < n; i++) {
            double out[BENCH_N_CLASSES];
            int k, m = bench_vector(rows + i * BENCH_N_FEATURES, out);
            for (k = 0; k < m; k++) {
                unsigned long long bits;
                memcpy(&bits, &out[k], sizeof bits);
                printf(k ? " %016llx" : "%016llx", bits);
            }
            printf("\n");
        }
        return 0;
    }
#endif
    if (argv[3][0] == 's') {            /* shuffled: a fixed pseudo-random order */
        unsigned long long s = 88172645463325252ull;
        order = malloc(sizeof(uint32_t) * (size_t)calls);
        if (!order)
            return 3;
        for (i = 0; i < calls; i++) {   /* xorshift64, drawn before the clock starts */
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            order[i] = (uint32_t)(s % (unsigned long long)n);
        }
    }
    for (r = 0; r < REPEATS; r++) {     /* time: REPEATS loops, ns per call of each */
        struct timespec a, b;
        clock_gettime(BENCH_CLOCK, &a);
        if (order)
            for (i = 0; i < calls; i++)
                sink += bench_predict(rows + (long)order[i] * BENCH_N_FEATURES);
        else
            for (i = 0; i < calls; i++)
                sink += bench_predict(rows + (i % n) * BENCH_N_FEATURES);
        clock_gettime(BENCH_CLOCK, &b);
        printf("%.3f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec))
                             / (double)calls);
    }
    return (int)(sink & 0);
}
"""


@dataclass(frozen=True)
class BenchApi:
    """treegen's CApi for a form's predict.h (float input, no predict_proba)."""

    n_features: int
    n_classes: int
    prefix: str = "bench"
    encoding: Encoding = field(default_factory=lambda: Encoding("float"))
    features: tuple[Feature, ...] = ()
    proba_api: ProbaApi | None = None  # the class only


@dataclass
class LinkCost:
    flash: int = -1
    ram: int = -1
    total_flash: int = -1  # the whole firmware: does it fit?
    total_ram: int = -1
    stack: int | None = None
    object_ram: int = -1  # predict.o's .data + .bss (+ .rodata on AVR)
    error: str = ""


def run(cmd: list[str], cwd: Path, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return run_captured(cmd, cwd, timeout)


def too_slow(cc: str) -> str:
    """What a build cut off at :data:`COMPILE_SECONDS` reports."""
    return f"{cc}: did not compile in {COMPILE_SECONDS:.0f} s"


def first_error(text: str) -> str:
    lines = text.splitlines()
    for key in ("undefined reference", "overflow", "will not fit", "error"):
        for line in lines:
            if key in line:
                return line.strip()[:160]
    return (text.strip().splitlines() or ["?"])[-1][:160]


def write(form: HasFiles, d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    for name, text in form.files.items():
        (d / name).write_text(text)
    return d


def _firmware(t: targets.Target, d: Path, objects: list[str], name: str) -> tuple[int, int]:
    (d / "bench_main.c").write_text(MAIN_C)
    cmd = [t.cc, *t.cflags, *FLAGS, *LINK[t.name], "bench_main.c", *objects]
    p = run([*cmd, *LIBS[t.name], "-o", name], d, COMPILE_SECONDS)
    if p.returncode != 0:
        raise ToolError(f"{t.name}: link failed: {first_error(p.stderr)}")
    return flash_ram(section_sizes(d / name, t), t)


def link_cost(form: HasFiles, chip: str, d: Path) -> LinkCost:
    """Flash and RAM the form adds to a firmware on ``chip``, and its stack bound."""
    t = targets.target(chip)
    if not targets.available(t, run=False):
        return LinkCost(error="-")
    write(form, d)
    (d / "bench_empty.c").write_text(EMPTY_C)
    try:
        # predict.o as treegen's firmware compiles it (FLAGS, -fstack-usage), linked.
        _, info = compile_predict(t, "bench", d, timeout=COMPILE_SECONDS)
        base = _firmware(t, d, ["bench_empty.c"], "empty.elf")
        full = _firmware(t, d, ["predict.o"], "full.elf")
    except ToolError as err:
        return LinkCost(error=err.message)
    except subprocess.TimeoutExpired:
        return LinkCost(error=too_slow(t.cc))
    return LinkCost(full[0] - base[0], full[1] - base[1], full[0], full[1], info.stack, info.ram)
