"""A --cc that cannot be run, or that writes something other than a shared library, is
a one-line error naming --cc, exit status 2, no traceback (verify/build.py).

The other ways a compiler fails (not found, exits non-zero, writes nothing) are held in
tests/cli/test_verify_cli.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import run_cli


@pytest.fixture()
def golf_tree(tmp_path: Path) -> Path:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    return path


def _executable(path: Path, content: bytes) -> str:
    path.write_bytes(content)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    "content, why",
    [
        (b"#!/nonexistent/interpreter\n", "No such file or directory"),  # its #! is missing
        (b"\x7fELF not a program", "Exec format error"),
    ],
)
def test_a_compiler_that_cannot_run_is_named(
    golf_tree: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    why: str,
) -> None:
    cc = _executable(tmp_path / "cc", content)
    code, out, err = run_cli(capsys, "verify", str(golf_tree), "--cc", cc, "--random", "5")
    assert (code, out) == (2, "")
    assert err == f"treegen: error: --cc: cannot run the C compiler {cc}: {why}\n"


def test_a_library_that_does_not_load_is_named(
    golf_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 'compiler' that exits 0 and writes junk where the library goes (-o FILE)."""
    script = '#!/bin/sh\nfor a; do [ "$prev" = -o ] && echo junk > "$a"; prev="$a"; done\n'
    cc = _executable(tmp_path / "cc", script.encode())
    code, out, err = run_cli(capsys, "verify", str(golf_tree), "--cc", cc, "--random", "5")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err, err
    head = r"treegen: error: --cc: cannot load the compiled C "
    assert re.match(head + r"\(libtreegen_golf_[0-9a-f]{16}[.]\w+\): ", err), err
