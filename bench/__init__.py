"""``make bench``: training speed and memory, and the export benchmark (not part of the package).

Run the scripts as modules from the repository root (``python -m bench.run``,
``python -m bench.export_bench``); they import treegen, never the tests.
"""

import numpy as _np

# emlearn's import sets numpy to raise on every floating-point error, for the whole
# process (numpy.seterr(all="raise") in emlearn/bayes.py). Import it once here with the
# state put back, so the bench's later imports of it change nothing for the code that
# runs after them.
_state = _np.geterr()
try:
    import emlearn  # noqa: F401
except ImportError:
    pass
finally:
    _np.seterr(**_state)
