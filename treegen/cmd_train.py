"""Subcommands train, show, eval, predict, cv (placeholder until the trainer lands)."""

from __future__ import annotations

import argparse
import sys


def _not_yet(args: argparse.Namespace) -> int:
    print(f"treegen {args.command}: not yet implemented (the trainer issue adds it)", file=sys.stderr)
    return 2


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for name, text in [
        ("train", "train a C4.5 tree from DATA"),
        ("show", "print a model's tree"),
        ("eval", "evaluate a model on DATA"),
        ("predict", "predict DATA rows with a model"),
        ("cv", "cross-validate training on DATA"),
    ]:
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("args", nargs="*")
        p.set_defaults(func=_not_yet)
