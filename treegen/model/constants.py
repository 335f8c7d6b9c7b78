"""The model's numbers shared with C: the node-kind codes and J48's tolerance, one home
for Python and C.

Only assignments of plain literals, no imports: setup.py reads this file without
importing treegen (``ast.literal_eval`` of every assignment) and passes each name to
the C compiler as the macro ``TG_<NAME>``, for the model's classifier
(model/native/classify.c) and the trainer's kernels (the level-wise engine's arrays,
the C pruner's records), which refuse to build without them.
"""

# Node kinds in flat arrays of a tree: the classifier's tables, the level-wise
# engine's FlatTree.kind and the C pruner's input and output records.
KIND_LEAF = 0
KIND_CONTINUOUS = 1
KIND_NOMINAL = 2
KIND_SUBSET = 3

# Weka's tolerance in Utils.eq / gr / sm / smOrEq: J48's comparisons, in training
# and in a j48 model's answers (treegen.model.j48rule).
J48_TOL = 1e-6
