"""c4.5rules' optional C accelerator (extension module ``_crules``: ``crules.h`` and its C files).

Built by setup.py when a C compiler is available: the generalisation of a leaf's
path over packed bitsets (:mod:`treegen.rules.paths`) and the steps of the class-subset
search (:mod:`treegen.rules.subsets`), the same numbers as the Python code bit for bit
(tests/rules/test_rules_native.py), which runs where it was not built or
``TREEGEN_NO_NATIVE=1`` is set (:func:`treegen.model.native.load`).
"""

from __future__ import annotations

from types import ModuleType

from treegen.model.native import load

crules: ModuleType | None = load("treegen.rules.native._crules")
