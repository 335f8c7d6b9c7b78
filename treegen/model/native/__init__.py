"""The optional C accelerators: how each is loaded, and the model's classifier (``_cclassify``).

Every accelerator module (this one's ``_cclassify``; the trainer's ``_cscan`` and
``_cprune``) is built by setup.py beside the Python it stands in
for, computes the same numbers bit for bit, and is optional: where it was not built, or
``TREEGEN_NO_NATIVE=1`` is set (the tests use it to compare the two paths), the Python
code runs.  :func:`load` is the one rule for that; :func:`describe` words the state for
``treegen --version``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import ModuleType


def off() -> bool:
    """Whether ``TREEGEN_NO_NATIVE`` turns the accelerators off."""
    return os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0")


def load(module: str) -> ModuleType | None:
    """The extension module ``module`` (a dotted name); None when off or not built."""
    if off():
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def describe(modules: Mapping[str, ModuleType | None]) -> str:
    """Which accelerator modules (by what they do) are in use: one phrase."""
    if all(m is not None for m in modules.values()):
        return "C accelerator on"
    if all(m is None for m in modules.values()):
        why = "turned off by TREEGEN_NO_NATIVE" if off() else "not built"
        return f"C accelerator off: {why}, treegen runs its numpy code"
    parts = [f"{n} {'on' if m is not None else 'off'}" for n, m in modules.items()]
    return "C accelerator: " + ", ".join(parts)


cclassify: ModuleType | None = load("treegen.model.native._cclassify")
