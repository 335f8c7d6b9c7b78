"""Code generation: Model -> IR (lower) -> C text (emit), with a numpy oracle
(evaluate), the fixed-point semantics in Python (fixedpoint), cffi builds (build) and
the parity check behind ``treegen verify`` (verify)."""

from __future__ import annotations

from treegen.codegen.lower import ExportOptions
from treegen.model.core import Model


def export_c(model: Model, opts: ExportOptions) -> dict[str, str]:
    """``{"predict.c": ..., "predict.h": ...}`` for ``model`` (no file is written)."""
    from treegen.codegen.emit import emit as _emit
    from treegen.codegen.lower import lower as _lower

    return _emit(_lower(model, opts), opts.style)


__all__ = ["ExportOptions", "export_c"]
