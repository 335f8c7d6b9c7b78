"""Compiling exported C under the project's strict flags (treegen.verify.build.STRICT_FLAGS)
with one standard, for the warning-free tests: any diagnostic fails them."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from treegen.verify.build import STRICT_FLAGS


def compile_strict(
    cc: str, std: str, files: dict[str, str], tmp: Path, extra: Sequence[str] = ()
) -> Path:
    """Write ``files`` into ``tmp`` and compile their one C source with ``cc`` under
    ``std`` (``-std=c89``...), the strict flags and ``extra``; the object's path.  The
    compiler must succeed and print nothing."""
    for name, text in files.items():
        (tmp / name).write_text(text)
    flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    (source,) = (n for n in files if n.endswith(".c"))
    obj = tmp / "p.o"
    r = subprocess.run(
        [cc, std, *flags, *extra, "-c", source, "-o", str(obj)],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return obj
