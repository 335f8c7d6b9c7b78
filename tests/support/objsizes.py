"""The sizes of a generated predict.c's constant objects, as ``nm`` reports them, and
``info``'s table bytes held to them (the ensemble table tests)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from treegen.ensemble.view_table import table_bytes
from treegen.kinds.export import Rendered


def constant_sizes(files: Mapping[str, str], source: str, where: Path) -> dict[str, int]:
    """{symbol: bytes} of the read-only and data objects of ``source`` among ``files``,
    compiled by gcc -O0 on the soft binary64 path (``-DP_SOFT64=1`` for its prefix P,
    where every constant is a table); skips the test without gcc and nm."""
    if shutil.which("gcc") is None or shutil.which("nm") is None:
        pytest.skip("gcc and nm are needed")
    for k, v in files.items():
        (where / k).write_text(v)
    prefix = source.split("_predict.c")[0]
    subprocess.run(
        ["gcc", "-O0", f"-D{prefix}_SOFT64=1", "-c", source, "-o", "obj.o"], cwd=where, check=True
    )
    nm = subprocess.run(
        ["nm", "-S", "obj.o"], cwd=where, check=True, capture_output=True, text=True
    ).stdout
    return {f[3]: int(f[1], 16) for f in (line.split() for line in nm.splitlines())
            if len(f) == 4 and f[2] in "rRdD"}  # fmt: skip


def table_sizes(r: Rendered, source: str, where: Path) -> dict[str, int]:
    """:func:`constant_sizes` of ``r``'s ``source``, after holding ``info``'s table bytes
    equal to their sum (a lone divisor, which the compiler may fold into code, counted)."""
    sizes = constant_sizes(r.files, source, where)
    divisor = source.split("_predict.c")[0] + "_divisor"
    # table_bytes counts 8 B for a divisor only when the model has one (a forest's
    # tree count); the compiler may fold that lone double into the code.
    folded = 8 if r.lowered.divisor is not None and divisor not in sizes else 0
    assert table_bytes(r.lowered) == sum(sizes.values()) + folded
    return sizes
