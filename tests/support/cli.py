"""Running treegen's command line from a test: in this process, or as a real process."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import treegen
from treegen.cli.main import build_parser, main

# The folder holding the treegen package this test process imported, so a child
# process runs the same code (the checkout's, under an editable install).
PACKAGE_ROOT = Path(treegen.__file__).resolve().parent.parent


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``treegen ARGV`` run in this process.

    argparse's usage errors and ``--help`` leave ``main()`` through SystemExit;
    its code is the exit status.
    """
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_process(
    *argv: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m treegen ARGV`` as a child process (text output captured, never raises
    on a non-zero exit); ``env`` adds to this process's environment."""
    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), full.get("PYTHONPATH", "")])
    full["PYTHONPATH"] = full["PYTHONPATH"].rstrip(os.pathsep)
    return subprocess.run(
        [sys.executable, "-m", "treegen", *argv],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def refused_json(
    capsys: pytest.CaptureFixture[str],
    path: Path,
    data: object,
    command: str = "show",
    indent: int | None = 2,
) -> tuple[str, str]:
    """``data`` written to ``path`` as JSON (``indent``), then ``treegen COMMAND PATH``,
    which must refuse it: exit 2, nothing on stdout.  The text written and stderr."""
    text = json.dumps(data, indent=indent)
    path.write_text(text)
    code, out, err = run_cli(capsys, command, str(path))
    assert (code, out) == (2, ""), (code, out, err)
    return text, err


def assert_one_line_error(p: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """The process failed with exit 2 and exactly one ``treegen: error:`` line (no
    traceback) containing every fragment; returns that line."""
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("treegen: error: ")
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def subcommands() -> list[str]:
    """The subcommands ``treegen --help`` lists, in order, as the parser defines them."""
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def subparsers() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser, by name, as :func:`build_parser` defines them."""
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def required_argv(parser: argparse.ArgumentParser) -> list[str]:
    """Arguments that get ``parser`` past its required checks: a value for each
    required positional and required option (plot's -o), and an option of each
    required group (cv's --folds/--loo)."""
    argv = [
        "x"
        for a in parser._actions
        if not a.option_strings
        and not isinstance(a, argparse._SubParsersAction)
        and a.nargs in (None, 1)
    ]
    for a in parser._actions:
        if a.required and a.option_strings:
            argv += [a.option_strings[-1], "x"]
    for group in parser._mutually_exclusive_groups:
        if group.required:
            flag = next(a for a in group._group_actions if a.nargs == 0)
            argv.append(flag.option_strings[-1])
    return argv
