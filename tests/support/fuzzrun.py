"""Running one fuzz case's command and holding it to the error contract.

:func:`call` runs ``treegen ARGV`` in this process with its output captured and a time
limit (a hang is a failure, not a stuck test run); :func:`check_run` holds the result
to the contract: status 0 or 2, on 2 one ``treegen: error:`` line that names one of
the inputs, and no output file written, replaced or left behind but the command's own
on success (:class:`Guard` plants the files to watch).  :func:`call_api` holds the
Python API to the same contract: a TreegenError or an answer.
"""

from __future__ import annotations

import contextlib
import io
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import treegen
from treegen.cli.main import main
from treegen.errors import TreegenError

from support.timelimit import time_limit

SENTINEL = b"an existing output file: must survive a failed run\n"


class Hang(BaseException):
    """Raised in the command by the timer: a BaseException, so no handler of treegen's
    takes it for an error of the input."""


@contextlib.contextmanager
def guarded(what: str, limit: float) -> Iterator[None]:
    """A fuzz case's run (``what`` names the case and the call, for the failure): a run
    past ``limit`` seconds or an exception that reaches here fails the test, with its
    traceback.  The callers catch what the contract allows (a TreegenError) inside."""
    try:
        with time_limit(limit, Hang):
            yield
    except Hang:
        raise AssertionError(f"{what} ran past {limit} s") from None
    except Exception:
        raise AssertionError(f"{what} raised\n{traceback.format_exc()}") from None


def call(case: str, argv: Sequence[str], limit: float = 30.0) -> tuple[int, str]:
    """Exit status and stderr of ``treegen ARGV`` (stdout is read and dropped); a
    traceback or a run past ``limit`` seconds fails the test, naming the case."""
    out, err = io.StringIO(), io.StringIO()
    with guarded(f"case {case}: {list(argv)}", limit):
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with warnings.catch_warnings():
                # As a user runs it (not the suite's warnings-as-errors): a library's
                # warning is a treegen: warning: line, checked below
                warnings.simplefilter("default")
                try:
                    status = main(list(argv))
                except SystemExit as exc:  # argparse's usage errors
                    status = int(exc.code or 0)
    # A warning of arithmetic (overflow, invalid values) is treegen's own numbers gone
    # wrong; a library's notice about the input (numpy reading an old header) is not.
    said = err.getvalue()
    assert "treegen: warning: RuntimeWarning" not in said, f"case {case}: {argv}: {said}"
    return status, said


def call_api(case: str, model: str, data: str, limit: float = 30.0) -> None:
    """The Python API on the model file ``model`` that the commands accepted: load it,
    its labels, and predict and predict_proba on the rows of ``data`` must each return
    or raise a TreegenError (a kind without probabilities refuses them so); any other
    exception, or a run past ``limit`` seconds, fails the test naming the case."""
    steps: list[Callable[[Any], object]] = [
        lambda m: m.classes_,
        lambda m: m.predict(data),
        lambda m: m.predict_proba(data),
    ]
    with guarded(f"case {case}: the API on {model}", limit), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # feature-name warnings are not failures
        try:
            loaded = treegen.load(model)
        except TreegenError:
            return
        for step in steps:
            with contextlib.suppress(TreegenError):
                step(loaded)


class Guard:
    """A folder of existing output files (``out.tree``, ``predict.c``, ``predict.h``,
    ``i.trees``) that a failed run must leave as they are, and nothing added."""

    NAMES = ("out.tree", "predict.c", "predict.h", "i.trees")

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for name in self.NAMES:
            (folder / name).write_bytes(SENTINEL)

    @property
    def exported(self) -> tuple[str, ...]:
        return (str(self.folder / "predict.c"), str(self.folder / "predict.h"))

    def changed(self, allowed: Sequence[str]) -> list[str]:
        """Files added, or guarded files changed, other than ``allowed``."""
        bad = []
        for f in sorted(self.folder.iterdir()):
            if str(f) in allowed:
                continue
            if f.name not in self.NAMES or f.read_bytes() != SENTINEL:
                bad.append(f.name)
        return bad


def check_run(
    case: str,
    status: int,
    err: str,
    guard: Guard,
    inputs: Sequence[str],
    wrote: Sequence[str] = (),
) -> None:
    """The contract for one run (``wrote``: the files it may write when it succeeds)."""
    assert status in (0, 2), f"case {case}: exit status {status}: {err[:2000]}"
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("treegen: error: "), (
            f"case {case}: not one error line: {err[:2000]}"
        )
        assert "Traceback" not in err, f"case {case}: {err}"
        assert any(p in err for p in inputs), f"case {case}: names no input file: {err}"
        assert not guard.changed(()), f"case {case}: touched {guard.changed(())} after {err}"
    else:
        assert not guard.changed(wrote), f"case {case}: wrote {guard.changed(wrote)}"
