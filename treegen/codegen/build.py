"""Compile exported C with cffi and call it on many rows at once.

The declarations given to ``ffi.cdef`` are rendered from the IR
(:func:`treegen.codegen.emit.render_cdef`), never scraped from predict.h.  A small
batch wrapper calls both ``PREFIX_predict`` and ``PREFIX_predict_proba`` per row.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.codegen.emit import HEADER, SOURCE, render_cdef
from treegen.codegen.ir import IR
from treegen.codegen.literals import C_TYPES
from treegen.errors import EmitError

NP_TYPES = {"float": np.float32, "double": np.float64, "int8": np.int8, "int16": np.int16,
            "int32": np.int32, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32}


@contextlib.contextmanager
def _cc(cc: str | None) -> Iterator[None]:
    old = os.environ.get("CC")
    if cc:
        os.environ["CC"] = cc
    try:
        yield
    finally:
        if cc:
            if old is None:
                del os.environ["CC"]
            else:
                os.environ["CC"] = old


@dataclass
class Built:
    """A compiled model: ``run(X)`` returns (classes, fixed-point probabilities)."""

    ir: IR
    ffi: Any
    lib: Any

    def run(self, X: npt.ArrayLike) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
        rows = np.ascontiguousarray(X, dtype=NP_TYPES[self.ir.encoding.input_type])
        n = rows.shape[0]
        assert rows.shape == (n, self.ir.n_features)
        cls = np.zeros(n, dtype=np.int32)
        proba = np.zeros((n, self.ir.n_classes), dtype=np.uint16)
        if n:
            ct = C_TYPES[self.ir.encoding.input_type]
            self.lib.treegen_batch(self.ffi.from_buffer(f"{ct}[]", rows), n,
                                   self.ffi.from_buffer("int[]", cls),
                                   self.ffi.from_buffer("uint16_t[]", proba))
        return cls, proba


def build(ir: IR, files: dict[str, str], workdir: Path, cc: str | None = None) -> Built:
    """Write ``files`` into ``workdir``, compile them with cffi and load the module."""
    import cffi

    workdir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (workdir / name).write_text(text, encoding="utf-8")
    P, U = ir.prefix, ir.prefix.upper()
    digest = hashlib.sha256("".join(files[k] for k in sorted(files)).encode()).hexdigest()[:16]
    modname = f"_treegen_{P}_{digest}"
    batch_decl = (f"void treegen_batch(const {P}_input_t *x, long n, int *cls, "
                  "uint16_t *proba)")
    ffi = cffi.FFI()
    ffi.cdef(render_cdef(ir) + batch_decl + ";\n")
    ffi.set_source(
        modname,
        f'#include "{HEADER}"\n{batch_decl}\n{{\n    long i;\n    for (i = 0; i < n; i++) {{\n'
        f"        cls[i] = {P}_predict(x + i * {U}_N_FEATURES);\n"
        f"        {P}_predict_proba(x + i * {U}_N_FEATURES, proba + i * {U}_N_CLASSES);\n"
        "    }\n}\n",
        sources=[str(workdir / SOURCE)], include_dirs=[str(workdir)],
        extra_compile_args=["-O1"])
    try:
        with _cc(cc):
            so = ffi.compile(tmpdir=str(workdir), verbose=False)
    except Exception as exc:  # cffi raises VerificationError / CompileError
        raise EmitError(f"compiling the exported C failed: {str(exc).splitlines()[0]}",
                        option="--cc" if cc else None) from exc
    spec = importlib.util.spec_from_file_location(modname, so)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Built(ir, module.ffi, module.lib)


def have_compiler(cc: str = "gcc") -> bool:
    return shutil.which(cc) is not None
