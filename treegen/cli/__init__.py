"""The ``treegen`` command line: parsing and printing only.

:mod:`~treegen.cli.main` is the frame (top-level parser, global options,
the one-line error policy and exit codes); each command group has a module
that registers its subcommands and calls the library: :mod:`~.train`
(train, show, eval, predict, cv) and :mod:`~.export` (export, verify).
:mod:`~.common` holds the option types and data options they share.
"""

import os

# numpy's import loads OpenBLAS, which starts a thread per core that spins waiting for
# work: about 0.05 s of CPU per command, though no command does linear algebra (numpy
# is first imported below this package: treegen/__init__.py leaves it out).  A value
# the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
