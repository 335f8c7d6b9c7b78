"""Compile exported C into a shared library and call it on many rows at once.

cffi's ABI mode: the C compiler (``--cc``, else ``$CC``, else ``cc``/``gcc``/``clang``)
builds predict.c plus a small batch wrapper into a plain shared library, which
``ffi.dlopen`` loads; nothing is compiled against Python, so no Python headers
(python3-dev) are needed.  The library is built with the strict warning flags the
generated C is promised to pass (``-Werror``), so verify also proves that for the
user's compiler.  The declarations given to ``ffi.cdef`` are rendered from the C
interface (:class:`CApi`, :func:`render_cdef`), never scraped from predict.h.  The batch
wrapper calls ``PREFIX_predict`` and (when exported) ``PREFIX_predict_proba`` per row.
Every model kind exports that interface, so one build serves them all.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from treegen.codegen.ir import Encoding, Feature, ProbaApi
from treegen.codegen.parts import HEADER, source_and_header
from treegen.errors import EmitError


class CApi(Protocol):
    """The C interface of a lowered model of any kind: the symbols' prefix, the input
    encoding and features, and the vector it exports besides the class, if any
    (:class:`~treegen.codegen.ir.ProbaApi`).  predict.h declares ``PREFIX_input_t``,
    ``int PREFIX_predict(const PREFIX_input_t *x)`` (the class index) and, if exported,
    ``void PREFIX_<name>(const PREFIX_input_t *x, <ctype> *out)`` (``out[n]``: a tree's
    ``predict_proba`` in units of 1/32768, an ensemble's in double), and defines
    ``PREFIX_N_FEATURES`` and ``PREFIX_N_CLASSES``.  A tree's IR is one."""

    @property
    def prefix(self) -> str: ...

    @property
    def encoding(self) -> Encoding: ...

    @property
    def features(self) -> tuple[Feature, ...]: ...

    @property
    def n_features(self) -> int: ...

    @property
    def n_classes(self) -> int: ...

    @property
    def proba_api(self) -> ProbaApi | None: ...


def render_cdef(api: CApi) -> str:
    """Declarations for ``cffi.FFI.cdef`` (no preprocessor lines)."""
    P = api.prefix
    ctype = api.encoding.ctype.c_name
    out = api.proba_api
    if out is not None and out.values:  # a regressor: predict writes doubles
        return (
            f"typedef {ctype} {P}_input_t;\nvoid {P}_predict(const {P}_input_t *x, double *y);\n"
            f"void {P}_{out.name}(const {P}_input_t *x, {out.ctype} *out);\n"
        )
    return f"typedef {ctype} {P}_input_t;\nint {P}_predict(const {P}_input_t *x);\n" + (
        f"void {P}_{out.name}(const {P}_input_t *x, {out.ctype} *out);\n" if out else ""
    )


# The flags docs/exporting.md and tests/codegen/test_codegen_compile.py promise the
# generated C passes.
STRICT_FLAGS = [
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wconversion",
    "-Wsign-conversion",
    "-Wshadow",
    "-Wstrict-prototypes",
    "-pedantic",
    "-Werror",
]
SHARED_FLAGS = ["-shared", "-fPIC", "-O1"]
DEFAULT_COMPILERS = ("cc", "gcc", "clang")
BATCH_SOURCE = "treegen_batch.c"


_DTYPES = {"uint16_t": np.uint16, "uint32_t": np.uint32, "double": np.float64}


@dataclass
class Built:
    """A compiled model: ``run(X)`` returns (classes, the exported vector per row: a
    tree's fixed-point probabilities, an ensemble's doubles; no columns when none)."""

    ir: CApi
    ffi: Any
    lib: Any

    def run(self, X: npt.ArrayLike) -> tuple[npt.NDArray[np.int32], npt.NDArray[Any]]:
        ctype = self.ir.encoding.ctype
        rows = np.ascontiguousarray(X, dtype=ctype.dtype)
        n = rows.shape[0]
        assert rows.shape == (n, self.ir.n_features)
        api = self.ir.proba_api
        out_ctype = api.ctype if api else "uint16_t"
        cls = np.zeros(n, dtype=np.int32)
        out = np.zeros((n, api.n if api else self.ir.n_classes), dtype=_DTYPES[out_ctype])
        if n:
            self.lib.treegen_batch(
                self.ffi.from_buffer(f"{ctype.c_name}[]", rows),
                n,
                self.ffi.from_buffer("int[]", cls),
                self.ffi.from_buffer(f"{out_ctype}[]", out),
            )
        return cls, out


def find_compiler(cc: str | None = None) -> list[str]:
    """The compiler command: ``cc`` (the --cc option), else ``$CC``, else the first of
    cc, gcc, clang on PATH.  Like make, ``$CC`` may hold arguments (``ccache gcc``)."""
    if cc:
        text, what, option = cc, f"C compiler '{cc}'", "--cc"
    elif os.environ.get("CC", "").strip():
        text = os.environ["CC"]
        what, option = f"verify: C compiler '{text}' (from $CC)", None
    else:
        found = next((c for c in DEFAULT_COMPILERS if shutil.which(c)), None)
        if found is None:
            raise EmitError("verify: no C compiler found (set CC or install gcc)")
        return [found]
    try:
        words = shlex.split(text)
    except ValueError as exc:  # an unbalanced quote
        raise EmitError(f"{what}: {exc}", option=option) from None
    if not words or shutil.which(words[0]) is None:
        raise EmitError(f"{what} not found", option=option)
    return words


def _batch_source(ir: CApi, header: str = HEADER) -> tuple[str, str]:
    """The batch wrapper's declaration (for cdef) and its C source, including ``header``."""
    P, U = ir.prefix, ir.prefix.upper()
    api = ir.proba_api
    out_ctype = api.ctype if api else "uint16_t"
    decl = f"void treegen_batch(const {P}_input_t *x, long n, int *cls, {out_ctype} *out)"
    if api is not None and api.values:
        return decl, _regress_batch(P, U, api, decl, header)
    call = (
        f"        {P}_{api.name}(x + i * {U}_N_FEATURES, out + i * {api.n}L);\n"
        if api
        else "        (void)out;\n"
    )
    source = (
        f'#include "{header}"\n\n{decl};\n\n{decl}\n{{\n    long i;\n'
        "    for (i = 0; i < n; i++) {\n"
        f"        cls[i] = {P}_predict(x + i * {U}_N_FEATURES);\n" + call + "    }\n}\n"
    )
    return decl, source


def _regress_batch(P: str, U: str, api: ProbaApi, decl: str, header: str) -> str:
    """A regressor's batch wrapper: ``out`` gets predict_bits's words; ``cls[i]`` is 0
    when predict's doubles have exactly those bits, else 1.  A double's bits are read as
    one uint64_t, whose high half is the high word on a host of either byte order (two
    uint32_t halves in memory are the low word first only on a little-endian host: on
    s390x every regressor's row was a mismatch)."""
    return (
        f'#include <string.h>\n#include "{header}"\n\n{decl};\n\n{decl}\n{{\n'
        "    long i;\n    unsigned o;\n"
        f"    for (i = 0; i < n; i++) {{\n        double y[{U}_N_OUTPUTS];\n"
        f"        uint32_t *b = out + i * {api.n}L;\n"
        f"        {P}_predict_bits(x + i * {U}_N_FEATURES, b);\n"
        f"        {P}_predict(x + i * {U}_N_FEATURES, y);\n"
        "        cls[i] = 0;\n"
        f"        for (o = 0u; o < {U}_N_OUTPUTS; o++) {{\n"
        "            uint64_t u = 0u;\n"
        "            if (sizeof(double) == sizeof u) {\n"
        "                memcpy(&u, &y[o], sizeof u);\n            }\n"
        "            if (sizeof(double) != sizeof u || (uint32_t)(u >> 32) != b[2u * o]\n"
        "                || (uint32_t)u != b[2u * o + 1u]) {\n"
        "                cls[i] = 1;\n            }\n        }\n    }\n}\n"
    )


def build(ir: CApi, files: dict[str, str], workdir: Path, cc: str | None = None) -> Built:
    """Write ``files`` into ``workdir``, compile them into a shared library, load it."""
    try:
        import cffi
    except ImportError:
        raise EmitError(
            "verify needs the cffi package, which is not installed (pip install cffi)"
        ) from None
    compiler = find_compiler(cc)
    source, header = source_and_header(files)
    decl, batch = _batch_source(ir, header)
    workdir.mkdir(parents=True, exist_ok=True)
    for name, text in {**files, BATCH_SOURCE: batch}.items():
        (workdir / name).write_text(text, encoding="utf-8")
    # The name follows the contents: a process never loads two different libraries
    # under one path (dlopen would hand back the first).
    digest = hashlib.sha256("".join(files[k] for k in sorted(files)).encode()).hexdigest()[:16]
    lib = workdir / f"libtreegen_{ir.prefix}_{digest}{_suffix()}"
    tmp = lib.with_name(lib.name + ".tmp")
    cmd = [
        *compiler,
        *SHARED_FLAGS,
        *STRICT_FLAGS,
        "-I",
        str(workdir),
        "-o",
        str(tmp),
        str(workdir / source),
        str(workdir / BATCH_SOURCE),
    ]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise EmitError(
            f"cannot run the C compiler {compiler[0]}: {exc.strerror or exc}",
            option="--cc" if cc else None,
        ) from None
    if r.returncode != 0:
        first = error_line(r.stderr + r.stdout, f"exit status {r.returncode}")
        raise EmitError(
            f"compiling the exported C with {compiler[0]} failed: {first}",
            option="--cc" if cc else None,
        )
    if not tmp.is_file():  # exit 0 and no output: not a C compiler (e.g. --cc true)
        raise EmitError(
            f"the C compiler {compiler[0]} exited 0 but wrote no library",
            option="--cc" if cc else None,
        )
    # Replace, never overwrite in place: a library this process has mapped must not change.
    os.replace(tmp, lib)
    ffi = cffi.FFI()
    ffi.cdef(render_cdef(ir) + decl + ";\n")
    try:
        return Built(ir, ffi, ffi.dlopen(str(lib)))
    except OSError as exc:
        raise EmitError(
            f"cannot load the compiled C ({lib.name}): {exc}", option="--cc" if cc else None
        ) from None


_ERROR_MARKS = ("error", "undefined reference", "overflow")


def error_line(text: str, empty: str, *, last: bool = False) -> str:
    """The compiler's (or linker's) line of ``text`` to quote in a one-line error: the
    first that reports an error, else its first line (``last``: its last), else
    ``empty``.  gcc and clang put context first ("In file included from ...,"), which
    alone does not say what went wrong."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    found = next((x for x in lines if any(m in x for m in _ERROR_MARKS)), None)
    if found is not None:
        return found
    if not lines:
        return empty
    return lines[-1] if last else lines[0]


def _suffix() -> str:
    return ".dylib" if sys.platform == "darwin" else ".so"


def have_compiler(cc: str = "gcc") -> bool:
    return shutil.which(cc) is not None
