"""Many exported models in one compiler run, for the fuzz tests (a tree's in
tests/verify/test_fuzz_differential.py and test_proba_bound.py, an ensemble's in
tests/ensemble/test_ensemble_fuzz.py): one compiler run costs far more than one model.

:func:`compile_batch` builds every export into one shared library with the strict flags
verify uses, each with verify's own batch wrapper (treegen.verify.build) renamed after
the model's prefix, and gives one :class:`~treegen.verify.build.Built` per export;
:func:`syntax_check` compiles every predict.c alone under another C standard.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from treegen.codegen.parts import source_and_header
from treegen.verify.build import SHARED_FLAGS, STRICT_FLAGS, Built, CApi, _batch_source, render_cdef

Export = tuple[CApi, Mapping[str, str]]
"""A lowered model's C interface (a tree's IR, an ensemble's) and its rendered files."""

BATCH_FILE = "batch.c"


class _Alias:
    """A library whose ``treegen_batch`` is one model's own batch function."""

    def __init__(self, lib: Any, name: str) -> None:
        self.treegen_batch = getattr(lib, name)


def _batch_name(api: CApi) -> str:
    return f"treegen_batch_{api.prefix}"


def compile_batch(
    items: Sequence[Export], workdir: Path, cc: str = "gcc", defines: tuple[str, ...] = ()
) -> list[Built]:
    """Every export (distinct prefixes) in one shared library, compiled by ``cc`` with
    the strict flags and ``defines``: no diagnostic.  One :class:`Built` per export, in
    the order given."""
    import cffi

    sources: list[str] = []
    cdef: list[str] = []
    digest = hashlib.sha256(" ".join(defines).encode())
    for n, (api, files) in enumerate(items):
        d = workdir / f"m{n}"
        d.mkdir(parents=True, exist_ok=True)
        source, header = source_and_header(files)
        decl, batch = _batch_source(api, header)
        name = _batch_name(api)
        decl, batch = decl.replace("treegen_batch", name), batch.replace("treegen_batch", name)
        # One translation unit per model (its source, then the wrapper): half the
        # compiler runs of compiling the two apart.
        unit = f'#include "{source}"\n{batch}'
        for fname, text in {**files, BATCH_FILE: unit}.items():
            (d / fname).write_text(text, encoding="utf-8")
            digest.update(text.encode())
        sources.append(str(d / BATCH_FILE))
        cdef.append(render_cdef(api) + decl + ";\n")
    # The name follows the contents: a process never loads two libraries under one path.
    lib = workdir / f"lib_{digest.hexdigest()[:16]}.so"
    cmd = [cc, *SHARED_FLAGS, *STRICT_FLAGS, *defines, "-o", str(lib), *sources]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0 and not res.stderr, res.stderr[:3000]
    ffi = cffi.FFI()
    ffi.cdef("".join(cdef))
    loaded = ffi.dlopen(str(lib))
    return [Built(api, ffi, _Alias(loaded, _batch_name(api))) for api, _ in items]


def syntax_check(
    items: Sequence[Mapping[str, str]], workdir: Path, std: str, cc: str = "gcc"
) -> None:
    """Every export's predict.c (``items``: each export's files) alone under ``std`` and
    the strict flags: no diagnostic."""
    sources = []
    for n, files in enumerate(items):
        d = workdir / f"m{n}"
        d.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (d / fname).write_text(text, encoding="utf-8")
        sources.append(str(d / source_and_header(files)[0]))
    flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    res = subprocess.run(
        [cc, std, *flags, "-fsyntax-only", *sources], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0 and not res.stderr, res.stderr[:3000]
