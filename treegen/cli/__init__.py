"""The ``treegen`` command line: parsing and printing only.

:mod:`~treegen.cli.main` is the frame (top-level parser, global options,
the one-line error policy and exit codes); each command group has a module
that registers its subcommands and calls the library: :mod:`~.train`
(train, show, eval, predict, cv) and :mod:`~.export` (export, verify).
:mod:`~.common` holds the option types and data options they share.
"""
