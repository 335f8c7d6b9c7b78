"""Firmware benchmark: flash and cost per prediction of treegen's C on the simulated chips.

Models: the firmware examples' trees (golf, crx, hypo: the default c45 tree of each
reference dataset, as ``make firmware`` trains them) and the codegen benchmark's five
scikit-learn trees (bench/codegen_bench.py's ``datasets()``, converted with
``treegen.from_sklearn``: an ensemble of one tree).  Each is exported twice with float
input: the default (a C4.5 tree's ``--style ifs`` with C4.5's missing values and
``predict_proba``; an imported tree's node table, missing values going where
scikit-learn sends them, no probabilities) and the smallest (a lean table: ``--style
table --missing none``), and run by treegen.firmware on the
ATmega328P (cycles), the Cortex-M0+ and M4F and RV32IMC and RV32IMAFC (executed
instructions) over its rows: the data rows of a reference tree, the test split of a
scikit-learn one (at most :data:`MAX_ROWS` of them).  Every class (and probability)
the chip prints is held against the Python model, as ``verify --on`` does.  The
table gives the flash of predict.o (``-Os``) and the median count per prediction.
``python -m bench.firmware_bench`` runs it alone; a chip whose tools are missing is
a column of ``-``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from treegen.codegen.options import ExportOptions
from treegen.errors import ToolError
from treegen.firmware import check, targets
from treegen.firmware.sim import run_vectors
from treegen.kinds.export import render
from treegen.verify.report import Report

from bench.harness import CHIP_SECONDS

CHIPS = ("avr", "m0plus", "m4f", "rv32imc", "rv32imafc")
HEADS = {
    "avr": "AVR",
    "m0plus": "M0+",
    "m4f": "M4F",
    "rv32imc": "RV32IMC",
    "rv32imafc": "RV32IMAFC",
}
EXPORTS: dict[str, dict[str, Any]] = {
    "default": {},
    "lean table": {"style": "table", "missing": "none"},
}
MAX_ROWS = 1000
REFERENCE = ("golf", "crx", "hypo")


@dataclass
class Cell:
    flash: int = 0
    median: int = -1
    note: str = ""  # why there is no number
    mismatches: int = 0

    def text(self) -> str:
        if self.note:
            return self.note
        return f"{self.flash} / {self.median}"


def models() -> list[tuple[str, Any, np.ndarray]]:
    """(name, treegen tree, rows as float32 with NaN for missing)."""
    out: list[tuple[str, Any, np.ndarray]] = []
    for name in REFERENCE:
        model, ds = check.load(name)
        out.append((name, model, ds.X.astype(np.float32)))
    try:
        import sklearn  # noqa: F401
    except ImportError:  # the reference trees only
        return out
    import treegen

    from bench.codegen_bench import datasets

    for name, (est, Xte) in datasets().items():
        out.append((name, treegen.from_sklearn(est).value, Xte[:MAX_ROWS].astype(np.float32)))
    return out


def measure(model: Any, rows: np.ndarray, opts: ExportOptions, chip: str) -> Cell:
    t = targets.target(chip)
    if not targets.available(t):
        return Cell(note="-")
    r = render(model, opts)
    api = r.kind.api(r.lowered)
    try:
        run = run_vectors(api, r.files, rows, t, time_limit=CHIP_SECONDS)
    except ToolError as err:
        return Cell(note="does not fit" if "do not fit" in err.message else "error")
    if not run.ok:
        return Cell(note=f"FAILED: {run.failure}")
    report = Report()
    r.kind.compare(model, r.lowered, r.opts, rows, run.cls, run.proba, report)
    return Cell(run.predict.flash, int(np.median(run.count)), mismatches=report.failed_rows)


def n_nodes(model: Any) -> int:
    """Nodes of a C4.5 tree (``Model.nodes``) or of an imported one, which is an
    ensemble of one tree (``Ensemble.n_nodes``: every tree's nodes)."""
    return int(model.n_nodes) if hasattr(model, "n_nodes") else len(model.nodes)


def table_row(name: str, model: Any, n_rows: int, export: str, cells: list[Cell]) -> str:
    """One model and export's line of the table: a cell per chip, the mismatches summed."""
    wrong = sum(c.mismatches for c in cells)
    return (
        f"| {name} | {n_nodes(model)} | {n_rows} | {export} | "
        + " | ".join(c.text() for c in cells)
        + f" | {wrong} |"
    )


def run_firmware_bench(log: Callable[[str], None] = print) -> str:
    """Run the benchmark; returns (and logs) the Markdown table."""
    have = [c for c in CHIPS if targets.available(targets.target(c))]
    if not have:
        msg = "firmware bench: skipped (no cross compiler or simulator installed)"
        log(msg)
        return msg
    head = (
        "| model | nodes | rows | export | "
        + " | ".join(f"{HEADS[c]} flash / {targets.target(c).unit}" for c in CHIPS)
        + " | mismatches |"
    )
    lines = [head, "|" + "---|" * (len(CHIPS) + 5)]
    start = time.monotonic()
    for name, model, rows in models():
        for export, kw in EXPORTS.items():
            log(f"[{name}] {export}: {', '.join(have)} ...")
            opts = ExportOptions(prefix=name, **kw)
            cells = [measure(model, rows, opts, c) for c in CHIPS]
            lines.append(table_row(name, model, rows.shape[0], export, cells))
    table = "\n".join(lines)
    text = (
        "Firmware (predict.o flash in bytes, -Os; median cycles (AVR) or executed "
        f"instructions per prediction; {time.monotonic() - start:.0f} s):\n\n{table}\n"
    )
    log(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.parse_args(argv)
    run_firmware_bench()
    return 0


if __name__ == "__main__":
    sys.exit(main())
