"""Subcommands ``plot`` (the tree as a picture, through Graphviz) and ``info`` (what a
model is made of, and an estimate of its flash)."""

from __future__ import annotations

import argparse
import sys

from treegen.analysis.report import format_report, model_report
from treegen.codegen.flash import estimate_flash
from treegen.codegen.ir import INPUT_TYPES
from treegen.model.file import load_model
from treegen.model.picture import PLOT_FORMATS, format_dot, plot_format, render


def run_plot(args: argparse.Namespace) -> int:
    """Render MODEL's tree to -o FILE with Graphviz's dot."""
    fmt = plot_format(args.output)
    render(format_dot(load_model(args.model)), args.output, fmt, dot=args.dot)
    return 0


def run_info(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    text = format_report(model, model_report(model))
    flash = estimate_flash(model, args.input_type)
    text += f"estimated flash, --style table --input-type {args.input_type} (not compiled):\n"
    text += "".join(f"  {target}: ~{size} bytes\n" for target, size in flash.items())
    sys.stdout.write(text)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the plot and info subcommands to ``sub``."""
    p = sub.add_parser(
        "plot",
        help="draw a model's tree (SVG, PNG, PDF) with Graphviz",
        description="Render MODEL's tree ('treegen show --format dot') with Graphviz's "
        "dot into FILE; the format follows FILE's extension. Needs the dot program "
        "(Debian package graphviz).",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        required=True,
        help=f"picture to write: .{', .'.join(PLOT_FORMATS)}",
    )
    p.add_argument(
        "--dot",
        metavar="PROGRAM",
        default=None,
        help="the Graphviz dot program (default: dot on PATH)",
    )
    p.set_defaults(func=run_plot)

    p = sub.add_parser(
        "info",
        help="what a model is made of, and its estimated flash",
        description="Print MODEL's size, depth, leaves per depth, each attribute and how "
        "many tests use it, the training options and data fingerprint, and an "
        "estimate of the flash its table-style predict.c takes per target "
        "(a formula over the node counts, not a compilation).",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "--input-type",
        choices=INPUT_TYPES,
        default="float",
        help="the C input type the estimate assumes (default float)",
    )
    p.set_defaults(func=run_info)
