"""The firmware options of ``treegen export`` (``--report``, ``--on``) and ``treegen
verify`` (``--on``), kept apart from treegen.cli.export so that module only calls in."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from treegen.firmware.targets import TARGETS

if TYPE_CHECKING:
    from treegen.codegen.options import ExportOptions
    from treegen.data.dataset import Dataset
    from treegen.kinds.export import Rendered

_ON_HELP = (
    "run the C on a simulated chip: avr (ATmega328P, simavr), m0plus, m3, m4f "
    "(Cortex-M0+/M3/M4F, qemu-system-arm), rv32imc, rv32imafc (RISC-V without and "
    "with an FPU, qemu-system-riscv32); repeatable"
)


def add_export_report_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("report options")
    g.add_argument(
        "--report",
        action="store_true",
        help="after writing, print flash, RAM and stack bound of predict.o for "
        "each installed compiler (host gcc, arm-none-eabi-gcc, avr-gcc, "
        "riscv64-unknown-elf-gcc)",
    )
    g.add_argument(
        "--on",
        action="append",
        default=[],
        choices=list(TARGETS),
        metavar="TARGET",
        help=_ON_HELP + "; adds cycles or instructions per prediction to the "
        "report (implies --report)",
    )


def add_verify_on_option(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--on",
        action="append",
        default=[],
        choices=list(TARGETS),
        metavar="TARGET",
        help=_ON_HELP + ", instead of compiling for this machine",
    )


def export_report(args: argparse.Namespace, value: Any, rendered: Rendered) -> None:
    """``export --report`` (``--on``): what the files just written cost on each chip."""
    from treegen.firmware.report import report_text  # here: every command parses these options

    sys.stdout.write(report_text(value, rendered, args.on))


def verify_on(
    args: argparse.Namespace,
    value: Any,
    opts: ExportOptions,
    data: Sequence[Dataset],
    path: str | None = None,
) -> int:
    """``verify --on``: verify's comparison with the C run on simulated chips."""
    from treegen.firmware.parity import verify_on as run

    report = run(value, opts, data, args.on, path=path, n_random=args.random, seed=args.seed).report
    sys.stdout.write(report.text(args.show))
    return 0 if report.ok else 1
