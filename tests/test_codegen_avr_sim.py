"""The exported C running on a simulated ATmega328P (simavr): the AVR-only paths
(PROGMEM tables read with pgm_read_*, 16-bit int, 32-bit double) give the same
classes and probabilities as the Python fixed-point model, bit for bit.

The firmware prints one line per test vector on the UART: class then probabilities,
in hex.  simavr shows UART output on stderr (with colour codes, control characters as
'.'), ends when the firmware does cli + sleep, and is always run under a timeout."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.ctype import TYPES
from treegen.codegen.emit import emit
from treegen.codegen.fixedpoint import FixedPointClassifier
from treegen.codegen.inputs import comparison_inputs
from treegen.codegen.literals import c_float, c_int
from treegen.codegen.lower import ExportOptions, lower
from treegen.model.core import Model

from support import codegen_models as cm
from support.modes import EXPORT_MODES

pytestmark = pytest.mark.skipif(
    shutil.which("avr-gcc") is None or shutil.which("simavr") is None,
    reason="avr-gcc or simavr is not installed")

MAIN = r"""
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <avr/pgmspace.h>
#include "predict.h"

#define N_ROWS %(n)d
static const %(ctype)s rows[N_ROWS][%(U)s_N_FEATURES] PROGMEM = {
%(rows)s
};

static void put(char c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

static void hex(uint16_t v)
{
    int i;
    for (i = 12; i >= 0; i -= 4) {
        put("0123456789abcdef"[(v >> i) & 15u]);
    }
    put(' ');
}

int main(void)
{
    int r;
    uint8_t c;
    %(ctype)s x[%(U)s_N_FEATURES];
    uint16_t p[%(U)s_N_CLASSES];
    UBRR0 = 0;
    UCSR0B = (1 << TXEN0);
    for (r = 0; r < N_ROWS; r++) {
        memcpy_P(x, rows[r], sizeof x);
        hex((uint16_t)%(P)s_predict(x));
        %(P)s_predict_proba(x, p);
        for (c = 0; c < %(U)s_N_CLASSES; c++) {
            hex(p[c]);
        }
        put('\n');
    }
    put('\n');
    cli();
    sleep_mode();
    return 0;
}
"""


def _literal(v: float, itype: str) -> str:
    if itype == "float":
        if math.isnan(v):
            return "__builtin_nanf(\"\")"
        if math.isinf(v):
            return "__builtin_inff()" if v > 0 else "-__builtin_inff()"
        return c_float(v)
    return c_int(int(v), itype)


def run_on_avr(model: Model, opts: ExportOptions, workdir: Path, n: int = 150) -> None:
    ir = lower(model, opts)
    files = emit(ir, opts.style)
    for name, text in files.items():
        (workdir / name).write_text(text)
    X = comparison_inputs(ir, n_random=60)
    X = X[np.random.default_rng(0).permutation(len(X))[:n]].astype(TYPES[opts.input_type].dtype)
    rows = ",\n".join("    {" + ", ".join(_literal(float(v), opts.input_type) for v in row) + "}"
                      for row in X)
    (workdir / "main.c").write_text(MAIN % {
        "n": len(X), "ctype": TYPES[opts.input_type].c_name, "U": opts.prefix.upper(),
        "P": opts.prefix, "rows": rows})
    elf = workdir / "fw.elf"
    subprocess.run(["avr-gcc", "-mmcu=atmega328p", "-Os", "-std=gnu99", "-o", str(elf),
                    str(workdir / "main.c"), str(workdir / "predict.c")], check=True)
    sim = subprocess.run(["timeout", "60", "simavr", "-m", "atmega328p", "-f", "16000000",
                          str(elf)], capture_output=True, text=True, check=False)
    text = re.sub(r"\x1b\[[0-9;]*m", "", sim.stderr)
    lines = re.findall(r"((?:[0-9a-f]{4} ){" + str(1 + ir.n_classes) + "})", text)
    assert len(lines) == len(X), sim.stderr[-500:]
    got = np.array([[int(t, 16) for t in line.split()] for line in lines])
    cls, proba = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(got[:, 0], cls)
    assert np.array_equal(got[:, 1:], proba)


@pytest.mark.parametrize("style,mode", [("table", "float"), ("ifs", "keys"),
                                        ("table", "int16"), ("ifs", "int16")])
def test_golf_and_synthetic_on_avr(style: str, mode: str, tmp_path: Path) -> None:
    for name, model in (("golf", cm.golf()), ("syn", cm.synthetic(5, 120))):
        d = tmp_path / name
        d.mkdir()
        opts = ExportOptions(prefix=name, style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
        run_on_avr(model, opts, d)
