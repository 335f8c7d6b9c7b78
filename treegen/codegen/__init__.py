"""Code generation: a :class:`~treegen.model.core.Model` to portable, exact C.

The pipeline is ``lower`` (model → :mod:`~.ir`, every comparison encoded
for the chosen input type) → ``emit`` (the IR as typed :mod:`~.views`, then
through the Jinja2 templates in ``templates/``: nested ifs or a static node
table) → :mod:`~.export` (options, provenance, atomic write of
``predict.c``/``predict.h``).  :mod:`~.ctype` is the one table of the C scalar
types.  The checks: :mod:`~.oracle` evaluates the IR in numpy,
:mod:`~.fixedpoint` is the C's missing-value arithmetic in Python,
:mod:`~.build` compiles the C and :mod:`~.verify` compares them all
(``treegen verify``).
"""

from __future__ import annotations

from treegen.codegen.emit import emit
from treegen.codegen.lower import ExportOptions, lower
from treegen.model.core import Model


def export_c(model: Model, opts: ExportOptions) -> dict[str, str]:
    """``{"predict.c": ..., "predict.h": ...}`` for ``model`` (no file is written)."""
    return emit(lower(model, opts), opts.style)


__all__ = ["ExportOptions", "export_c"]
