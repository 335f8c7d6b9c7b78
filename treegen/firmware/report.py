"""``treegen export --report``: what predict.c costs with each installed compiler.

One row per compiler found (host gcc, arm-none-eabi-gcc for Cortex-M0+ and M4F,
avr-gcc, riscv64-unknown-elf-gcc for RV32IMC and RV32IMAFC; and the targets named with
``--on``): flash and RAM of predict.o, the stack bound of a prediction and the library
helpers it calls (:mod:`treegen.firmware.objinfo`); with ``--on``, the cycles (AVR) or
instructions (Cortex-M, RISC-V) per prediction on the simulated chip over verify's rows.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from treegen.codegen.avr import check_files
from treegen.errors import ToolError
from treegen.firmware import targets
from treegen.firmware.build import compile_predict, write_export
from treegen.firmware.objinfo import ObjectInfo
from treegen.firmware.parity import count_summary
from treegen.firmware.sim import run_vectors
from treegen.firmware.targets import COMMON_CFLAGS, Target
from treegen.kinds.export import Rendered
from treegen.verify.report import Report


def compile_object(t: Target, files: dict[str, str], d: Path, prefix: str) -> ObjectInfo:
    """predict.o for ``t`` with the firmware's flags, measured."""
    return compile_predict(t, prefix, d, write_export(files, d))[1]


def _smaller(rendered: Rendered) -> str:
    """The options that make the C smaller (docs/exporting.md) that the kind has and this
    export does not use yet, as a clause (a ruleset has only the input type: one style,
    one missing-value rule)."""
    opts, kind = rendered.opts, rendered.kind
    unused = [
        option
        for option, used in (
            ("--style table", "table" not in kind.styles or opts.style == "table"),
            ("--missing none", not kind.lean or opts.missing == "none"),
            ("an integer --input-type", opts.input_type not in ("float", "double")),
        )
        if not used
    ]
    return f"; smaller C: {', '.join(unused)}" if unused else ""


def report_text(
    value: Any,
    rendered: Rendered,
    on: Sequence[str] = (),
    *,
    n_random: int = 1000,
) -> str:
    """The table of what ``rendered`` (the C of ``value``) costs with each compiler
    installed, and with ``on`` per prediction on those simulated chips."""
    kind, opts, files = rendered.kind, rendered.opts, rendered.files
    ir = kind.api(rendered.lowered)
    chosen = [targets.target(n) for n in dict.fromkeys(on)]
    for t in chosen:
        targets.require(t)
    names = list(targets.REPORT_TARGETS) + [
        t.name for t in chosen if t.name not in targets.REPORT_TARGETS
    ]
    rows: list[list[str]] = []
    missing: list[str] = []
    over: list[str] = []  # chips whose flash predict.o alone outgrows
    X = kind.rows(value, rendered.lowered, opts, [], n_random, 0, Report()) if chosen else None
    with tempfile.TemporaryDirectory(prefix="treegen-report-") as tmp:
        for name in names:
            t = targets.target(name)
            gone = targets.missing_tools(t, run=False)
            if gone:  # the compiler, else what it lacks (picolibc's specs file)
                missing.append(t.cc if t.cc in gone else gone[0])
                continue
            counts = ""
            refused = check_files(files, opts) if t.name == "avr" else None
            if refused is not None:
                rows.append(
                    [t.title, "-", "-", "-", f"too large: {refused}"] + ([""] if chosen else [])
                )
                continue
            if t in chosen:
                assert X is not None
                run = run_vectors(ir, files, X, t)
                info = run.predict
                counts = f"{t.unit}: {count_summary(run)}" if run.ok else f"FAILED: {run.failure}"
            else:
                try:
                    info = compile_object(t, files, Path(tmp) / name, ir.prefix)
                except ToolError as err:  # e.g. double input on AVR: predict.c's #error
                    why = err.message.split(" failed: ", 1)[-1]
                    rows.append(
                        [t.title, "-", "-", "-", f"does not compile: {why}"]
                        + ([""] if chosen else [])
                    )
                    continue
            if t.flash and info.flash > t.flash:
                # The row's chip is named: a number above its flash, unremarked, read
                # as if it fitted (verify --on says so only when it runs).
                over.append(
                    f"{t.title.split(' (')[0]}: predict.o's {info.flash} bytes of flash are "
                    f"more than the chip's {t.flash}{_smaller(rendered)}"
                )
            stack = "dynamic" if info.stack is None else str(info.stack)
            row = [t.title, str(info.flash), str(info.ram), stack, ", ".join(info.helpers) or "-"]
            rows.append(row + ([counts] if chosen else []))
    head = ["compiler", "flash", "RAM", "stack", "calls"] + (["per prediction"] if chosen else [])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def fmt(r: list[str]) -> str:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) if i <= 3 else c.ljust(w)
            for i, (c, w) in enumerate(zip(r[1:], widths[1:], strict=True), 1)
        ]
        return "  ".join(cells).rstrip()

    title = f"predict.o, {' '.join(COMMON_CFLAGS)}: {kind.summary(rendered.lowered, opts)}"
    out = [title, fmt(head)] + [fmt(r) for r in rows]
    out.append(
        "flash = .text + .rodata + .data (+ PROGMEM on AVR); RAM = .data + .bss (+ "
        ".rodata on AVR); stack = bytes of the deepest call chain of a prediction, "
        "the helpers under calls not included"
    )
    if missing:
        out.append(f"not installed: {', '.join(dict.fromkeys(missing))}")
    out += [f"note: {note}" for note in [*over, *rendered.notes]]
    return "\n".join(out) + "\n"
