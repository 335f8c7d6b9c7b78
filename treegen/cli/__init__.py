"""The ``treegen`` command line: parsing and printing only.

:mod:`~treegen.cli.main` is the frame (top-level parser, global options,
the one-line error policy and exit codes); each command group has a module
that registers its subcommands and calls the library: :mod:`~.train`
(train, show, eval, predict, cv) and :mod:`~.export` (export, verify).
:mod:`~.common` holds the option types and data options they share.
"""

import os
import sys

# numpy's import loads OpenBLAS, which starts a thread per core that spins waiting for
# work: about 0.05 s of CPU per command, though no command does linear algebra (numpy
# is first imported below this package: treegen/__init__.py leaves it out).  A value
# the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def run() -> None:
    """The ``treegen`` console script and ``python -m treegen``: :func:`main
    <treegen.cli.main.main>`'s exit status.

    main() turns a Ctrl-C while a command runs into ``treegen: interrupted`` and exit
    status 130; here a Ctrl-C before that, while Python loads treegen's modules (numpy's
    import alone takes a tenth of a second) or builds the parser, ends the same way
    instead of in a traceback.
    """
    try:
        from treegen.cli.main import main

        status = main()
    except KeyboardInterrupt:
        sys.stderr.write("treegen: interrupted\n")
        status = 130
    sys.exit(status)
