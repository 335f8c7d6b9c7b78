"""Many ensemble exports in one compiler run, each held to the Python model
(tests/ensemble/test_ensemble_fuzz.py): :func:`compile_batch` builds a batch of
rendered exports into one shared library with the strict flags, :func:`syntax_check`
compiles every predict.c alone under another standard, and :func:`compare_one` runs
the kind's own verify rows and comparison on one export of the library."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import source_and_header
from treegen.ensemble.core import Ensemble
from treegen.errors import TreegenError
from treegen.kinds.export import Rendered, render
from treegen.verify.build import SHARED_FLAGS, STRICT_FLAGS, Built, _batch_source, render_cdef
from treegen.verify.report import Report


class _Alias:
    """A library whose ``treegen_batch`` is one model's own batch function."""

    def __init__(self, lib: Any, name: str) -> None:
        self.treegen_batch = getattr(lib, name)


def compile_batch(
    items: list[Rendered], workdir: Path, cc: str = "gcc", defines: tuple[str, ...] = ()
) -> list[Built]:
    """Every rendered export (distinct prefixes) in one shared library built with the
    strict flags; one :class:`Built` per export."""
    import cffi

    sources: list[str] = []
    cdef: list[str] = []
    digest = hashlib.sha256(" ".join(defines).encode())
    for n, r in enumerate(items):
        d = workdir / f"m{n}"
        d.mkdir(parents=True, exist_ok=True)
        _, header = source_and_header(r.files)
        decl, batch = _batch_source(r.lowered, header)
        name = f"treegen_batch_{r.lowered.prefix}"
        decl, batch = decl.replace("treegen_batch", name), batch.replace("treegen_batch", name)
        for fname, text in {**r.files, "batch.c": batch}.items():
            (d / fname).write_text(text, encoding="utf-8")
            digest.update(text.encode())
        sources += [str(d / source_and_header(r.files)[0]), str(d / "batch.c")]
        cdef.append(render_cdef(r.lowered) + decl + ";\n")
    lib = workdir / f"lib_{digest.hexdigest()[:16]}.so"
    cmd = [cc, *SHARED_FLAGS, *STRICT_FLAGS, *defines, "-o", str(lib), *sources]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0 and not res.stderr, res.stderr[:3000]
    ffi = cffi.FFI()
    ffi.cdef("".join(cdef))
    loaded = ffi.dlopen(str(lib))
    return [
        Built(r.lowered, ffi, _Alias(loaded, f"treegen_batch_{r.lowered.prefix}")) for r in items
    ]


def syntax_check(items: list[Rendered], workdir: Path, std: str, cc: str = "gcc") -> None:
    """Every export's predict.c alone under ``std`` and the strict flags: no diagnostic."""
    sources = []
    for n, r in enumerate(items):
        d = workdir / f"m{n}"
        d.mkdir(parents=True, exist_ok=True)
        for fname, text in r.files.items():
            (d / fname).write_text(text, encoding="utf-8")
        sources.append(str(d / source_and_header(r.files)[0]))
    flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    res = subprocess.run(
        [cc, std, *flags, "-fsyntax-only", *sources], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0 and not res.stderr, res.stderr[:3000]


def render_case(ens: Ensemble, opts: ExportOptions) -> Rendered | str:
    """The export, or the one-line error that refuses it."""
    try:
        return render(ens, opts)
    except TreegenError as err:
        return str(err)


def compare_one(ens: Ensemble, r: Rendered, built: Built, n_random: int, seed: int) -> Report:
    """The kind's own verify rows and comparison, on a library built by compile_batch."""
    report = Report([])
    X = r.kind.rows(ens, r.lowered, r.opts, (), n_random, seed, report)
    c_cls, c_out = built.run(X)
    r.kind.compare(ens, r.lowered, r.opts, X, c_cls, c_out, report)
    return report
