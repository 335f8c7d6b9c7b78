"""Subcommands ``plot`` (the tree as a picture, through Graphviz) and ``info`` (what a
model or ruleset is made of, and an estimate of a model's flash)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from treegen.cli.common import int_range
from treegen.codegen.ctype import INPUT_TYPES
from treegen.errors import UsageError
from treegen.kinds import a_kind, load
from treegen.model.picture import PLOT_FORMATS, dot_option, dot_program, plot_format, render
from treegen.model.picture_layout import MAX_RATIO, WIDE, readable_dot


def run_plot(args: argparse.Namespace) -> int:
    """Render MODEL's tree to -o FILE with Graphviz's dot."""
    fmt = plot_format(args.output)
    kind, value = load(args.model)
    if kind.dot is None:
        raise UsageError(
            f"{a_kind(kind.name)} has no tree to draw ('treegen show' prints it)", file=args.model
        )
    program = dot_program(args.dot)
    draw = kind.dot

    def dot_of(graph: Sequence[str]) -> str:
        return draw(value, args.max_depth, graph)

    # The program failing, or writing nothing, is --dot's error when --dot named it.
    render(readable_dot(dot_of, program, dot_option(args.dot)), args.output, fmt, dot=args.dot)
    return 0


def run_info(args: argparse.Namespace) -> int:
    """Print what MODEL is made of (its kind's report)."""
    kind, value = load(args.model)
    sys.stdout.write(kind.info(value, args.input_type))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the plot and info subcommands to ``sub``."""
    p = sub.add_parser(
        "plot",
        help="draw a model's tree (SVG, PNG, PDF) with Graphviz",
        description="Render MODEL's tree ('treegen show --format dot') with Graphviz's "
        "dot into FILE; the format follows FILE's extension. Needs the dot program "
        "(Debian package graphviz).",
        epilog=f"A picture wider than {WIDE / 72:g} inches is laid out so that its width "
        f"is at most {MAX_RATIO:g} times its height: left to right, or else stretched "
        "downwards. --max-depth draws the top of a large tree.",
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
    p.add_argument(
        "--max-depth",
        metavar="N",
        type=int_range(0),
        default=None,
        help="draw the nodes down to depth N only (the root is depth 0); a test at depth N "
        "is dashed and says how many tests, leaves and levels were cut below it",
    )
    p.set_defaults(func=run_plot)

    p = sub.add_parser(
        "info",
        help="what a model or ruleset is made of, and a model's estimated flash",
        description="Print MODEL's size, depth, leaves per depth, each attribute and how "
        "many tests use it, the training options and data fingerprint, and an "
        "estimate of the flash its table-style predict.c takes per target "
        "(a formula over the node counts, not a compilation). For a ruleset "
        "('treegen rules -o'): its rules per class, conditions on each attribute "
        "and per rule, options and fingerprint.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "--input-type",
        choices=INPUT_TYPES,
        default=None,
        help="the C input type the estimate assumes (default float)",
    )
    p.set_defaults(func=run_info)
