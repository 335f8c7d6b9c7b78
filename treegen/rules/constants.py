"""The numbers c4.5rules' description lengths share with the C accelerator
(treegen/rules/native/, whose C files setup.py builds with each as ``TG_<NAME>``).

Only ``NAME = literal`` assignments belong here: setup.py reads this file without
importing the package.
"""

# A rate within this of 0 or 1 is certain: the errors then cost nothing if they agree
# with it, else IMPOSSIBLE_BITS.
CERTAIN = 1e-6
IMPOSSIBLE_BITS = 1e6
# The weight of the theory bits against the exception bits (c4.5rules' CodeWeight).
THEORY_WEIGHT = 0.5
# The generalisation of a path counts how many of its conditions each case fails up to
# this many (more count as this many): after r conditions are dropped only cases
# failing at most r + 1 matter, so a step looks only where such cases are.
FAIL_LEVELS = 6
