"""The ruleset kind: C4.5's rule generator (c4.5rules) and everything a ruleset needs.

Making rules from a tree (:mod:`~.generate`, with :mod:`~.paths`, :mod:`~.final`,
:mod:`~.mdl`, :mod:`~.subsets` and their C kernels in ``native/``), how a ruleset
classifies (:mod:`~.core`), its file (:mod:`~.file`), printing (:mod:`~.show`), its C
(:mod:`~.ccode`) and what verify compares that C with (:mod:`~.check`).
"""
