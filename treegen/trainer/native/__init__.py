"""The trainer's optional C accelerator (extension modules ``_cscan`` / ``_cprune``).

Built by setup.py when a C compiler is available; each C function computes
the same numbers as the numpy code it stands in for, bit for bit (tested in
tests/trainer/test_trainer_native.py), so the trainer uses it when it is there and
its numpy code otherwise; it loads as every accelerator does
(:func:`treegen.model.native.load`: ``TREEGEN_NO_NATIVE=1`` turns it off).  The
numbers the C sources share with Python come from :mod:`treegen.trainer.constants`
and :mod:`treegen.model.constants` (setup.py passes them as macros).
"""

from __future__ import annotations

from types import ModuleType

from treegen.model.native import load

cscan: ModuleType | None = load("treegen.trainer.native._cscan")
cprune: ModuleType | None = load("treegen.trainer.native._cprune")
