"""Command-line front end: ``treegen [--quiet] SUBCOMMAND ...``.

This module owns only the frame: the top-level parser, the global options,
and the error policy shared by every subcommand.  Subcommands are added by
``register(subparsers)`` functions of the other :mod:`treegen.cli` modules
(:func:`_registrars`); each sets ``func(args) -> int``.

Conventions: results go to stdout, diagnostics to stderr; exit 0
on success, 1 when a verification fails, 2 for bad input or usage.  Every
:class:`~treegen.errors.TreegenError` and every argparse complaint becomes
exactly one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, cast

from treegen.cli.inputs import check_input_kinds
from treegen.cli.outputs import refuse_to_overwrite_inputs
from treegen.data.npstate import numpy_defaults
from treegen.errors import TreegenError
from treegen.model.optnames import on_command_line
from treegen.model.version import VERSION

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


@contextlib.contextmanager
def _warnings_as_lines(quiet: bool) -> Iterator[None]:
    """A library's warning during a command (numpy reading an edited ``.npy`` header in
    a skops file, say) as one ``treegen: warning:`` line on stderr, as a diagnostic:
    none with ``--quiet``; not Python's two lines naming the library's source line."""

    def show(message: Warning | str, category: type[Warning], *_: Any, **__: Any) -> None:
        if not quiet:
            sys.stderr.write(f"treegen: warning: {category.__name__}: {_one_line(str(message))}\n")

    with warnings.catch_warnings():  # (the filters stay the caller's)
        warnings.showwarning = show
        yield


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
    # (imported here: loading every accelerator is only for --version)
    from treegen.model import native as model_native
    from treegen.rules import native as rules_native
    from treegen.trainer import native as trainer_native

    return model_native.describe(
        {
            "growth": trainer_native.cscan,
            "pruning": trainer_native.cprune,
            "classification": model_native.cclassify,
            "rules": rules_native.crules,
        }
    )


# The register functions of the treegen.cli modules, in the order --help lists their
# subcommands: (module, function, the subcommands it adds).
REGISTRARS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("train", "register", ("train",)),
    ("use", "register", ("show", "eval", "predict")),
    ("cv", "register", ("cv",)),
    ("export", "register", ("export", "verify")),
    ("report", "register", ("plot", "info")),
    ("rules", "register", ("rules",)),
    ("importer", "register", ("import-sklearn",)),
    ("import_gbm", "register", ("import-xgboost", "import-lightgbm")),
    ("synth", "register", ("synth",)),
)


def _registrars(command: str | None = None) -> list[Registrar]:
    """The register functions: the one adding ``command``, or all (None or unknown).

    A command's module is imported only when it is registered: the other commands'
    modules (code generation's options, the firmware and packaging front ends, the
    importers) cost ``treegen train`` 0.04-0.06 s of CPU at every start."""
    chosen = [r for r in REGISTRARS if command in r[2]] or list(REGISTRARS)
    return [
        getattr(importlib.import_module(f"treegen.cli.{module}"), name)
        for module, name, _ in chosen
    ]


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the
    top-level options take no value), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(command: str | None = None) -> OneLineParser:
    """The treegen parser, all subcommands registered, or only the one that adds
    ``command`` when that names one (what ``main`` runs needs no other)."""
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
    for register in _registrars(command):
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


def _parser_of(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """``command``'s subparser, or ``parser`` itself when there is none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub: argparse.ArgumentParser = action.choices[command]
            return sub
    return parser


@numpy_defaults
def main(argv: Sequence[str] | None = None) -> int:
    """Run treegen with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    argv = list(argv) if argv is not None else sys.argv[1:]
    parser = build_parser(command_of(argv))
    args, extra = parser.parse_known_args(argv)
    if extra:
        # The subcommand's parser names it, and points at its --help, which lists the
        # options ('treegen --help' lists none of them).
        _parser_of(parser, getattr(args, "command", None)).error(
            f"unrecognized arguments: {' '.join(extra)}"
        )
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.error("no subcommand given")
    try:
        with on_command_line(), _warnings_as_lines(getattr(args, "quiet", False)):
            # (on_command_line: the options' errors name the flags, model/optnames.py)
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
