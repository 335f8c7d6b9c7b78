"""The optional C accelerator (extension modules ``_cscan`` / ``_cprune``).

Built by setup.py when a C compiler is available; each C function computes
the same numbers as the numpy code it stands in for, bit for bit (tested in
tests/test_trainer_native.py), so the trainer uses it when it is there and
its numpy code otherwise.  ``TREEGEN_NO_NATIVE=1`` in the environment turns
the accelerator off (the tests use this to compare the two paths).  The
numbers the C sources share with Python come from
:mod:`treegen.trainer.constants` (setup.py passes them as macros).
"""

from __future__ import annotations

import os
from types import ModuleType


def _off() -> bool:
    """Whether ``TREEGEN_NO_NATIVE`` turns the accelerator off."""
    return os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0")


def _load(name: str) -> ModuleType | None:
    """The extension module ``_cscan`` or ``_cprune``; None when off or not built."""
    if _off():
        return None
    try:
        if name == "cscan":
            from treegen.trainer.native import _cscan  # type: ignore[attr-defined]

            return _cscan  # type: ignore[no-any-return]
        from treegen.trainer.native import _cprune  # type: ignore[attr-defined]

        return _cprune  # type: ignore[no-any-return]
    except ImportError:
        return None


cscan: ModuleType | None = _load("cscan")
cprune: ModuleType | None = _load("cprune")


def status() -> str:
    """Which accelerator modules are in use, for ``treegen --version``."""
    if cscan is not None and cprune is not None:
        return "C accelerator on"
    if cscan is None and cprune is None:
        why = "turned off by TREEGEN_NO_NATIVE" if _off() else "not built"
        return f"C accelerator off: {why}, training runs its numpy code"
    parts = [
        f"{n} {'on' if m is not None else 'off'}"
        for n, m in (("growth", cscan), ("pruning", cprune))
    ]
    return "C accelerator: " + ", ".join(parts)
