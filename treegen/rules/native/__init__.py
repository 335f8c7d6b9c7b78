"""c4.5rules' optional C accelerator (extension module ``_crules``): rulegen.c generalises
one rule (:mod:`treegen.rules.paths`), rulecost.c runs the descents over a class's rule
subsets (:mod:`treegen.rules.subsets`); both compute what the numpy code does, bit for
bit, and load as every accelerator does (:func:`treegen.model.native.load`)."""

from __future__ import annotations

from types import ModuleType

from treegen.model.native import load

crules: ModuleType | None = load("treegen.rules.native._crules")
