"""The default growth engine: every node of a tree level scored and split together.

:mod:`~.grow` drives the levels, :mod:`~.bucket` holds the units of work (a
node waiting to grow, a bucket of them, their scores), :mod:`~.evaluate` scores
continuous and nominal attributes for a bucket of nodes (:mod:`~.score` the
continuous ones with the C accelerator where it is built, :mod:`~.cutpick` picking
their best cuts), :mod:`~.partition` hands each child its cases and sorted arrays
(:mod:`~.routing` writing the tests and routing the cases to their branches
first), :mod:`~.rowvalues` holds the values row by row below the root, and
:mod:`~.flat` stores the growing tree as arrays (:class:`~.flat.FlatTree`) and
collapses it.  Same tree as :mod:`treegen.trainer.reference`, bit for bit.
"""
