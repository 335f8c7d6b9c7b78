"""The progress line: on a terminal only, not under --quiet, erased before the summary.

The command runs with its stderr on a pseudo-terminal (the pty module) or a
pipe; TREEGEN_PROGRESS_DELAY=0 makes even the tiny golf data show the line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf.data"
CODE = "import sys; from treegen.cli.main import main; sys.exit(main(sys.argv[1:]))"

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals")


def _run(args: list[str], *, tty: bool, delay: str = "0") -> tuple[int, bytes]:
    """Run treegen ARGS; return its exit status and everything it wrote to stderr."""
    env = dict(os.environ, TREEGEN_PROGRESS_DELAY=delay)
    if not tty:
        proc = subprocess.run(
            [sys.executable, "-c", CODE, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
        return proc.returncode, proc.stderr
    master, slave = os.openpty()
    with subprocess.Popen(
        [sys.executable, "-c", CODE, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    ) as proc:
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        rc = proc.wait(timeout=120)
    os.close(master)
    return rc, out.replace(b"\r\n", b"\n")  # the terminal's own newline translation


@pytest.mark.slow
def test_terminal_shows_the_phases_then_erases_the_line(tmp_path: Path) -> None:
    rc, err = _run(["train", str(GOLF), "-o", str(tmp_path / "m.tree")], tty=True)
    assert rc == 0
    text = err.decode()
    phases = [p for p in ("reading", "growing", "pruning", "writing") if f"treegen: {p}" in text]
    assert phases == ["reading", "growing", "pruning", "writing"]
    assert (
        text.index("reading")
        < text.index("growing")
        < text.index("pruning")
        < text.index("writing")
    )
    assert "14 rows" in text and "nodes" in text
    # The last progress drawing is erased, then the summary stands alone on its line.
    head, _, summary = text.rpartition("\r\x1b[K")
    assert head and summary.startswith("treegen: wrote ") and summary.count("\n") == 1
    # The other commands read through the same code: eval shows its phases too.
    rc, err = _run(["eval", str(tmp_path / "m.tree"), str(GOLF)], tty=True)
    assert rc == 0 and b"treegen: reading" in err and b"treegen: evaluating" in err


@pytest.mark.slow
def test_quiet_terminal_gets_nothing(tmp_path: Path) -> None:
    rc, err = _run(["--quiet", "train", str(GOLF), "-o", str(tmp_path / "m.tree")], tty=True)
    assert rc == 0 and err == b""


@pytest.mark.slow
def test_pipe_gets_only_the_summary(tmp_path: Path) -> None:
    rc, err = _run(["train", str(GOLF), "-o", str(tmp_path / "m.tree")], tty=False)
    assert rc == 0
    assert b"\r" not in err and b"\x1b" not in err
    assert err.decode().startswith("treegen: wrote ") and err.count(b"\n") == 1


def test_short_work_shows_no_line(tmp_path: Path) -> None:
    # The default delay: golf trains in milliseconds, far below a second.
    rc, err = _run(["train", str(GOLF), "-o", str(tmp_path / "m.tree")], tty=True, delay="1")
    assert rc == 0
    assert b"\x1b" not in err and err.decode().startswith("treegen: wrote ")


@pytest.mark.slow
def test_a_warning_while_the_line_shows_stands_on_its_own_line(tmp_path: Path) -> None:
    data = tmp_path / "na.csv"
    rows = [f"{i},{'NA' if i % 4 == 0 else 1000 + i},{'yes' if i % 3 else 'no'}" for i in range(30)]
    data.write_text("a,income,label\n" + "\n".join(rows) + "\n")
    rc, err = _run(["train", str(data), "-o", str(tmp_path / "m.tree")], tty=True)
    assert rc == 0
    # The progress line drawn before it is erased first; the warning ends its own line.
    lines = err.decode().split("\n")
    line = next(line for line in lines if "treegen: warning" in line)
    drawn, erase, warning = line.rpartition("\r\x1b[K")
    assert drawn.startswith("\r\x1b[Ktreegen: reading") and erase
    assert warning.startswith("treegen: warning: ") and "column 'income'" in warning


CRX = GOLF.parents[1] / "crx" / "crx.data"


@pytest.mark.slow
def test_rules_shows_its_phases_on_a_terminal_only(tmp_path: Path) -> None:
    """rules: reading, growing, the rules generalised (how many of how many), the subset
    search per class and the final pass, then erased; nothing on a pipe or --quiet."""
    out = tmp_path / "r.json"
    rc, err = _run(["rules", str(CRX), "-o", str(out)], tty=True)
    assert rc == 0
    text = err.decode()
    order = [
        "treegen: reading",
        "treegen: growing the unpruned tree",
        "treegen: generalising rules, 0 of ",
        "treegen: searching rule subsets, 0 of 2",
        "treegen: final pass",
        "treegen: evaluating on the training data",
    ]
    at = [text.index(p) for p in order]
    assert at == sorted(at)
    head, _, summary = text.rpartition("\r\x1b[K")
    assert head and summary.startswith("treegen: wrote ") and summary.count("\n") == 1
    for args in (["rules", str(CRX)], ["--quiet", "rules", str(CRX)]):
        rc, err = _run(args, tty=args[0] == "--quiet")
        assert rc == 0 and b"\r" not in err and b"\x1b" not in err
        assert err == b""


@pytest.mark.slow
@pytest.mark.parametrize("command", ["train", "rules"])
def test_verbose_ends_with_the_peak_memory(command: str, tmp_path: Path) -> None:
    """--verbose: the last line on stderr is the process's peak resident memory (MB, as
    getrusage counts it: at least the interpreter's) and CPU time; --quiet drops it."""
    args = [command, str(CRX), "-o", str(tmp_path / "out"), "--verbose"]
    rc, err = _run(args, tty=False)
    last = err.decode().splitlines()[-1]
    assert rc == 0 and last.startswith("treegen: peak memory "), last
    mb = int(last.split()[3])
    assert last.split()[4] == "MB," and 10 < mb < 4000
    rc, err = _run(["--quiet", *args], tty=False)
    assert rc == 0 and err == b""
