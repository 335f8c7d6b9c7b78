"""The optional C tokenizer for data files (extension module ``_ctok``).

Built by setup.py next to the trainer's accelerator, with the same fallback:
without a C compiler the readers run their Python code (the reference; same
``Dataset``, slower).  ``TREEGEN_NO_NATIVE=1`` turns it off, as it does the
trainer's, so the tests can compare the two paths.
"""

from __future__ import annotations

import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0"):
        return None
    try:
        from treegen.data.native import _ctok  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _ctok  # type: ignore[no-any-return]


ctok: ModuleType | None = _load()
