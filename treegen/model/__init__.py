"""The trained model as a value, and everything that reads it without compiling.

:mod:`~treegen.model.core` is the immutable :class:`Model` (schema, node
table of one class per node kind, options, provenance); :mod:`~treegen.model.file` its JSON file
format (``model.tree``) with :mod:`~treegen.model.check` validating a file
before a Model is built; :mod:`~treegen.model.classify` Release 8's
classifier (the Python semantics the generated C is held to), with its C kernel in
``native/``; :mod:`~treegen.model.fixedpoint` the Q15 arithmetic of missing values that
the C implements; and :mod:`~treegen.model.show` the printed tree in Release 8's or
J48's layout.
"""

from treegen.model.core import (
    ContinuousTest,
    Leaf,
    Model,
    Node,
    NodeKind,
    NominalTest,
    SubsetTest,
    Test,
    ValueTest,
)

__all__ = [
    "ContinuousTest",
    "Leaf",
    "Model",
    "Node",
    "NodeKind",
    "NominalTest",
    "SubsetTest",
    "Test",
    "ValueTest",
]
