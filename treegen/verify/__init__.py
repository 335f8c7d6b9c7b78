"""Verification of the generated C: build it, run it on rows, compare with Python.

:mod:`~.build` compiles any kind's C into a shared library and calls it through cffi
(the C interface every kind exports, :class:`~.build.CApi`); :mod:`~.report` is what a
comparison reports and its one rule (equality, never a tolerance).  A tree's side:
:mod:`~.inputs` (the rows: thresholds and their neighbours, missing and special values,
random rows), :mod:`~.oracle` (the IR evaluated in numpy) and :mod:`~.tree` (the
comparisons with the fixed-point and float classifiers).  Other kinds bring their own
rows and oracles (a ruleset: :mod:`treegen.rules.check`); :mod:`treegen.kinds.check`
runs them all.
"""
