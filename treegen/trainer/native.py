"""The optional C accelerator (``treegen.trainer._cscan`` / ``_cprune``).

Built by setup.py when a C compiler is available; each C function computes
the same numbers as the numpy code it stands in for, bit for bit (tested in
tests/test_trainer_native.py), so the trainer uses it when it is there and
its numpy code otherwise.  ``TREEGEN_NO_NATIVE=1`` in the environment turns
the accelerator off (the tests use this to compare the two paths).
"""

from __future__ import annotations

import os
from types import ModuleType


def _load(name: str) -> ModuleType | None:
    if os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0"):
        return None
    try:
        if name == "cscan":
            from treegen.trainer import _cscan  # type: ignore[attr-defined]

            return _cscan  # type: ignore[no-any-return]
        from treegen.trainer import _cprune  # type: ignore[attr-defined]

        return _cprune  # type: ignore[no-any-return]
    except ImportError:
        return None


cscan: ModuleType | None = _load("cscan")
cprune: ModuleType | None = _load("cprune")


def status() -> str:
    """One line for ``--version``-style reports: which accelerators are in use."""
    parts = [
        f"{n}: {'yes' if m is not None else 'no'}" for n, m in (("scan", cscan), ("prune", cprune))
    ]
    return "C accelerator " + ", ".join(parts)
