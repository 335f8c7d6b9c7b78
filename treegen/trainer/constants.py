"""The trainer's shared numbers, one home each, for its Python code and its C accelerator.

Only assignments of plain literals, no imports: setup.py reads this file
without importing treegen (``ast.literal_eval`` of every assignment) and
passes each name to the C compiler as the macro ``TG_<NAME>`` (with the
node-kind codes of :mod:`treegen.model.constants`); the C
sources in :mod:`treegen.trainer.native` use those macros and refuse to
build without them (common.h).  The Python side imports the names from here.
"""

# Release 8's Epsilon: the slack in "gain at least the average", in "a subtree
# no better than a leaf" (collapse) and the worth of an inadmissible test.
EPSILON = 1e-3

# Release 8's AddErrs: fewer training errors than this count as none.
ADD_ERRS_ZERO = 1e-6

# J48's entropy terms (EntropyBasedSplitCrit.logFunc): a weight below this adds no
# v log v term, where Release 8 adds one for any positive weight.
J48_LOG_MIN = 1e-6

# Adjacent sorted values closer than this admit no cut between them (Release 8
# and J48 alike).
CUT_GAP = 1e-5

# The c45 flavour sums case weights in Release 8's own case order on training sets
# with unknown values of up to this many rows (treegen.trainer.release8; node by node,
# so slower than the level-wise engine), in row order otherwise.
RELEASE8_ORDER_MAX_ROWS = 10000

# Release 8's value-grouping search (--subsets) stops unless its best merger is
# worth more than this above the current grouping.
GROUPING_MIN_RISE = 1e-5

# ln 2, by which Release 8's Log divides.
LN2 = 0.69314718055994530942

# The accelerator keeps per-class sums on the C stack; with more classes than
# this (no real dataset) training takes the numpy path.
MAX_CLASSES = 4096
