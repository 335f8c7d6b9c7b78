"""Command-line front end: ``treegen [--quiet] SUBCOMMAND ...``.

This module owns only the frame: the top-level parser, the global options,
and the error policy shared by every subcommand.  Subcommands are added by
``register(subparsers)`` functions of the other :mod:`treegen.cli` modules
(:func:`_registrars`); each sets ``func(args) -> int``.

Conventions (issue 2): results go to stdout, diagnostics to stderr; exit 0
on success, 1 when a verification fails, 2 for bad input or usage.  Every
:class:`~treegen.errors.TreegenError` and every argparse complaint becomes
exactly one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, cast

from treegen.cli import export, import_gbm, importer, report, rules, synth, train, use
from treegen.cli.common import refuse_to_overwrite_inputs
from treegen.cli.inputs import check_input_kinds
from treegen.data.npstate import numpy_defaults
from treegen.errors import TreegenError
from treegen.model import native as model_native
from treegen.model.version import VERSION
from treegen.rules import native as rules_native
from treegen.trainer import native as trainer_native

EXIT_OK = 0
EXIT_VERIFY_FAILED = 1
EXIT_BAD_INPUT = 2

Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _one_line(text: str) -> str:
    """Collapse whitespace so a message is guaranteed to be a single line."""
    return " ".join(text.split())


def error_line(message: str) -> str:
    """The one stderr line every failure is reported as."""
    return f"treegen: error: {_one_line(message)}"


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit status 2.

    argparse's default prints the whole usage block before the message;
    treegen's contract is a single line that names the option.  Subparsers
    inherit this class because ``add_subparsers`` reuses the parent's type.

    Options are never accepted abbreviated (``--prob`` for ``--proba``): with
    abbreviations, adding an option later (``--probe``) would change what an old
    script's ``--prob`` means, or make it an error.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        sub = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        where = f"{sub}: " if sub else ""
        hint = f" (see '{self.prog} --help')"
        sys.stderr.write(error_line(f"{where}{message}{hint}") + "\n")
        sys.exit(EXIT_BAD_INPUT)


class _VersionAction(argparse.Action):
    """``--version``: the version, and whether training runs the C accelerator."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        sys.stdout.write(f"treegen {VERSION}; {accelerator_status()}\n")
        parser.exit()


def accelerator_status() -> str:
    """Which C accelerator modules are in use (``--version``)."""
    return model_native.describe(
        {
            "growth": trainer_native.cscan,
            "pruning": trainer_native.cprune,
            "classification": model_native.cclassify,
            "rules": rules_native.crules,
        }
    )


def _registrars() -> list[Registrar]:
    return [
        train.register,
        use.register,
        train.register_cv,
        export.register,
        report.register,
        rules.register,
        importer.register,
        import_gbm.register,
        synth.register,
    ]


def build_parser() -> OneLineParser:
    """The complete treegen parser, all subcommands registered."""
    parser = OneLineParser(
        prog="treegen",
        description="Train C4.5 decision trees and compile them to portable, exact C.",
        epilog="Exit status: 0 ok, 1 verification failed, 2 bad input or usage. "
        "Run 'treegen SUBCOMMAND --help' for a subcommand's options.",
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        nargs=0,
        help="print treegen's version and whether its C accelerator is in use",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=False,
        help="print results only, no progress or diagnostics on stderr",
    )
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", metavar="SUBCOMMAND", title="subcommands"),
    )
    for register in _registrars():
        register(sub)
    # --quiet is accepted after the subcommand too.  SUPPRESS keeps a
    # subparser from resetting a --quiet that was given before it.
    for subparser in sub.choices.values():
        subparser.add_argument(
            "-q",
            "--quiet",
            action="store_true",
            default=argparse.SUPPRESS,
            help="print results only, no progress or diagnostics on stderr",
        )
    return parser


@numpy_defaults
def main(argv: Sequence[str] | None = None) -> int:
    """Run treegen with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(list(argv) if argv is not None else None)
    if extra:
        # Name the subcommand whose options were wrong, not just "treegen".
        where = f"{args.command}: " if getattr(args, "command", None) else ""
        parser.error(f"{where}unrecognized arguments: {' '.join(extra)}")
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.error("no subcommand given")
    try:
        check_input_kinds(args)
        refuse_to_overwrite_inputs(args)
        status = int(func(args))
        sys.stdout.flush()  # surface a broken pipe here, not at interpreter exit
        return status
    except BrokenPipeError:
        # Whoever read our stdout stopped early (``treegen predict ... | head``):
        # not an error of ours.  Point stdout at /dev/null so the final flush is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13  # as if killed by SIGPIPE, the shell convention
    except TreegenError as err:
        sys.stderr.write(error_line(str(err)) + "\n")
        return EXIT_BAD_INPUT
    except OSError as err:
        # Unreadable input or unwritable output: the user's problem, not a bug.
        name = err.filename if err.filename is not None else ""
        reason = err.strerror or str(err)
        sys.stderr.write(error_line(f"{name}: {reason}" if name else reason) + "\n")
        return EXIT_BAD_INPUT
    except MemoryError:
        # Input too large for this machine (a file with one class per row, /dev/zero):
        # still one line, not a traceback.
        sys.stderr.write(
            error_line("out of memory: the input is too large for this machine") + "\n"
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("treegen: interrupted\n")
        return 130
