"""Subcommands export and verify (placeholder until code generation lands)."""

from __future__ import annotations

import argparse
import sys


def _not_yet(args: argparse.Namespace) -> int:
    print(f"treegen {args.command}: not yet implemented (the code generation issue adds it)",
          file=sys.stderr)
    return 2


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for name, text in [
        ("export", "write predict.c / predict.h for a model"),
        ("verify", "compile the exported C and check parity with the Python model"),
    ]:
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("args", nargs="*")
        p.set_defaults(func=_not_yet)
