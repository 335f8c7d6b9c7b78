"""Code generation: Model -> IR (lower) -> C text (emit), with a numpy oracle
(evaluate), the fixed-point semantics in Python (fixedpoint) and cffi builds (build)."""

from __future__ import annotations

from treegen.codegen.emit import emit, render_cdef
from treegen.codegen.ir import IR, ONE, validate
from treegen.codegen.lower import ExportOptions, lower

__all__ = ["IR", "ONE", "ExportOptions", "emit", "lower", "render_cdef", "validate"]
