"""Data in and files out: the :class:`Dataset` value and its schema, the readers.

:mod:`~treegen.data.dataset` defines the in-memory table every stage reads
(float64 value columns with NaN for unknown, nominal values as codes, class
codes) and its :class:`Schema`; :mod:`~treegen.data.readers` turns CSV,
ARFF and C4.5 ``.names``/``.data``/``.test`` files into one; and
:mod:`~treegen.data.atomic` writes any output file all-or-nothing.
:mod:`~treegen.data.synthetic` generates seeded datasets (for the benchmark
and the tests).
"""

from treegen.data.dataset import Attribute, Dataset, Schema

__all__ = ["Attribute", "Dataset", "Schema"]
