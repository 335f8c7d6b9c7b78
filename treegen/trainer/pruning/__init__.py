"""Release 8's pessimistic pruning with subtree raising.

:mod:`~.prune` is the Python walk over a :class:`~treegen.trainer.tree.TNode`
tree (and J48's training-error pass); :mod:`~.native` hands a tree as
arrays to the C walk, tested equal, and turns its records into model nodes.
"""
